//! The rough edges a new user meets first, each through the real binary:
//! hints that name a command that works, an inbox that only `--new`
//! marks read, `answer` without a dialog or with a word that is no
//! option, the hints of `broadcast --topic`, `down --session` and a
//! mistyped agent id, the agent limit of `launch`, `agents` on the wrong
//! tmux server, `ack` from the terminal, times for people and search
//! relevance.

use crate::harness::agents;
use crate::harness::{Project, TmuxServer, records, stdout_json, swarm, wait_for};

/// Runs `cmd`; returns its exit code, stdout and stderr.
fn run(cmd: &mut assert_cmd::Command) -> (Option<i32>, String, String) {
    let out = cmd.output().expect("run swarm");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Runs `cmd`, failing the test unless it succeeds; returns stdout.
fn ok(cmd: &mut assert_cmd::Command) -> String {
    let (code, stdout, stderr) = run(cmd);
    assert_eq!(code, Some(0), "{cmd:?}: {stdout}{stderr}");
    stdout
}

/// `swarm launch N --agent demo` in session `team`; the agent ids and
/// panes, once each agent shows its banner.
fn launch(project: &Project, server: &TmuxServer, n: usize) -> Vec<(String, String)> {
    let out = ok(swarm(project, server).args([
        "launch",
        &n.to_string(),
        "--agent",
        "demo",
        "--session",
        "team",
        "--no-attach",
        "--json",
    ]));
    let json: serde_json::Value = serde_json::from_str(&out).expect("json");
    let agents: Vec<(String, String)> = json["agents"]
        .as_array()
        .expect("agents")
        .iter()
        .map(|a| {
            (
                a["id"].as_str().expect("id").to_owned(),
                a["pane"].as_str().expect("pane").to_owned(),
            )
        })
        .collect();
    for (id, pane) in &agents {
        server.wait_for_screen(pane, &format!("{id}: swarm demo agent"));
    }
    agents
}

/// True when `text` holds an ISO 8601 time (`2026-11-28T12:42:48`).
fn has_iso_time(text: &str) -> bool {
    let b = text.as_bytes();
    (0..b.len().saturating_sub(18)).any(|i| {
        let d = |k: usize| b[i + k].is_ascii_digit();
        (0..4).all(d)
            && b[i + 4] == b'-'
            && d(5)
            && d(6)
            && b[i + 7] == b'-'
            && d(8)
            && d(9)
            && b[i + 10] == b'T'
            && d(11)
            && d(12)
            && b[i + 13] == b':'
    })
}

/// True when `text` holds a clock time `HH:MM:SS`.
fn has_clock_time(text: &str) -> bool {
    let b = text.as_bytes();
    (0..b.len().saturating_sub(7)).any(|i| {
        let d = |k: usize| b[i + k].is_ascii_digit();
        d(0) && d(1) && b[i + 2] == b':' && d(3) && d(4) && b[i + 5] == b':' && d(6) && d(7)
    })
}

#[test]
fn a_mistyped_flag_points_to_a_help_command_that_works() {
    let project = Project::new();
    for (args, help) in [
        (
            &["msg", "--ack-tmeout", "5", "agent-1", "INFO", "x"][..],
            "msg",
        ),
        (&["msg", "--bogus"], "msg"),
        (&["config", "init", "--nope"], "config init"),
    ] {
        let out = crate::harness::swarm_outside_tmux(&project)
            .args(args)
            .output()
            .expect("run");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        let hint = format!("`swarm help {help}`");
        assert!(stderr.contains(&hint), "{args:?}: {stderr}");
        assert!(!stderr.contains("--ack-timeout --help"), "{stderr}");
        // The command the hint names works as given.
        let words: Vec<&str> = help.split(' ').collect();
        crate::harness::swarm_outside_tmux(&project)
            .arg("help")
            .args(&words)
            .assert()
            .success();
    }
}

#[test]
fn a_plain_inbox_marks_nothing_read() {
    let server = TmuxServer::start();
    let project = Project::new();
    project.register(&["agent-1"]);
    for body in ["first", "second"] {
        // No pane: each waits in the inbox (exit 7).
        swarm(&project, &server)
            .args(["msg", "agent-1", "INFO", body])
            .output()
            .expect("run");
    }
    for limit in [None, Some("1"), Some("10")] {
        let mut cmd = swarm(&project, &server);
        cmd.args(["inbox", "--agent", "agent-1"]);
        if let Some(n) = limit {
            cmd.args(["--limit", n]);
        }
        let shown = ok(&mut cmd);
        assert!(shown.contains("second"), "{shown}");
    }
    let new = ok(swarm(&project, &server).args(["inbox", "--agent", "agent-1", "--new", "--json"]));
    let new: serde_json::Value = serde_json::from_str(&new).expect("json");
    assert_eq!(new["messages"].as_array().map(Vec::len), Some(2), "{new}");
    // `--new` marked them.
    let again = ok(swarm(&project, &server).args(["inbox", "--agent", "agent-1", "--new"]));
    assert!(again.contains("No new messages"), "{again}");
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

    let (code, _, stderr) = run(swarm(&project, &server).args(["answer", "agent-0", "yes"]));
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains("shows no dialog"), "{stderr}");
    assert!(
        stderr.contains("hint:") && stderr.contains("swarm peek agent-0"),
        "{stderr}"
    );

    server.type_line(&panes[0], "please DEMOASK");
    server.wait_for_screen(&panes[0], "2. No");
    let (code, _, stderr) = run(swarm(&project, &server).args(["answer", "agent-0", "maybe"]));
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stderr.contains("maybe") && stderr.contains("1. Yes") && stderr.contains("2. No"),
        "{stderr}"
    );
    assert!(answers().is_empty());
    assert!(server.capture(&panes[0]).contains("Esc to cancel"));
    // The dialog is still there to be answered.
    ok(swarm(&project, &server).args(["answer", "agent-0", "2"]));
    wait_for("the answer", || (!answers().is_empty()).then_some(()));
    assert_eq!(answers(), ["no"]);
}

