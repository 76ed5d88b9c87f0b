//! Attention through real tmux and the demo agent: the project's watcher
//! raises each event once per episode (one watcher runs per project and
//! host: tests/watcher.rs), records
//! it in the activity feed and posts it to a webhook; `swarm answer`
//! picks the option asked for (and types nothing without a dialog),
//! `swarm peek` shows the screen; a message to the person lands in their
//! inbox; a held message goes in by itself once its pane is safe.

use crate::harness::http::http_server;
use crate::harness::watcher::{events, feed, wait_for_event, watch};
use crate::harness::{Project, TmuxServer, agents, ok_stdout, outcome, records, swarm, wait_for};

/// The answers the demo agent of `rec<i>.jsonl` recorded.
fn answers(project: &Project, i: usize) -> Vec<String> {
    crate::harness::answers(&project.file(&format!("rec{i}.jsonl")))
}

#[test]
fn every_event_is_raised_once_per_episode() {
    let server = TmuxServer::start();
    let project = Project::new();
    project.write(".claudeswarm.toml", "[notify]\nstuck_after = 5\n");
    let panes = agents(&server, &project, 3);
    let _a = watch(&project, &server, &[]);

    // A dialog: needs_input, carrying the question and the options.
    server.type_line(&panes[0], "please DEMOASK");
    let got = wait_for_event(&project, "needs_input", 1);
    assert_eq!(got, [("agent-0".to_owned(), 1)]);
    let line = feed(&project)
        .into_iter()
        .find(|e| e["event"] == "needs_input")
        .expect("needs_input");
    assert_eq!(line["detail"], "Do you want to proceed?");
    assert_eq!(line["options"][0]["label"], "Yes");
    assert_eq!(line["options"][1]["label"], "No");
    assert!(line["time"].as_str().expect("time").ends_with("+00:00"));

    // A turn that ends: finished.
    server.type_line(&panes[1], "work DEMOSLEEP1");
    wait_for_event(&project, "finished", 1);

    // A busy screen that does not change: stuck.
    server.type_line(&panes[2], "long work DEMOSLEEP300");
    wait_for_event(&project, "stuck", 1);

    // The dialog is answered, then asked again: a second episode.
    server.tmux(&["send-keys", "-t", &panes[0], "1"]);
    server.wait_for_screen(&panes[0], "(answered yes)");
    server.type_line(&panes[0], "again DEMOASK");
    let got = wait_for_event(&project, "needs_input", 2);
    assert_eq!(
        got[..2],
        [("agent-0".to_owned(), 1), ("agent-0".to_owned(), 2)]
    );

    // The agent's program ends and a shell is left: exited.
    server.tmux(&["send-keys", "-t", &panes[1], "C-c"]);
    wait_for_event(&project, "exited", 1);

    // One more episode after all of that: by the time it is raised, the
    // watcher has looked at every earlier state for many rounds.
    server.tmux(&["send-keys", "-t", &panes[0], "2"]);
    server.wait_for_screen(&panes[0], "(answered no)");
    server.type_line(&panes[0], "last DEMOASK");
    wait_for_event(&project, "needs_input", 3);
    for (kind, n) in [
        ("needs_input", 3),
        ("finished", 1),
        ("stuck", 1),
        ("exited", 1),
    ] {
        let got = events(&project, kind);
        assert_eq!(got.len(), n, "{kind}: {got:?}");
        let mut distinct = got.clone();
        distinct.dedup();
        assert_eq!(distinct, got, "{kind} raised twice: {got:?}");
    }
}

#[test]
fn a_webhook_gets_the_dialog_as_json() {
    let server = TmuxServer::start();
    let project = Project::new();
    let panes = agents(&server, &project, 1);
    let (port, received) = http_server(&[200]);
    let url = format!("http://127.0.0.1:{port}/hook");
    let _w = watch(&project, &server, &[("SWARM_NOTIFY_WEBHOOK", &url)]);
    server.type_line(&panes[0], "please DEMOASK");
    let got = received
        .recv_timeout(crate::harness::PATIENCE)
        .expect("the webhook was called");
    assert_eq!(got.method, "POST");
    assert_eq!(got.path, "/hook");
    let body = got.json();
    assert_eq!(body["event"], "needs_input");
    assert_eq!(body["agent"], "agent-0");
    assert_eq!(body["detail"], "Do you want to proceed?");
    assert!(
        body["text"]
            .as_str()
            .expect("text")
            .contains("agent-0 needs you"),
        "{body}"
    );
}

