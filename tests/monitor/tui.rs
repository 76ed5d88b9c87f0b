//! The live view in a real terminal: a pane of a private tmux server runs
//! `swarm monitor`, the test acts (sends messages, presses keys, signals
//! it) and reads the screen with `capture-pane`.

use crate::harness::{
    Project, TmuxServer, records, stdout_json, swarm, swarm_bin, swarm_process, typed_as, wait_for,
    wait_for_records,
};

/// Runs the monitor in a new pane; when it ends, the pane says how. It
/// starts no watcher of its own: a test that wants one runs `swarm watch`.
fn monitor_pane(server: &TmuxServer, project: &Project, args: &str) -> String {
    let command = format!(
        "env -u CLAUDESWARM_ROOT -u SWARM_TMUX_SOCKET SWARM_WATCHER_AUTOSTART=false '{}' monitor {args}; echo exited=$?; sleep 86400",
        swarm_bin()
    );
    let pane = server.pane(&project.path(), &command);
    server.wait_for_screen(&pane, " swarm monitor ");
    pane
}

/// A project with `n` demo agents, registered.
fn agents(server: &TmuxServer, project: &Project, n: usize) -> Vec<String> {
    let panes: Vec<String> = (0..n)
        .map(|i| server.demo_agent(&project.path(), &project.file(&format!("rec-{i}.jsonl"))))
        .collect();
    swarm(project, server).arg("discover").assert().success();
    panes
}

fn keys(server: &TmuxServer, pane: &str, keys: &[&str]) {
    let mut args = vec!["send-keys", "-t", pane];
    args.extend(keys);
    server.tmux(&args);
}

fn text(server: &TmuxServer, pane: &str, text: &str) {
    server.tmux(&["send-keys", "-t", pane, "-l", text]);
}

/// The monitor quit and the terminal is back to normal: the shell after
/// it printed its exit status on the main screen.
fn assert_exited_cleanly(server: &TmuxServer, pane: &str) {
    server.wait_for_screen(pane, "exited=0");
    assert_eq!(server.pane_option(pane, "alternate_on"), "0");
    assert!(!server.capture(pane).contains(" swarm monitor "));
}

#[test]
fn a_message_appears_on_screen_and_q_restores_the_terminal() {
    let server = TmuxServer::start();
    let project = Project::new();
    agents(&server, &project, 1);
    let pane = monitor_pane(&server, &project, "");
    server.wait_for_screen(&pane, "Agents (1)");
    swarm(&project, &server)
        .args([
            "msg",
            "agent-0",
            "BLOCKED",
            "--from",
            "operator",
            "need the auth module",
        ])
        .assert()
        .success();
    server.wait_for_screen(&pane, "need the auth module");
    let screen = server.capture(&pane);
    let line = screen
        .lines()
        .find(|l| l.contains("need the auth module"))
        .expect("the message line");
    assert!(line.contains("operator → agent-0 BLOCKED"), "{line}");
    keys(&server, &pane, &["q"]);
    assert_exited_cleanly(&server, &pane);
}

#[test]
fn escape_sequences_in_a_message_show_as_harmless_text() {
    let server = TmuxServer::start();
    let project = Project::new();
    let pane = monitor_pane(&server, &project, "");
    let title = server.pane_option(&pane, "pane_title");
    // Written straight into the log, as a careless or hostile writer could:
    // clear the screen, retitle the pane, colour, bell, and a clipboard
    // write.
    let content = "\u{1b}[2J\u{1b}[H\u{1b}]2;pwned\u{7}\u{1b}[31mharmless text\u{1b}[0m\u{7} \u{1b}]52;c;ZXZpbA==\u{7}end";
    let line = serde_json::json!({
        "sender": "agent-0", "timestamp": "2026-11-21T13:27:02.029457+00:00",
        "msg_type": "INFO", "content": content, "recipients": ["agent-1"], "msg_id": "x1"
    });
    std::fs::write(project.file("agent_messages.log"), format!("{line}\n")).expect("write");
    server.wait_for_screen(&pane, "harmless text end");
    let screen = server.capture(&pane);
    assert!(
        screen.contains(" swarm monitor "),
        "the screen was cleared:\n{screen}"
    );
    assert!(screen.contains("Agents (0)"), "{screen}");
    assert_eq!(server.pane_option(&pane, "pane_title"), title);
    assert!(!screen.contains("pwned") && !screen.contains("ZXZpbA"));
}

#[test]
fn sigterm_restores_the_terminal() {
    let server = TmuxServer::start();
    let project = Project::new();
    let pane = monitor_pane(&server, &project, "");
    let shell = server.pane_option(&pane, "pane_pid");
    // The shell's child, found with `ps` (the same on Linux, macOS and the
    // BSDs).
    let monitor = wait_for("the monitor's pid", || {
        let out = std::process::Command::new("ps")
            .args(["-A", "-o", "pid=,ppid="])
            .output()
            .ok()?;
        String::from_utf8_lossy(&out.stdout).lines().find_map(|l| {
            let mut f = l.split_whitespace();
            let (pid, ppid) = (f.next()?, f.next()?);
            (ppid == shell).then(|| pid.to_owned())
        })
    });
    let killed = std::process::Command::new("kill")
        .args(["-TERM", &monitor])
        .status()
        .expect("kill");
    assert!(killed.success());
    assert_exited_cleanly(&server, &pane);
}

