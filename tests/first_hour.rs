//! What a new user meets in the first hour, continued: `down` and the
//! locks of the agents it stops, which session `down` stops, reading the
//! messages of agents that left, launching outside a project, one rule for
//! a broken config, the size of a message, hints for a wrong type or an
//! empty text, the operator's inbox, honest help lines, `init` without a
//! terminal, and text that starts with `-`.

use crate::harness::{Project, TmuxServer, stdout_json, swarm};

fn ok(cmd: &mut assert_cmd::Command) -> std::process::Output {
    let out = cmd.output().expect("run swarm");
    assert!(
        out.status.success(),
        "{:?} failed: {}{}",
        cmd,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// Launches `n` panes that run no agent (they are registered all the
/// same) in session `session`.
fn launch(project: &Project, server: &TmuxServer, n: &str, session: &str) {
    ok(swarm(project, server).args([
        "launch",
        n,
        "--cmd",
        "sleep 600",
        "--session",
        session,
        "--no-attach",
    ]));
}

/// The paths of the locks listed by `swarm locks --json`.
fn locked_paths(project: &Project, server: &TmuxServer) -> Vec<String> {
    let out = ok(swarm(project, server).args(["locks", "--json"]));
    stdout_json(&out)
        .as_array()
        .expect("locks")
        .iter()
        .map(|l| l["filepath"].as_str().expect("filepath").to_owned())
        .collect()
}

#[test]
fn down_releases_the_locks_of_the_agents_it_stops_and_records_each() {
    let server = TmuxServer::start();
    let project = Project::new();
    launch(&project, &server, "2", "demo");
    launch(&project, &server, "1", "other");
    ok(swarm(&project, &server).args(["lock", "src/a.rs", "--agent", "agent-0"]));
    ok(swarm(&project, &server).args(["lock", "src/b.rs", "--agent", "agent-1"]));
    ok(swarm(&project, &server).args(["lock", "src/c.rs", "--agent", "agent-2"]));
    let out = ok(swarm(&project, &server).args(["down", "--session", "demo"]));
    let stdout = String::from_utf8_lossy(&out.stdout).to_lowercase();
    assert!(
        stdout.contains("2 agents left the registry")
            && stdout.contains("released 2 locks of agent-0, agent-1"),
        "{stdout}"
    );
    // The other session's agent keeps its lock.
    assert_eq!(locked_paths(&project, &server), ["src/c.rs"]);
    let audit = project.read(".swarm/audit.log");
    for (path, holder) in [("src/a.rs", "agent-0"), ("src/b.rs", "agent-1")] {
        assert!(
            audit.lines().any(|l| {
                let e: serde_json::Value = serde_json::from_str(l).expect("audit line");
                e["event"] == "force-unlock" && e["path"] == path && e["holder"] == holder
            }),
            "{audit}"
        );
    }
}

#[test]
fn doctor_warns_about_locks_of_agents_that_are_gone() {
    let server = TmuxServer::start();
    let project = Project::new();
    launch(&project, &server, "1", "demo");
    ok(swarm(&project, &server).args(["lock", "src/a.rs", "--agent", "agent-0"]));
    let checks = |project: &Project| {
        let out = swarm(project, &server)
            .args(["doctor", "--json"])
            .output()
            .expect("run doctor");
        stdout_json(&out)["checks"]
            .as_array()
            .expect("checks")
            .iter()
            .filter(|c| c["status"] != "ok")
            .map(|c| format!("{} {} {}", c["check"], c["message"], c["details"]))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert!(
        !checks(&project).contains("agent-0"),
        "{}",
        checks(&project)
    );
    // The session ends without `down`: its agent leaves the registry, its
    // lock stays.
    server.tmux(&["kill-session", "-t", "demo"]);
    ok(swarm(&project, &server).arg("discover"));
    let found = checks(&project);
    assert!(
        found.contains("agent-0") && found.contains("not in the registry"),
        "{found}"
    );
}

fn fails_with(cmd: &mut assert_cmd::Command, code: i32) -> String {
    let out = cmd.output().expect("run swarm");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(code), "{cmd:?}: {stderr}");
    stderr
}

#[test]
fn down_without_a_session_stops_the_registered_agents_session() {
    let server = TmuxServer::start();
    let project = Project::new();
    launch(&project, &server, "2", "demo");
    let out = ok(swarm(&project, &server).arg("down"));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("Stopped tmux session demo"),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(project.agents().is_empty());
    // With agents in two sessions, it asks which.
    launch(&project, &server, "1", "first");
    launch(&project, &server, "1", "second");
    let stderr = fails_with(swarm(&project, &server).arg("down"), 2);
    assert!(
        stderr.contains("first") && stderr.contains("second") && stderr.contains("--session"),
        "{stderr}"
    );
    assert!(
        stderr
            .lines()
            .nth(1)
            .is_some_and(|l| l.starts_with("  hint: ")),
        "{stderr}"
    );
    assert_eq!(project.agents().len(), 2);
    ok(swarm(&project, &server).args(["down", "--session", "first"]));
    ok(swarm(&project, &server).arg("down"));
    assert!(project.agents().is_empty());
}

#[test]
fn the_messages_of_an_agent_that_left_can_still_be_read() {
    let server = TmuxServer::start();
    let project = Project::new();
    launch(&project, &server, "2", "demo");
    // The pane runs no agent: the message waits in the log (exit 7).
    fails_with(
        swarm(&project, &server).args(["msg", "agent-1", "INFO", "kept for later"]),
        7,
    );
    ok(swarm(&project, &server).args(["down", "--session", "demo"]));
    assert!(project.agents().is_empty());
    for args in [
        &["inbox", "--agent", "agent-1", "--all-history"][..],
        &["inbox", "--agent", "agent-1"],
    ] {
        let out = ok(swarm(&project, &server).args(args));
        assert!(
            String::from_utf8_lossy(&out.stdout).contains("kept for later"),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stdout)
        );
    }
    // An id that neither is registered nor has messages is no agent.
    let stderr = fails_with(
        swarm(&project, &server).args(["inbox", "--agent", "agent-7", "--all-history"]),
        4,
    );
    assert!(stderr.contains("no agent agent-7"), "{stderr}");
}

#[test]
fn launch_outside_a_project_says_where_it_keeps_its_state() {
    let server = TmuxServer::start();
    let project = Project::new();
    std::fs::remove_dir(project.file(".git")).expect("remove the marker");
    let out = ok(swarm(&project, &server).args([
        "launch",
        "1",
        "--cmd",
        "sleep 600",
        "--session",
        "demo",
        "--no-attach",
    ]));
    let stderr = String::from_utf8_lossy(&out.stderr);
    let dir = project.path().display().to_string();
    assert!(
        stderr.starts_with("swarm: warning: no project marker")
            && stderr.contains(&dir)
            && stderr.contains("--root")
            && stderr.contains("git init"),
        "{stderr}"
    );
    // It went on.
    assert_eq!(project.agents().len(), 1);
}

#[test]
fn a_config_problem_stops_only_the_commands_that_change_the_swarm() {
    let server = TmuxServer::start();
    let project = Project::new();
    launch(&project, &server, "1", "demo");
    fails_with(
        swarm(&project, &server).args(["msg", "agent-0", "INFO", "before the typo"]),
        7,
    );
    project.write(".claudeswarm.toml", "[locking]\nstale_timout = 100\n");
    let run = |args: &[&str]| {
        let out = swarm(&project, &server).args(args).output().expect("run");
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    for args in [
        &["config", "show"][..],
        &["agents"],
        &["locks"],
        &["inbox", "--agent", "agent-0"],
        &["coord", "show"],
    ] {
        let (code, _, stderr) = run(args);
        assert_eq!(code, Some(0), "{args:?}: {stderr}");
        assert!(
            stderr.starts_with("swarm: warning: invalid configuration")
                && stderr.contains("stale_timout"),
            "{args:?}: {stderr}"
        );
    }
    // `config show` shows the defaults in use.
    let (_, stdout, _) = run(&["config", "show"]);
    assert!(stdout.contains("stale_timeout = 300"), "{stdout}");
    for args in [
        &["lock", "src/a.rs", "--agent", "agent-0"][..],
        &["msg", "agent-0", "INFO", "hi"],
        &["discover"],
    ] {
        let (code, _, stderr) = run(args);
        assert_eq!(code, Some(1), "{args:?}: {stderr}");
        assert!(
            stderr.starts_with("swarm: error: invalid configuration"),
            "{args:?}: {stderr}"
        );
    }
    // doctor says which commands stop.
    let out = swarm(&project, &server)
        .args(["doctor", "--json"])
        .output()
        .expect("doctor");
    let report = stdout_json(&out);
    let config = report["checks"]
        .as_array()
        .expect("checks")
        .iter()
        .find(|c| c["check"] == "config")
        .expect("the config check")
        .clone();
    let message = config["message"].as_str().expect("message");
    assert!(
        !message.contains("every command") && message.contains("warn"),
        "{message}"
    );
    // The monitor starts (in a build that has it).
    #[cfg(feature = "monitor")]
    {
        use std::io::BufRead;
        let mut child = crate::harness::swarm_process(&project, Some(&server))
            .args(["monitor", "--plain"])
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("start the monitor");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(stdout)
                .lines()
                .map_while(Result::ok)
            {
                if tx.send(line).is_err() {
                    return;
                }
            }
        });
        let started = crate::harness::wait_for("the monitor's first line", || {
            if let Ok(line) = rx.try_recv() {
                return Some(Ok(line));
            }
            child.try_wait().expect("wait").map(Err)
        });
        let _ = child.kill();
        let _ = child.wait();
        assert!(
            started
                .as_ref()
                .is_ok_and(|l| l.contains("before the typo")),
            "{started:?}"
        );
    }
    // `down` stops the session.
    let (code, stdout, stderr) = run(&["down", "--session", "demo"]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stdout.contains("Stopped tmux session demo"), "{stdout}");
    assert!(project.agents().is_empty());
}