#[test]
fn answer_picks_the_option_by_its_label_and_refuses_without_a_dialog() {
    let server = TmuxServer::start();
    let project = Project::new();
    let panes = agents(&server, &project, 1);

    // No dialog: nothing is typed, a clear error.
    let out = swarm(&project, &server)
        .args(["answer", "agent-0", "yes"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("shows no dialog") && err.contains("nothing was typed"),
        "{err}"
    );
    assert!(answers(&project, 0).is_empty());

    // `No` listed first and highlighted: `yes` still picks Yes.
    server.type_line(&panes[0], "please DEMOASKNO");
    server.wait_for_screen(&panes[0], "Esc to cancel");
    let out = swarm(&project, &server)
        .args(["answer", "agent-0", "yes", "--json"])
        .output()
        .expect("run");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(j["option"]["label"], "Yes");
    assert_eq!(j["closed"], true);
    wait_for("the answer", || {
        (!answers(&project, 0).is_empty()).then_some(())
    });
    assert_eq!(answers(&project, 0), ["yes"]);

    // Numbered options: `no` types the digit of No.
    server.type_line(&panes[0], "again DEMOASK");
    server.wait_for_screen(&panes[0], "2. No");
    swarm(&project, &server)
        .args(["answer", "agent-0", "no"])
        .assert()
        .success();
    wait_for("the second answer", || {
        (answers(&project, 0).len() == 2).then_some(())
    });
    assert_eq!(answers(&project, 0), ["yes", "no"]);

    // An option that is not there: refused, nothing typed.
    server.type_line(&panes[0], "third DEMOASK");
    server.wait_for_screen(&panes[0], "2. No");
    let out = swarm(&project, &server)
        .args(["answer", "agent-0", "7"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no option 7"));
    swarm(&project, &server)
        .args(["answer", "agent-0", "--escape"])
        .assert()
        .success();
    wait_for("the cancel", || {
        (answers(&project, 0).len() == 3).then_some(())
    });
    assert_eq!(answers(&project, 0), ["yes", "no", "cancelled"]);

    // Every answer is audited and in the feed.
    let audit = project.read(".swarm/audit.log");
    assert_eq!(audit.matches("\"answered\"").count(), 3, "{audit}");
    assert_eq!(
        feed(&project)
            .iter()
            .filter(|e| e["event"] == "answered")
            .count(),
        3
    );
}

#[test]
fn peek_shows_the_screen_without_escapes() {
    let server = TmuxServer::start();
    let project = Project::new();
    let panes = agents(&server, &project, 1);
    server.type_line(&panes[0], "hello \u{1b}[31mred");
    server.wait_for_screen(&panes[0], "submission 1");
    let out = swarm(&project, &server)
        .args(["peek", "agent-0", "--json"])
        .output()
        .expect("run");
    assert!(out.status.success());
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let rows: Vec<&str> = j["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .map(|r| r.as_str().expect("row"))
        .collect();
    assert!(
        rows.iter().any(|r| r.contains("waiting for messages")),
        "{rows:?}"
    );
    assert!(rows.iter().all(|r| !r.contains('\u{1b}')), "{rows:?}");
    assert_eq!(j["state"], "idle");
    let out = swarm(&project, &server)
        .args(["peek", "agent-0", "-n", "1"])
        .output()
        .expect("run");
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(text.lines().count(), 2, "a title and one row: {text}");
}

#[test]
fn a_message_to_the_person_lands_in_their_inbox_and_the_feed() {
    let server = TmuxServer::start();
    let project = Project::new();
    agents(&server, &project, 1);
    let out = swarm(&project, &server)
        .args([
            "msg",
            "operator",
            "QUESTION",
            "which schema?",
            "--from",
            "agent-0",
        ])
        .output()
        .expect("run");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let line = wait_for("the message event", || {
        feed(&project).into_iter().find(|e| e["event"] == "message")
    });
    assert_eq!(line["agent"], "agent-0");
    assert_eq!(line["detail"], "which schema?");
    let open = project.read(".swarm/episodes.json");
    assert!(open.contains("\"message\""), "{open}");
    let inbox = swarm(&project, &server)
        .args(["inbox", "--agent", "operator"])
        .output()
        .expect("run");
    assert!(String::from_utf8_lossy(&inbox.stdout).contains("which schema?"));
    // Reading the inbox clears the notice.
    let open: serde_json::Value =
        serde_json::from_str(&project.read(".swarm/episodes.json")).expect("json");
    assert_eq!(
        open["agents"]["agent-0"]["message"]["open"], false,
        "{open}"
    );
}

#[test]
fn a_held_message_goes_in_by_itself_once_the_pane_is_safe() {
    let server = TmuxServer::start();
    let project = Project::new();
    let panes = agents(&server, &project, 1);
    server.tmux(&["send-keys", "-t", &panes[0], "-l", "half typed"]);
    server.wait_for_screen(&panes[0], "> half typed");
    let out = swarm(&project, &server)
        .env("SWARM_WATCHER_AUTOSTART", "true")
        .args(["msg", "agent-0", "INFO", "after you"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(7));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("[HELD]"), "{text}");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("types it in by itself"), "{text}");
    // swarm's notice in the session's status line says it waits.
    let session = server
        .tmux(&["display-message", "-p", "-t", &panes[0], "#{session_name}"])
        .trim()
        .to_owned();
    // Unset, tmux calls the option invalid: that reads as empty.
    let status = || {
        let out = server.try_tmux(&[
            "show-options",
            "-v",
            "-t",
            &format!("={session}:"),
            "@swarm_status",
        ]);
        String::from_utf8_lossy(&out.stdout).trim().to_owned()
    };
    wait_for("the held notice", || {
        status()
            .contains("1 message for agent-0 waiting")
            .then_some(())
    });
    // The person clears their line; nobody runs anything.
    server.tmux(&["send-keys", "-t", &panes[0], "C-u"]);
    let got = wait_for("the held message", || {
        records(&project.file("rec0.jsonl"))
            .into_iter()
            .find(|r| r.get("text").is_some())
    });
    assert!(
        got["text"].as_str().expect("text").ends_with("after you"),
        "{got}"
    );
    assert_eq!(records(&project.file("rec0.jsonl")).len(), 1);
    // The notice goes with the last held message.
    wait_for("the notice to clear", || status().is_empty().then_some(()));
    // The background watcher ends once the swarm's panes are gone.
    server.kill_pane(&panes[0]);
    wait_for("the background watcher to end", || {
        project
            .read(".swarm/watcher.log")
            .contains("the watcher ends")
            .then_some(())
    });
}

#[test]
fn a_message_with_no_tmux_server_says_so() {
    let server = TmuxServer::start();
    let project = Project::new();
    agents(&server, &project, 1);
    let out = swarm(&project, &server)
        .env("SWARM_TMUX_SOCKET", "swarm-test-no-such-server")
        .args(["msg", "agent-0", "INFO", "hi"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(7));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("no tmux server is running"), "{text}");
    assert!(!text.contains("no input box"), "{text}");
}

#[test]
fn launch_returns_once_its_agents_are_ready() {
    let server = TmuxServer::start();
    let project = Project::new();
    // An agent that takes a moment to draw its prompt.
    let slow = format!(
        "sleep 1.5 && exec '{}' demo-agent",
        crate::harness::swarm_bin()
    );
    let out = swarm(&project, &server)
        .args([
            "launch",
            "2",
            "--cmd",
            &slow,
            "--session",
            "ready",
            "--json",
        ])
        .output()
        .expect("run");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let agents = j["agents"].as_array().expect("agents");
    assert_eq!(agents.len(), 2);
    assert!(agents.iter().all(|a| a["ready"] == true), "{j}");
    // The first message goes straight in: no "no input box".
    let id = agents[0]["id"].as_str().expect("id");
    let out = swarm(&project, &server)
        .args(["msg", id, "INFO", "first"])
        .output()
        .expect("run");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

#[test]
fn answer_without_a_dialog_or_with_no_such_option_says_what_there_is() {
    let server = TmuxServer::start();
    let project = Project::new();
    let panes = agents(&server, &project, 1);
    let answers = || -> Vec<String> {
        records(&project.file("rec0.jsonl"))
            .into_iter()
            .filter_map(|r| r.get("answer").and_then(|a| a.as_str()).map(str::to_owned))
            .collect()
    };

    let (code, _, stderr) = outcome(swarm(&project, &server).args(["answer", "agent-0", "yes"]));
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains("shows no dialog"), "{stderr}");
    assert!(
        stderr.contains("hint:") && stderr.contains("swarm peek agent-0"),
        "{stderr}"
    );

    server.type_line(&panes[0], "please DEMOASK");
    server.wait_for_screen(&panes[0], "2. No");
    let (code, _, stderr) = outcome(swarm(&project, &server).args(["answer", "agent-0", "maybe"]));
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stderr.contains("maybe") && stderr.contains("1. Yes") && stderr.contains("2. No"),
        "{stderr}"
    );
    assert!(answers().is_empty());
    assert!(server.capture(&panes[0]).contains("Esc to cancel"));
    // The dialog is still there to be answered.
    ok_stdout(swarm(&project, &server).args(["answer", "agent-0", "2"]));
    wait_for("the answer", || (!answers().is_empty()).then_some(()));
    assert_eq!(answers(), ["no"]);
}