#[test]
fn a_topic_nobody_follows_points_to_subscribe() {
    let server = TmuxServer::start();
    let project = Project::new();
    project.register(&["agent-0", "agent-1"]);
    let (code, _, stderr) = run(swarm(&project, &server).args([
        "broadcast",
        "--topic",
        "deploys",
        "INFO",
        "v2 is out",
    ]));
    assert_eq!(code, Some(4), "{stderr}");
    assert!(
        stderr.contains("hint:") && stderr.contains("swarm subscribe deploys"),
        "{stderr}"
    );
}

#[test]
fn down_with_an_unknown_session_points_to_sessions() {
    let server = TmuxServer::start();
    let project = Project::new();
    let (code, _, stderr) = run(swarm(&project, &server).args(["down", "--session", "nosuch"]));
    assert_eq!(code, Some(4), "{stderr}");
    assert!(
        stderr.contains("hint:") && stderr.contains("`swarm sessions`"),
        "{stderr}"
    );
}

#[test]
fn an_agent_id_with_an_underscore_suggests_the_dash() {
    let server = TmuxServer::start();
    let project = Project::new();
    project.register(&["agent-0", "agent-1"]);
    for args in [
        &["inbox", "--agent", "agent_1"][..],
        &["msg", "agent_1", "INFO", "hi"],
        &["lock", "src/a.py", "--agent", "Agent_1"],
    ] {
        let (code, _, stderr) = run(swarm(&project, &server).args(args));
        assert_eq!(code, Some(4), "{args:?}: {stderr}");
        assert!(
            stderr.contains("did you mean `agent-1`?"),
            "{args:?}: {stderr}"
        );
    }
}

#[test]
fn launching_too_many_agents_says_the_limit() {
    let server = TmuxServer::start();
    let project = Project::new();
    let (code, _, stderr) = run(swarm(&project, &server).args(["launch", "20", "--agent", "demo"]));
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("at most 16 agents"), "{stderr}");
    assert!(stderr.contains("`swarm help launch`"), "{stderr}");
}

#[test]
fn agents_on_a_server_without_them_names_the_socket_asked() {
    let server = TmuxServer::start();
    let project = Project::new();
    project.register(&["agent-0", "agent-1"]);
    let socket = server
        .tmux(&["display-message", "-p", "#{socket_path}"])
        .trim()
        .to_owned();
    let (code, stdout, stderr) = run(swarm(&project, &server).arg("agents"));
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        stdout.contains("agent-0") && stdout.contains("gone"),
        "{stdout}"
    );
    assert!(
        stderr.contains(&socket) && stderr.contains("none of the 2 agents"),
        "{stderr}"
    );
    // Agents that are there: no such word.
    let project = Project::new();
    launch(&project, &server, 1);
    let (_, _, stderr) = run(swarm(&project, &server).arg("agents"));
    assert!(!stderr.contains(&socket), "{stderr}");
}