#[test]
fn a_message_over_the_limit_says_the_limit_and_what_to_do() {
    let project = Project::new();
    project.register(&["agent-1"]);
    project.write("big.txt", &"x".repeat(100 * 1024));
    project.write("medium.txt", &"x".repeat(20 * 1024));
    for file in ["big.txt", "medium.txt"] {
        let out = crate::harness::swarm_outside_tmux(&project)
            .args(["msg", "agent-1", "INFO", "--file", file])
            .output()
            .expect("run");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{file}: {stderr}");
        let hint = stderr
            .lines()
            .find(|l| l.starts_with("  hint: "))
            .unwrap_or_else(|| panic!("{file}: no hint: {stderr}"));
        assert!(
            hint.contains("10240 bytes")
                && hint.contains("messaging.max_inline_bytes")
                && hint.contains("send its path"),
            "{file}: {hint}"
        );
    }
}

#[test]
fn a_wrong_type_or_an_empty_text_gets_a_hint() {
    let project = Project::new();
    project.register(&["agent-3"]);
    let hint_of = |args: &[&str]| {
        let out = crate::harness::swarm_outside_tmux(&project)
            .args(args)
            .output()
            .expect("run");
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
        stderr
            .lines()
            .find_map(|l| l.strip_prefix("  hint: "))
            .unwrap_or_else(|| panic!("{args:?}: no hint: {stderr}"))
            .to_owned()
    };
    let hint = hint_of(&["msg", "agent-3", "INFOO", "hi"]);
    assert_eq!(hint, "did you mean `INFO`?");
    let hint = hint_of(&["broadcast", "questoin", "hi"]);
    assert_eq!(hint, "did you mean `QUESTION`?");
    let hint = hint_of(&["msg", "agent-3", "URGENT", "hi"]);
    assert!(
        hint.contains("valid types") && hint.contains("messaging.custom_types"),
        "{hint}"
    );
    for args in [
        &["msg", "agent-3", "INFO", ""][..],
        &["msg", "agent-3", "INFO", "  "],
        &["broadcast", "INFO", ""],
    ] {
        let hint = hint_of(args);
        assert!(
            hint.contains("`-`") && hint.contains("--file") && hint.contains("quotes"),
            "{args:?}: {hint}"
        );
    }
}