#[test]
fn a_message_written_in_the_monitor_is_delivered() {
    let server = TmuxServer::start();
    let project = Project::new();
    agents(&server, &project, 1);
    let pane = monitor_pane(&server, &project, "--from lead");
    server.wait_for_screen(&pane, "Agents (1)");
    keys(&server, &pane, &["m"]);
    server.wait_for_screen(&pane, "message to");
    text(&server, &pane, "agent-0");
    keys(&server, &pane, &["Enter"]);
    server.wait_for_screen(&pane, "type (Tab");
    text(&server, &pane, "question");
    keys(&server, &pane, &["Enter"]);
    server.wait_for_screen(&pane, "QUESTION:");
    text(&server, &pane, "is src/auth.py free?");
    keys(&server, &pane, &["Enter"]);
    let got = wait_for_records(&project.file("rec-0.jsonl"), 1);
    let delivered = got[0]["text"].as_str().expect("text");
    assert!(delivered.starts_with("[lead]["), "{delivered}");
    assert!(
        typed_as(delivered, "QUESTION", "is src/auth.py free?"),
        "{delivered}"
    );
    server.wait_for_screen(&pane, "sent QUESTION to agent-0: delivered");
    server.wait_for_screen(&pane, "lead → agent-0 QUESTION is src/auth.py free?");
}

#[test]
fn the_monitor_sends_due_ack_retries() {
    let server = TmuxServer::start();
    let project = Project::new();
    project.write(
        ".claudeswarm.toml",
        "[acks]\ntimeout_seconds = 1\nretry_delays = [30]\nmax_retries = 3\n",
    );
    agents(&server, &project, 1);
    let pane = monitor_pane(&server, &project, "");
    server.wait_for_screen(&pane, "Agents (1)");
    swarm(&project, &server)
        .args([
            "msg", "agent-0", "QUESTION", "--from", "operator", "--ack", "ready?",
        ])
        .assert()
        .success();
    // No other swarm command runs from here on: the retry is the
    // monitor's doing.
    let got = wait_for_records(&project.file("rec-0.jsonl"), 2);
    let retry = got[1]["text"].as_str().expect("text");
    assert!(retry.contains("[RETRY 1/3]"), "{retry}");
    server.wait_for_screen(&pane, "[awaiting ACK, 1 retry]");
    server.wait_for_screen(&pane, "operator→agent-0");
}

#[test]
fn launch_adds_a_monitor_pane_that_is_no_agent() {
    let server = TmuxServer::start();
    let project = Project::new();
    let out = swarm(&project, &server)
        .args([
            "launch",
            "2",
            "--agent",
            "demo",
            "--session",
            "team",
            "--no-attach",
            "--monitor",
            "--json",
        ])
        .output()
        .expect("run");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report = stdout_json(&out);
    let pane = report["monitor"]
        .as_str()
        .expect("a monitor pane")
        .to_owned();
    server.wait_for_screen(&pane, "Agents (2)");
    assert_eq!(server.pane_option(&pane, "pane_title"), "monitor");
    assert_eq!(server.pane_option(&pane, "@swarm_agent"), "");
    for a in report["agents"].as_array().expect("agents") {
        server.wait_for_screen(a["pane"].as_str().expect("pane"), "waiting for messages");
    }
    swarm(&project, &server).arg("discover").assert().success();
    let ids: Vec<String> = project.agents().into_iter().map(|(id, _, _)| id).collect();
    assert_eq!(ids, ["agent-0", "agent-1"]);
}

#[test]
fn a_dialog_the_watcher_raised_is_answered_with_one_key() {
    let server = TmuxServer::start();
    let project = Project::new();
    let panes = agents(&server, &project, 2);
    let mut watch = swarm_process(&project, Some(&server))
        .args(["watch", "--interval", "3600"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("start swarm watch");
    let pane = monitor_pane(&server, &project, "");
    server.wait_for_screen(&pane, "Agents (2)");
    // Nobody waits: the answer keys say so and type nothing.
    keys(&server, &pane, &["y"]);
    server.wait_for_screen(&pane, "no agent waits for an answer");

    text(&server, &panes[1], "run it DEMOASK");
    keys(&server, &panes[1], &["Enter"]);
    server.wait_for_screen(&panes[1], "Do you want to proceed?");
    // agent-1 comes first, marked, with its question; the footer tells
    // the keys (once the notice above has gone).
    server.wait_for_screen(&pane, "1 needs you");
    server.wait_for_screen(&pane, "agent-1 asks: Do you want to proceed?");
    let screen = server.capture(&pane);
    let first = |id: &str| {
        screen
            .lines()
            .position(|l| l.contains(&format!("● {id}")))
            .unwrap_or_else(|| panic!("{id} not on screen:\n{screen}"))
    };
    assert!(first("agent-1") < first("agent-0"), "{screen}");
    assert!(
        screen.lines().any(|l| l.starts_with("▶● agent-1")),
        "{screen}"
    );
    keys(&server, &pane, &["n"]);
    let answers = || {
        records(&project.file("rec-1.jsonl"))
            .into_iter()
            .filter_map(|r| r.get("answer").and_then(|a| a.as_str()).map(str::to_owned))
            .collect::<Vec<_>>()
    };
    wait_for("agent-1's answer", || (!answers().is_empty()).then_some(()));
    assert_eq!(answers(), ["no"]);
    server.wait_for_screen(&pane, "answered agent-1's dialog");
    wait_for("nobody to need the person", || {
        (!server.capture(&pane).contains("needs you")).then_some(())
    });
    assert!(records(&project.file("rec-0.jsonl")).is_empty());
    keys(&server, &pane, &["q"]);
    assert_exited_cleanly(&server, &pane);
    let _ = watch.kill();
    let _ = watch.wait();
}