#[test]
fn ack_from_the_terminal_acts_as_the_only_recipient() {
    let server = TmuxServer::start();
    let project = Project::new();
    launch(&project, &server, 2);
    let out =
        ok(swarm(&project, &server).args(["msg", "agent-1", "QUESTION", "ok?", "--ack", "--json"]));
    let id = serde_json::from_str::<serde_json::Value>(&out).expect("json")["msg_id"]
        .as_str()
        .expect("id")
        .to_owned();
    let stdout = ok(swarm(&project, &server).args(["ack", &id[..8]]));
    assert!(stdout.contains("ACK sent"), "{stdout}");
    // The sender is the person, who has no pane: the ACK waits in their
    // inbox, and the command says so.
    assert!(!stdout.contains("delivered to their pane"), "{stdout}");
    assert!(stdout.contains("kept in their inbox"), "{stdout}");
    let acks = ok(swarm(&project, &server).args(["acks", "--json"]));
    assert!(!acks.contains(&id), "{acks}");
    // The sender got the ACK.
    let inbox = ok(swarm(&project, &server).args(["inbox", "--agent", "operator", "--json"]));
    assert!(inbox.contains("\"ACK\"") && inbox.contains(&id), "{inbox}");
}

#[test]
fn times_for_people_are_local_and_short() {
    let server = TmuxServer::start();
    let project = Project::new();
    launch(&project, &server, 1);
    ok(swarm(&project, &server).args(["msg", "agent-0", "INFO", "hello there"]));
    ok(swarm(&project, &server).args(["msg", "operator", "INFO", "a note", "--from", "agent-0"]));
    for args in [
        &["inbox", "--agent", "agent-0"][..],
        &["inbox", "--agent", "operator"],
        &["search", "hello"],
        &["sessions"],
    ] {
        let stdout = ok(swarm(&project, &server).args(args));
        assert!(!has_iso_time(&stdout), "{args:?}: {stdout}");
        assert!(
            has_clock_time(&stdout) || stdout.contains(" ago"),
            "{args:?}: {stdout}"
        );
    }
    let id = stdout_json(
        &swarm(&project, &server)
            .args(["inbox", "--agent", "agent-0", "--json"])
            .output()
            .expect("run"),
    )["messages"][0]["msg_id"]
        .as_str()
        .expect("id")
        .to_owned();
    let thread = ok(swarm(&project, &server).args(["thread", &id[..8]]));
    assert!(
        !has_iso_time(&thread) && has_clock_time(&thread),
        "{thread}"
    );
    // JSON keeps the full time.
    let json = ok(swarm(&project, &server).args(["inbox", "--agent", "agent-0", "--json"]));
    assert!(has_iso_time(&json), "{json}");
}

#[test]
fn search_shows_relevance_not_a_negative_score() {
    let server = TmuxServer::start();
    let project = Project::new();
    project.register(&["agent-1"]);
    for body in ["schema v2 merged", "the schema", "lunch?"] {
        swarm(&project, &server)
            .args(["msg", "agent-1", "INFO", body])
            .output()
            .expect("run");
    }
    let out = swarm(&project, &server)
        .args(["search", "schema", "--json"])
        .output()
        .expect("run");
    let json = stdout_json(&out);
    let found = json["messages"].as_array().expect("messages");
    assert_eq!(found.len(), 2, "{json}");
    for m in found {
        assert!(m.get("score").is_none(), "{m}");
        let r = m["relevance"].as_u64().expect("relevance");
        assert!((1..=100).contains(&r), "{m}");
    }
    assert_eq!(found[0]["relevance"], 100, "best first: {json}");
    let plain = swarm(&project, &server)
        .args(["search", "schema"])
        .output()
        .expect("run");
    let plain = String::from_utf8_lossy(&plain.stdout);
    assert!(
        plain.contains("relevance 100%") && !plain.contains("-0."),
        "{plain}"
    );
}