#[test]
fn outside_tmux_the_inbox_is_the_operators_and_gives_it_no_pane_advice() {
    let project = Project::new();
    project.register(&["agent-1"]);
    let run = |args: &[&str]| {
        crate::harness::swarm_outside_tmux(&project)
            .args(args)
            .output()
            .expect("run")
    };
    // The recipient has no pane: the question waits in its inbox (exit 7).
    let sent = run(&["msg", "agent-1", "QUESTION", "ready?", "--ack", "--json"]);
    assert_eq!(sent.status.code(), Some(7));
    let id = stdout_json(&sent)["msg_id"]
        .as_str()
        .expect("id")
        .to_owned();
    let acked = run(&["ack", &id[..8], "--agent", "agent-1"]);
    assert!(
        acked.status.success(),
        "{}",
        String::from_utf8_lossy(&acked.stderr)
    );
    let inbox = run(&["inbox"]);
    let stdout = String::from_utf8_lossy(&inbox.stdout);
    assert!(
        inbox.status.success(),
        "{}",
        String::from_utf8_lossy(&inbox.stderr)
    );
    assert!(
        stdout.contains("Messages for operator") && stdout.contains(&format!("ACK {id}")),
        "{stdout}"
    );
    assert!(
        !stdout.contains("not typed into your pane") && !stdout.contains("discover"),
        "{stdout}"
    );
    let json = stdout_json(&run(&["inbox", "--json"]));
    assert_eq!(json["agent"], "operator");
    assert!(json["messages"][0]["queued_reason"].is_null(), "{json}");
}

