//! The project's watcher as a service, through real tmux and the demo
//! agent: it can be seen (`swarm watcher status`), started, stopped and
//! restarted; one runs per project and host; it picks up a changed config
//! file by itself and a shell's environment on `restart`; it is the one
//! notifier (a message to the person is notified by it, with its
//! settings); a notice the throttle held back is sent when the window
//! ends.

use std::time::{Duration, Instant};

use crate::harness::agents;
use crate::harness::http::http_server;
use crate::harness::{PATIENCE, Project, TmuxServer, stdout_json, swarm, wait_for};

/// Stops the project's watcher when dropped, so that no background
/// watcher outlives its test.
struct Stopper<'a>(&'a Project, &'a TmuxServer);

impl Drop for Stopper<'_> {
    fn drop(&mut self) {
        let _ = swarm(self.0, self.1).args(["watcher", "stop"]).output();
    }
}

fn status(project: &Project, server: &TmuxServer) -> serde_json::Value {
    let out = swarm(project, server)
        .args(["watcher", "status", "--json"])
        .output()
        .expect("run");
    assert!(out.status.success(), "{out:?}");
    stdout_json(&out)
}

fn ok(cmd: &mut assert_cmd::Command) -> String {
    let out = cmd.output().expect("run");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn the_watcher_is_seen_started_refused_twice_and_stopped() {
    let server = TmuxServer::start();
    let project = Project::new();
    agents(&server, &project, 1);
    let _stop = Stopper(&project, &server);

    let s = status(&project, &server);
    assert_eq!(s["running"], false, "{s}");
    assert!(s["pid"].is_null(), "{s}");

    let said = ok(swarm(&project, &server).args(["watcher", "start"]));
    assert!(said.contains("Started the watcher"), "{said}");
    let s = status(&project, &server);
    assert_eq!(s["running"], true, "{s}");
    let pid = s["pid"].as_u64().expect("pid");
    assert!(s["host"].is_string() && s["since"].is_string(), "{s}");
    assert!(
        chrono::DateTime::parse_from_rfc3339(s["since"].as_str().expect("since")).is_ok(),
        "{s}"
    );
    assert_eq!(s["fingerprint"].as_str().map(str::len), Some(16), "{s}");
    assert_eq!(s["channels"], serde_json::json!(["tmux"]), "{s}");
    assert!(s["last_error"].is_null(), "{s}");

    // A second one on this host, in the foreground: refused, naming the
    // one that runs and how to take over.
    let out = swarm(&project, &server)
        .args(["watcher", "run"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(&format!("process {pid}")), "{err}");
    assert!(err.contains("swarm watcher stop"), "{err}");
    // `swarm watch` is the same command.
    let out = swarm(&project, &server).arg("watch").output().expect("run");
    assert_eq!(out.status.code(), Some(1));

    // Started again while it runs: it says so and starts nothing.
    let said = ok(swarm(&project, &server).args(["watcher", "start"]));
    assert!(said.contains("already runs"), "{said}");
    assert_eq!(status(&project, &server)["pid"].as_u64(), Some(pid));

    let said = ok(swarm(&project, &server).args(["watcher", "stop"]));
    assert!(
        said.contains(&format!("Stopped the watcher (process {pid})")),
        "{said}"
    );
    assert_eq!(status(&project, &server)["running"], false);
    let said = ok(swarm(&project, &server).args(["watcher", "stop"]));
    assert!(said.contains("No watcher runs"), "{said}");
}

#[test]
fn a_webhook_exported_after_the_start_reaches_the_receiver_after_a_restart() {
    let server = TmuxServer::start();
    let project = Project::new();
    let panes = agents(&server, &project, 1);
    let _stop = Stopper(&project, &server);
    ok(swarm(&project, &server).args(["watcher", "start"]));
    assert_eq!(
        status(&project, &server)["channels"],
        serde_json::json!(["tmux"])
    );

    let (port, received) = http_server(&[200]);
    let url = format!("http://127.0.0.1:{port}/hook");
    let said = ok(swarm(&project, &server)
        .args(["watcher", "restart"])
        .env("SWARM_NOTIFY_WEBHOOK", &url));
    assert!(said.contains("Stopped the watcher"), "{said}");
    assert!(said.contains("Started the watcher"), "{said}");
    let s = status(&project, &server);
    assert_eq!(s["channels"], serde_json::json!(["tmux", "webhook"]), "{s}");
    assert!(!s.to_string().contains(&port.to_string()), "{s}");

    server.type_line(&panes[0], "please DEMOASK");
    let got = received
        .recv_timeout(PATIENCE)
        .expect("the webhook was called");
    assert_eq!(got.json()["event"], "needs_input");
}

#[test]
fn a_changed_project_file_takes_effect_without_a_restart() {
    let server = TmuxServer::start();
    let project = Project::new();
    let panes = agents(&server, &project, 1);
    let _stop = Stopper(&project, &server);
    project.write(".claudeswarm.toml", "[notify]\nevents = [\"finished\"]\n");
    let (port, received) = http_server(&[200]);
    let url = format!("http://127.0.0.1:{port}/hook");
    ok(swarm(&project, &server)
        .args(["watcher", "start"])
        .env("SWARM_NOTIFY_WEBHOOK", &url));
    let before = status(&project, &server)["fingerprint"].clone();

    // A dialog while only `finished` is notified: nothing is posted.
    server.type_line(&panes[0], "please DEMOASK");
    server.wait_for_screen(&panes[0], "Esc to cancel");
    wait_for("the dialog in the feed", || {
        std::fs::read_to_string(project.file(".swarm/feed.jsonl"))
            .unwrap_or_default()
            .contains("needs_input")
            .then_some(())
    });
    assert!(
        received.try_recv().is_err(),
        "needs_input was not to be notified"
    );
    server.tmux(&["send-keys", "-t", &panes[0], "1"]);
    server.wait_for_screen(&panes[0], "(answered yes)");

    // The file changes: the running watcher reads it again by itself.
    project.write(
        ".claudeswarm.toml",
        "[notify]\nevents = [\"finished\", \"needs_input\"]\n",
    );
    wait_for("the watcher to read its settings again", || {
        (status(&project, &server)["fingerprint"] != before).then_some(())
    });
    server.type_line(&panes[0], "again DEMOASK");
    let got = received
        .recv_timeout(PATIENCE)
        .expect("the webhook was called");
    assert_eq!(got.json()["event"], "needs_input");
    assert!(
        project
            .read(".swarm/watcher.log")
            .contains("read the settings again"),
        "{}",
        project.read(".swarm/watcher.log")
    );
}

#[test]
fn a_message_to_the_person_is_notified_by_the_watcher_with_its_settings() {
    let server = TmuxServer::start();
    let project = Project::new();
    agents(&server, &project, 1);
    let _stop = Stopper(&project, &server);
    let (port, received) = http_server(&[200]);
    let url = format!("http://127.0.0.1:{port}/hook");
    ok(swarm(&project, &server)
        .args(["watcher", "start"])
        .env("SWARM_NOTIFY_WEBHOOK", &url));
    // The sending command has no webhook of its own: the watcher's is the
    // one that notifies.
    ok(swarm(&project, &server).args([
        "msg",
        "operator",
        "QUESTION",
        "may I refactor src/auth.py?",
        "--from",
        "agent-0",
    ]));
    let got = received
        .recv_timeout(PATIENCE)
        .expect("the webhook was called");
    let body = got.json();
    assert_eq!(body["event"], "message", "{body}");
    assert_eq!(body["agent"], "agent-0", "{body}");
}

#[test]
fn a_message_to_the_person_without_a_watcher_says_nothing_is_notified() {
    let server = TmuxServer::start();
    let project = Project::new();
    agents(&server, &project, 1);
    let out = swarm(&project, &server)
        .args(["msg", "operator", "INFO", "done", "--from", "agent-0"])
        .env("SWARM_NOTIFY_WEBHOOK", "http://127.0.0.1:9/hook")
        .output()
        .expect("run");
    assert!(out.status.success(), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("nothing is notified until one runs") && err.contains("swarm watcher start"),
        "{err}"
    );
}

#[test]
fn a_notice_held_back_by_the_throttle_is_sent_when_the_window_ends() {
    let server = TmuxServer::start();
    let project = Project::new();
    let panes = agents(&server, &project, 1);
    let _stop = Stopper(&project, &server);
    project.write(
        ".claudeswarm.toml",
        "[notify]\nthrottle_seconds = 10\nevents = [\"needs_input\"]\n",
    );
    let (port, received) = http_server(&[200, 200]);
    let url = format!("http://127.0.0.1:{port}/hook");
    ok(swarm(&project, &server)
        .args(["watcher", "start"])
        .env("SWARM_NOTIFY_WEBHOOK", &url));

    server.type_line(&panes[0], "please DEMOASK");
    let first = received.recv_timeout(PATIENCE).expect("the first notice");
    let first_at = Instant::now();
    assert_eq!(first.json()["episode"], 1);
    // Answered and asked again within the window: the second episode is
    // raised at once, its notice held back until the window ends.
    server.tmux(&["send-keys", "-t", &panes[0], "1"]);
    server.wait_for_screen(&panes[0], "(answered yes)");
    server.type_line(&panes[0], "again DEMOASK");
    let second = received
        .recv_timeout(PATIENCE)
        .expect("the held-back notice");
    assert_eq!(second.json()["event"], "needs_input");
    assert_eq!(second.json()["episode"], 2);
    // Not before the window (10 s from the first episode's opening, which
    // came before its notice) less a second of rounding.
    assert!(
        first_at.elapsed() >= Duration::from_secs(8),
        "sent {:?} after the first",
        first_at.elapsed()
    );
}

#[test]
fn config_show_and_doctor_say_what_the_running_watcher_lacks() {
    let server = TmuxServer::start();
    let project = Project::new();
    agents(&server, &project, 1);
    let _stop = Stopper(&project, &server);
    ok(swarm(&project, &server).args(["watcher", "start"]));
    let url = "https://ntfy.sh/a-topic-nobody-guesses";

    // The same environment as the watcher's: nothing marked.
    let shown = ok(swarm(&project, &server).args(["config", "show"]));
    assert!(!shown.contains("not in the running watcher"), "{shown}");

    // This shell has a webhook the watcher was not started with.
    let shown = ok(swarm(&project, &server)
        .args(["config", "show"])
        .env("SWARM_NOTIFY_WEBHOOK", url));
    let line = shown
        .lines()
        .find(|l| l.trim_start().starts_with("webhook ="))
        .expect("the webhook line");
    assert!(line.contains("not in the running watcher"), "{shown}");
    assert!(shown.contains("swarm watcher restart"), "{shown}");
    let json = stdout_json(
        &swarm(&project, &server)
            .args(["config", "show", "--json"])
            .env("SWARM_NOTIFY_WEBHOOK", url)
            .output()
            .expect("run"),
    );
    assert_eq!(
        json["_watcher_lacks"],
        serde_json::json!(["notify.webhook"])
    );
    assert!(
        !json.to_string().contains("a-topic-nobody-guesses"),
        "{json}"
    );

    let doctor = stdout_json(
        &swarm(&project, &server)
            .args(["doctor", "--json"])
            .env("SWARM_NOTIFY_WEBHOOK", url)
            .output()
            .expect("run"),
    );
    let check = doctor["checks"]
        .as_array()
        .expect("checks")
        .iter()
        .find(|c| c["check"] == "watcher")
        .expect("the watcher check")
        .clone();
    assert_eq!(check["status"], "warn", "{check}");
    assert!(
        check["fix"]
            .as_str()
            .expect("fix")
            .contains("swarm watcher restart"),
        "{check}"
    );
}

/// The feed's lines as `swarm feed --json` gives them: (event, agent,
/// detail).
fn feed_events(project: &Project, server: &TmuxServer) -> Vec<(String, String, String)> {
    let out = swarm(project, server)
        .args(["feed", "--json"])
        .output()
        .expect("run");
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let value: serde_json::Value = serde_json::from_str(&text)
        .or_else(|_| {
            // One JSON object per line.
            let lines: Vec<serde_json::Value> = text
                .lines()
                .filter(|l| !l.trim().is_empty())
                .map(serde_json::from_str)
                .collect::<Result<_, _>>()?;
            Ok::<_, serde_json::Error>(serde_json::Value::Array(lines))
        })
        .expect("feed JSON");
    let entries = value
        .get("entries")
        .or_else(|| value.get("events"))
        .cloned()
        .unwrap_or(value);
    entries
        .as_array()
        .expect("entries")
        .iter()
        .map(|e| {
            let s = |k: &str| e[k].as_str().unwrap_or_default().to_owned();
            (s("event"), s("agent"), s("detail"))
        })
        .collect()
}

#[test]
fn the_feed_holds_joining_locks_and_leaving_whoever_did_them() {
    let server = TmuxServer::start();
    let project = Project::new();
    ok(swarm(&project, &server).args([
        "launch",
        "2",
        "--agent",
        "demo",
        "--session",
        "team",
        "--no-attach",
    ]));
    ok(swarm(&project, &server).args(["lock", "src/a.py", "--agent", "agent-0"]));
    ok(swarm(&project, &server).args(["lock", "src/b.py", "--agent", "agent-1"]));
    ok(swarm(&project, &server).args(["unlock", "src/a.py", "--agent", "agent-0"]));
    ok(swarm(&project, &server).args(["unlock", "src/b.py", "--agent", "agent-0", "--force"]));
    ok(swarm(&project, &server).args(["lock", "src/c.py", "--agent", "agent-1"]));
    ok(swarm(&project, &server).args(["down", "--session", "team"]));

    let events = feed_events(&project, &server);
    let has = |event: &str, agent: &str, detail: &str| {
        events
            .iter()
            .any(|(e, a, d)| e == event && a == agent && (detail.is_empty() || d == detail))
    };
    for agent in ["agent-0", "agent-1"] {
        assert!(has("joined", agent, ""), "{agent} joined: {events:?}");
        assert!(has("left", agent, ""), "{agent} left: {events:?}");
    }
    assert!(has("lock_taken", "agent-0", "src/a.py"), "{events:?}");
    assert!(has("lock_taken", "agent-1", "src/b.py"), "{events:?}");
    assert!(has("lock_released", "agent-0", "src/a.py"), "{events:?}");
    assert!(has("lock_forced", "agent-1", "src/b.py"), "{events:?}");
    // `down` releases what the agents still held.
    assert!(
        has("lock_released", "agent-1", "src/c.py") || has("lock_forced", "agent-1", "src/c.py"),
        "{events:?}"
    );
    // In the order they happened: each agent joined before its first lock,
    // and left after its last.
    let at = |event: &str, agent: &str| {
        events
            .iter()
            .position(|(e, a, _)| e == event && a == agent)
            .expect("present")
    };
    assert!(
        at("joined", "agent-0") < at("lock_taken", "agent-0"),
        "{events:?}"
    );
    assert!(
        at("lock_taken", "agent-1") < at("left", "agent-1"),
        "{events:?}"
    );
}

#[test]
fn an_agent_that_dies_raises_exited_once_however_its_pane_ends() {
    let server = TmuxServer::start();
    let project = Project::new();
    project.write(
        ".claudeswarm.toml",
        "[notify]\nevents = [\"exited\"]\nthrottle_seconds = 1\n",
    );
    // Its pane closes with it.
    let closing = server.demo_agent(&project.path(), &project.file("rec0.jsonl"));
    // Its pane stays, dead (remain-on-exit).
    let dead = server.demo_agent(&project.path(), &project.file("rec1.jsonl"));
    server.tmux(&["set-option", "-p", "-t", &dead, "remain-on-exit", "on"]);
    // Started from a shell, which is left when it ends.
    let shell = server.demo_agent_from_shell(&project.path(), &project.file("rec2.jsonl"));
    ok(swarm(&project, &server).arg("discover"));
    let ids: std::collections::BTreeSet<String> =
        project.agents().into_iter().map(|(id, _, _)| id).collect();
    assert_eq!(ids.len(), 3, "{ids:?}");

    let _stop = Stopper(&project, &server);
    let (port, received) = http_server(&[200, 200, 200, 200]);
    let url = format!("http://127.0.0.1:{port}/hook");
    ok(swarm(&project, &server)
        .args(["watcher", "start"])
        .env("SWARM_NOTIFY_WEBHOOK", &url));
    // A turn that ends (`finished`, not notified here) shows the watcher
    // has read every screen at least once.
    server.type_line(&closing, "work DEMOSLEEP1");
    wait_for("a finished turn in the feed", || {
        feed_events(&project, &server)
            .iter()
            .any(|(e, _, _)| e == "finished")
            .then_some(())
    });
    for pane in [&closing, &dead, &shell] {
        server.tmux(&["send-keys", "-t", pane, "C-c"]);
    }
    let mut notified = std::collections::BTreeSet::new();
    for _ in 0..3 {
        let got = received.recv_timeout(PATIENCE).expect("an exited notice");
        let body = got.json();
        assert_eq!(body["event"], "exited", "{body}");
        // With the last lines its screen showed.
        assert!(
            body["context"]
                .as_array()
                .is_some_and(|l| l.iter().any(|l| l.as_str().is_some_and(|l| !l.is_empty()))),
            "{body}"
        );
        assert!(
            notified.insert(body["agent"].as_str().unwrap_or_default().to_owned()),
            "a second notice for one agent: {body}"
        );
    }
    assert_eq!(notified, ids);
    // In the feed (written at the end of the round that notified), once
    // each.
    let events = wait_for("an exited line for each agent", || {
        let events = feed_events(&project, &server);
        ids.iter()
            .all(|id| events.iter().any(|(e, a, _)| e == "exited" && a == id))
            .then_some(events)
    });
    for id in &ids {
        let n = events
            .iter()
            .filter(|(e, a, _)| e == "exited" && a == id)
            .count();
        assert_eq!(n, 1, "{id}: {events:?}");
    }
}

#[test]
fn a_message_comes_before_the_dialog_it_opens_in_the_feed() {
    let server = TmuxServer::start();
    let project = Project::new();
    agents(&server, &project, 1);
    let _stop = Stopper(&project, &server);
    ok(swarm(&project, &server).args(["watcher", "start"]));
    ok(swarm(&project, &server).args([
        "msg",
        "agent-0",
        "INFO",
        "please DEMOASK",
        "--from",
        "operator",
    ]));
    let events = wait_for("the dialog in the feed", || {
        let events = feed_events(&project, &server);
        events
            .iter()
            .any(|(e, _, _)| e == "needs_input")
            .then_some(events)
    });
    let at = |event: &str| {
        events
            .iter()
            .position(|(e, _, _)| e == event)
            .unwrap_or_else(|| panic!("no {event}: {events:?}"))
    };
    assert!(at("message_sent") < at("needs_input"), "{events:?}");
}

/// While the watcher runs, `swarm agents` shows what its last round saw
/// (`state_from: watcher`, at most 1.5 s old) instead of capturing every
/// screen again: the same states a look of its own finds (`--now`), a
/// change within a round or so, and its own look again once the watcher
/// has stopped and its last round is old.
#[test]
fn agents_shows_the_watchers_last_round_while_it_is_fresh() {
    let server = TmuxServer::start();
    let project = Project::new();
    let panes = agents(&server, &project, 2);
    let _stop = Stopper(&project, &server);
    let listing = |extra: &[&str]| -> Vec<serde_json::Value> {
        let out = swarm(&project, &server)
            .args(["agents", "--json"])
            .args(extra)
            .output()
            .expect("run");
        assert!(out.status.success(), "{out:?}");
        stdout_json(&out).as_array().cloned().expect("an array")
    };
    let from = |rows: &[serde_json::Value], source: &str| {
        rows.len() == 2 && rows.iter().all(|a| a["state_from"] == source)
    };
    let looked = listing(&[]);
    assert!(from(&looked, "screen"), "{looked:?}");
    assert!(
        looked.iter().all(|a| a["state_age_ms"].is_null()),
        "{looked:?}"
    );

    ok(swarm(&project, &server).args(["watcher", "start"]));
    let seen = wait_for("the watcher's round in swarm agents", || {
        let rows = listing(&[]);
        from(&rows, "watcher").then_some(rows)
    });
    let now = listing(&["--now"]);
    assert!(from(&now, "screen"), "{now:?}");
    for (seen, now) in seen.iter().zip(&now) {
        assert_eq!(seen["id"], now["id"]);
        assert_eq!(seen["state"], "idle", "{seen}");
        assert_eq!(
            (&seen["state"], &seen["profile"], &seen["deliverable"]),
            (&now["state"], &now["profile"], &now["deliverable"])
        );
        let age = seen["state_age_ms"].as_u64().expect("state_age_ms");
        assert!(age <= 1500, "{seen}");
    }

    // A turn the first agent starts is in a later round.
    server.type_line(&panes[0], "work DEMOSLEEP8");
    wait_for("the busy agent in the watcher's round", || {
        let rows = listing(&[]);
        (from(&rows, "watcher") && rows[0]["state"] == "busy" && rows[1]["state"] == "idle")
            .then_some(())
    });

    ok(swarm(&project, &server).args(["watcher", "stop"]));
    let after = wait_for("swarm agents looking for itself again", || {
        let rows = listing(&[]);
        from(&rows, "screen").then_some(rows)
    });
    assert_eq!(after[0]["state"], "busy", "{after:?}");
}

#[test]
fn notifications_written_while_no_watcher_ran_are_sent_late_marked_with_their_age() {
    let server = TmuxServer::start();
    let project = Project::new();
    agents(&server, &project, 1);
    let _stop = Stopper(&project, &server);
    for i in 0..3 {
        ok(swarm(&project, &server).args([
            "msg",
            "operator",
            "INFO",
            &format!("finished part {i}"),
            "--from",
            "agent-0",
        ]));
    }
    // Written 75 s before the watcher starts, by their recorded time.
    let old = (chrono::Utc::now() - chrono::Duration::seconds(75))
        .format("%Y-%m-%dT%H:%M:%S%.6f+00:00")
        .to_string();
    let feed: Vec<String> = project
        .read(".swarm/feed.jsonl")
        .lines()
        .map(|line| {
            let mut entry: serde_json::Value = serde_json::from_str(line).expect("feed line");
            entry["time"] = serde_json::Value::String(old.clone());
            entry.to_string()
        })
        .collect();
    project.write(".swarm/feed.jsonl", &(feed.join("\n") + "\n"));

    let (port, received) = http_server(&[200, 200, 200]);
    ok(swarm(&project, &server).args(["watcher", "start"]).env(
        "SWARM_NOTIFY_WEBHOOK",
        format!("http://127.0.0.1:{port}/hook"),
    ));
    let mut texts: Vec<String> = (0..3)
        .map(|_| {
            let got = received
                .recv_timeout(PATIENCE)
                .expect("a late notification reached the webhook");
            got.json()["text"].as_str().expect("text").to_owned()
        })
        .collect();
    texts.sort();
    for (i, text) in texts.iter().enumerate() {
        assert!(text.contains(&format!("finished part {i}")), "{texts:?}");
        assert!(
            text.contains("[from 1m") && text.contains("ago]"),
            "{texts:?}"
        );
    }
}

#[test]
fn a_watcher_whose_lock_files_were_replaced_is_still_seen_refused_twice_and_stopped() {
    let server = TmuxServer::start();
    let project = Project::new();
    agents(&server, &project, 1);
    let _stop = Stopper(&project, &server);
    ok(swarm(&project, &server).args(["watcher", "start"]));
    let pid = status(&project, &server)["pid"].as_u64().expect("pid");

    // Someone removes the lock files and something creates them again:
    // no lock is held on the new files.
    for rel in [".swarm/watcher.lock", ".swarm/watcher-background.lock"] {
        std::fs::remove_file(project.file(rel)).expect("rm");
        project.write(rel, "");
    }
    let s = status(&project, &server);
    assert_eq!(s["running"], true, "{s}");
    assert_eq!(s["pid"].as_u64(), Some(pid), "{s}");
    let said = ok(swarm(&project, &server).args(["watcher", "start"]));
    assert!(said.contains("already runs"), "{said}");
    assert_eq!(status(&project, &server)["pid"].as_u64(), Some(pid));

    let said = ok(swarm(&project, &server).args(["watcher", "stop"]));
    assert!(
        said.contains(&format!("Stopped the watcher (process {pid})")),
        "{said}"
    );
    assert_eq!(status(&project, &server)["running"], false);
}