#[test]
fn init_without_a_terminal_says_once_what_it_did_and_skipped() {
    let server = TmuxServer::start();
    let project = Project::new();
    let out = ok(swarm(&project, &server).arg("init"));
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(text.matches("terminal").count(), 1, "{text}");
    let done = &text[text.find("=== Done ===").expect("a summary")..];
    let done = &done[..done.find("=== Next steps").expect("next steps")];
    assert!(done.contains("created"), "{done}");
    let skipped = done
        .lines()
        .find(|l| l.contains("skipped"))
        .unwrap_or_else(|| panic!("no skipped line in {done}"));
    for step in ["agent hooks", "git guard", "MCP server", ".gitignore"] {
        assert!(skipped.contains(step), "{step}: {skipped}");
    }
    // With --yes, a step that could not be done (this project's `.git` is
    // no repository, so there is no hook to guard) is no success.
    let out = ok(swarm(&project, &server).args(["init", "--yes"]));
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    for line in text.lines() {
        assert!(
            !(line.contains('✓') && line.contains("skipped")),
            "a skipped step with a check mark: {line}\n{text}"
        );
    }
    assert!(
        text.lines()
            .any(|l| l.contains("skipped") && l.contains("git guard")),
        "{text}"
    );
}

#[test]
fn text_that_starts_with_a_dash_and_holds_a_space_is_text() {
    let project = Project::new();
    project.register(&["agent-1"]);
    let run = |args: &[&str]| {
        let out = crate::harness::swarm_outside_tmux(&project)
            .args(args)
            .output()
            .expect("run");
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    // The recipient has no pane, so each message waits in its inbox (7).
    for args in [
        &["send-message", "agent-1", "INFO", "-n not an option"][..],
        &["msg", "agent-1", "INFO", "-m also text", "--ack"],
        &[
            "broadcast-message",
            "INFO",
            "-b to all",
            "--sender-id",
            "operator",
        ],
        &["broadcast", "INFO", "--c to all", "-v"],
    ] {
        let (code, _, stderr) = run(args);
        assert_eq!(code, Some(7), "{args:?}: {stderr}");
    }
    // Flags after the text keep working.
    let (code, stdout, stderr) = run(&["msg", "agent-1", "INFO", "-d with json", "--json"]);
    assert_eq!(code, Some(7), "{stderr}");
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&stdout).expect("json")["content"],
        "-d with json"
    );
    let (_, stdout, _) = run(&["inbox", "--agent", "agent-1", "--all-history", "--json"]);
    let inbox: serde_json::Value = serde_json::from_str(&stdout).expect("json");
    let contents: Vec<&str> = inbox["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .map(|m| m["content"].as_str().expect("content"))
        .collect();
    for text in [
        "-n not an option",
        "-m also text",
        "-b to all",
        "--c to all",
        "-d with json",
    ] {
        assert!(
            contents.iter().any(|c| c.ends_with(text)),
            "{text}: {contents:?}"
        );
    }
    // A lock's reason, positional (the Python name) or an option's value.
    for args in [
        &[
            "acquire-file-lock",
            "src/a.py",
            "-r why a",
            "--agent-id",
            "agent-1",
        ][..],
        &[
            "lock", "src/b.py", "--reason", "-x why b", "--agent", "agent-1",
        ],
        &["lock", "src/c.py", "-r", "-x why c", "--agent", "agent-1"],
    ] {
        let (code, _, stderr) = run(args);
        assert_eq!(code, Some(0), "{args:?}: {stderr}");
    }
    let (_, stdout, _) = run(&["locks", "--json"]);
    let reasons: Vec<String> = serde_json::from_str::<serde_json::Value>(&stdout)
        .expect("json")
        .as_array()
        .expect("locks")
        .iter()
        .map(|l| l["reason"].as_str().expect("reason").to_owned())
        .collect();
    assert_eq!(reasons, ["-r why a", "-x why b", "-x why c"]);
    // An option that does not exist is still a usage error.
    let (code, _, stderr) = run(&["msg", "agent-1", "INFO", "hi", "--bogus"]);
    assert_eq!(code, Some(2), "{stderr}");
}
