//! Messaging through real tmux and the demo agent's record: every message
//! arrives exactly once and byte for byte, or waits in the inbox with the
//! reason; nothing is ever typed into a shell.

use std::process::{Command, Stdio};

use crate::harness::{
    Project, TmuxServer, records, stdout_json, swarm, swarm_bin, wait_for_records,
};

/// Splits a delivered submission into sender, type and body, checking the
/// header's shape: `[sender][YYYY-mm-dd HH:MM:SS][TYPE][#id]: body`, the id
/// the first 8 characters of the message's.
fn parse_submission(text: &str) -> (String, String, String) {
    let rest = text.strip_prefix('[').expect("starts with [");
    let (sender, rest) = rest.split_once("][").expect("sender");
    let (when, rest) = rest.split_at(19);
    assert!(
        when.chars()
            .all(|c| c.is_ascii_digit() || " -:".contains(c)),
        "{when:?}"
    );
    let rest = rest.strip_prefix("][").expect("time");
    let (kind, body) = rest.split_once("]: ").expect("type");
    let (kind, id) = kind.split_once("][#").expect("the message id");
    assert_eq!(id.chars().count(), 8, "{id:?}");
    (sender.into(), kind.into(), body.into())
}

/// A project with `n` demo agents registered as agent-0.., each recording
/// into `rec-<i>.jsonl`; returns their panes.
fn agents(server: &TmuxServer, project: &Project, n: usize) -> Vec<String> {
    let panes: Vec<String> = (0..n)
        .map(|i| server.demo_agent(&project.path(), &project.file(&format!("rec-{i}.jsonl"))))
        .collect();
    swarm(project, server).arg("discover").assert().success();
    panes
}

fn config(project: &Project, toml: &str) {
    project.write(".claudeswarm.toml", toml);
}

#[test]
fn hostile_payloads_arrive_exactly_once_and_byte_for_byte() {
    let server = TmuxServer::start();
    let project = Project::new();
    agents(&server, &project, 1);
    let ten_lines: String = (0..10)
        .map(|i| format!("{}line {i}", "  ".repeat(i % 4)))
        .collect::<Vec<_>>()
        .join("\n");
    let payloads: Vec<String> = vec![
        "double \" and single ' quotes".into(),
        "$(touch pwned-subshell) and `touch pwned-backtick`".into(),
        "ends with a semicolon;".into(),
        "ends with an escaped semicolon \\;".into(),
        "-starts with a dash".into(),
        ten_lines,
        "漢字のテスト and emoji 😀🚀".into(),
        "tabs\tinside\tthe\ttext".into(),
        ";".into(),
    ];
    for (i, body) in payloads.iter().enumerate() {
        let out = swarm(&project, &server)
            .args(["msg", "agent-0", "info", "--from", "operator", "--"])
            .arg(body)
            .output()
            .expect("run");
        assert!(
            out.status.success(),
            "payload {i}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let got = wait_for_records(&project.file("rec-0.jsonl"), i + 1);
        let (sender, kind, text) = parse_submission(got[i]["text"].as_str().expect("text"));
        assert_eq!((sender.as_str(), kind.as_str()), ("operator", "INFO"));
        assert_eq!(&text, body, "payload {i} changed on the way");
        assert_eq!(
            got[i]["pastes"], 1,
            "payload {i} was not one bracketed paste"
        );
    }
    assert_eq!(records(&project.file("rec-0.jsonl")).len(), payloads.len());
    assert!(!project.file("pwned-subshell").exists() && !project.file("pwned-backtick").exists());
}

#[test]
fn escape_sequences_are_removed_before_delivery() {
    let server = TmuxServer::start();
    let project = Project::new();
    agents(&server, &project, 1);
    swarm(&project, &server)
        .args([
            "msg",
            "agent-0",
            "INFO",
            "--from",
            "operator",
            "red\x1b[31m text\x1b]0;title\x07 end\r\nnext",
        ])
        .assert()
        .success();
    let got = wait_for_records(&project.file("rec-0.jsonl"), 1);
    let (_, _, body) = parse_submission(got[0]["text"].as_str().expect("text"));
    assert_eq!(body, "red text end\nnext");
}

#[test]
fn concurrent_senders_never_merge_submissions() {
    let server = TmuxServer::start();
    let project = Project::new();
    config(&project, "[rate_limiting]\nmessages_per_minute = 100\n");
    agents(&server, &project, 1);
    let n = 24;
    let children: Vec<_> = (0..n)
        .map(|i| {
            Command::new(swarm_bin())
                .current_dir(project.path())
                .env_remove("TMUX")
                .env_remove("TMUX_PANE")
                .env("SWARM_TMUX_SOCKET", &server.socket)
                .args(["msg", "agent-0", "QUESTION", "--from", "operator"])
                .arg(format!("concurrent message {i}; line two\nof {i}"))
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .expect("spawn")
        })
        .collect();
    for child in children {
        let out = child.wait_with_output().expect("wait");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let got = wait_for_records(&project.file("rec-0.jsonl"), n);
    let mut bodies: Vec<String> = got
        .iter()
        .map(|r| {
            assert_eq!(r["pastes"], 1);
            parse_submission(r["text"].as_str().expect("text")).2
        })
        .collect();
    bodies.sort();
    let mut expected: Vec<String> = (0..n)
        .map(|i| format!("concurrent message {i}; line two\nof {i}"))
        .collect();
    expected.sort();
    assert_eq!(bodies, expected);
}

#[test]
fn a_pane_at_a_shell_prompt_runs_nothing_and_the_message_is_queued() {
    let server = TmuxServer::start();
    let project = Project::new();
    // An agent that quits back to its shell: the registry still lists it.
    let command = format!(
        "'{}' demo-agent; PS1='ready$ ' exec bash --norc --noprofile",
        swarm_bin()
    );
    let pane = server.pane(&project.path(), &command);
    server.wait_for_screen(&pane, "waiting for messages");
    swarm(&project, &server).arg("discover").assert().success();
    server.tmux(&["send-keys", "-t", &pane, "C-c"]);
    server.wait_for_screen(&pane, "ready$");

    let canary = project.file("canary");
    let out = swarm(&project, &server)
        .args([
            "msg", "agent-0", "INFO", "--from", "operator", "--json", "--",
        ])
        .arg(format!("harmless\ntouch {}\n", canary.display()))
        .output()
        .expect("run");
    assert_eq!(
        out.status.code(),
        Some(7),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report = stdout_json(&out);
    assert_eq!(report["outcomes"]["agent-0"]["status"], "queued");
    assert!(
        report["outcomes"]["agent-0"]["reason"]
            .as_str()
            .expect("reason")
            .contains("shell")
    );
    // Give a shell every chance to run something: type a marker and wait
    // until the shell has echoed and run it; the message would have come
    // before it.
    server.tmux(&["send-keys", "-t", &pane, "echo marker-$((6*7))", "Enter"]);
    server.wait_for_screen(&pane, "marker-42");
    assert!(!canary.exists(), "the message ran in the shell");
    assert!(!server.capture(&pane).contains("harmless"));
    // It waits in the inbox, with the reason.
    let out = swarm(&project, &server)
        .args(["inbox", "--agent", "agent-0", "--json"])
        .output()
        .expect("run");
    let inbox = stdout_json(&out);
    assert_eq!(inbox["messages"][0]["delivered_to_pane"], false);
    assert!(
        inbox["messages"][0]["queued_reason"]
            .as_str()
            .expect("reason")
            .contains("shell")
    );
}

/// Writes a registry holding one active agent in `pane`.
fn register(project: &Project, server: &TmuxServer, id: &str, pane: &str) {
    let pid = server.tmux(&["display-message", "-p", "-t", pane, "#{pane_pid}"]);
    project.write(
        "ACTIVE_AGENTS.json",
        &format!(
            r#"{{"session_name": "harness", "updated_at": "2026-11-21T00:00:00+00:00", "agents": [{{"id": "{id}", "pane_index": "harness:1.0", "pid": {}, "status": "active", "last_seen": "2026-11-21T00:00:00+00:00", "session_name": "harness", "tmux_pane_id": "{pane}"}}]}}"#,
            pid.trim()
        ),
    );
}

#[test]
fn queued_messages_are_redelivered_once_the_agent_is_back() {
    let server = TmuxServer::start();
    let project = Project::new();
    let record = project.file("rec.jsonl");
    let pane = server.shell(&project.path());
    register(&project, &server, "agent-0", &pane);
    let out = swarm(&project, &server)
        .args([
            "msg",
            "agent-0",
            "INFO",
            "--from",
            "operator",
            "sent while away",
        ])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(7));
    assert!(String::from_utf8_lossy(&out.stdout).contains("[QUEUED]"));
    // The agent starts in that pane (exec: same process, same pid).
    let agent = format!(
        "exec '{}' demo-agent --record '{}'",
        swarm_bin(),
        record.display()
    );
    server.tmux(&["send-keys", "-t", &pane, &agent, "Enter"]);
    server.wait_for_screen(&pane, "waiting for messages");
    let out = swarm(&project, &server)
        .args(["redeliver", "--all-queued"])
        .output()
        .expect("run");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("-> agent-0: delivered"));
    let got = wait_for_records(&record, 1);
    assert_eq!(
        parse_submission(got[0]["text"].as_str().expect("text")).2,
        "sent while away"
    );
    // Nothing is queued any more: a second run delivers nothing twice.
    let out = swarm(&project, &server)
        .args(["redeliver", "--all-queued"])
        .output()
        .expect("run");
    assert!(String::from_utf8_lossy(&out.stdout).contains("Nothing to redeliver"));
    swarm(&project, &server)
        .args(["msg", "agent-0", "INFO", "--from", "operator", "after"])
        .assert()
        .success();
    let got = wait_for_records(&record, 2);
    assert_eq!(got.len(), 2);
    assert_eq!(
        parse_submission(got[1]["text"].as_str().expect("text")).2,
        "after"
    );
}

#[test]
fn a_message_to_nobody_is_refused() {
    let server = TmuxServer::start();
    let project = Project::new();
    agents(&server, &project, 1);
    let out = swarm(&project, &server)
        .args(["msg", "agent-9", "INFO", "--from", "operator", "hi"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(4));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("no agent agent-9") && stderr.contains("agent-0"),
        "{stderr}"
    );
    for (args, code) in [
        (
            vec!["msg", "agent-0", "URGENT", "--from", "operator", "hi"],
            1,
        ),
        (
            vec!["msg", "agent-0", "INFO", "--from", "operator", "   "],
            1,
        ),
        (vec!["msg", "agent-0", "INFO", "--from", "bad id", "hi"], 1),
        (
            vec!["msg", "agent;0", "INFO", "--from", "operator", "hi"],
            1,
        ),
        (vec!["msg", "agent-0", "INFO", "--from", "nobody", "hi"], 4),
        (vec!["msg", "agent-0", "INFO", "--from", "operator"], 2),
    ] {
        let out = swarm(&project, &server).args(&args).output().expect("run");
        assert_eq!(
            out.status.code(),
            Some(code),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    assert!(records(&project.file("rec-0.jsonl")).is_empty());
}

#[test]
fn the_rate_limit_holds_across_processes_and_keeps_the_message() {
    let server = TmuxServer::start();
    let project = Project::new();
    config(
        &project,
        "[rate_limiting]\nmessages_per_minute = 2\noperator_per_minute = 3\n",
    );
    agents(&server, &project, 1);
    project.register(&["v"]);
    for i in 0..2 {
        swarm(&project, &server)
            .args(["msg", "agent-0", "INFO", "--from", "v"])
            .arg(format!("m{i}"))
            .assert()
            .success();
    }
    let out = swarm(&project, &server)
        .args(["msg", "agent-0", "INFO", "--from", "v", "m2"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(6));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("rate limited") && stderr.contains("next send is allowed in"),
        "{stderr}"
    );
    // Another sender is not limited; the limited message waits in the inbox.
    project.register(&["u"]);
    swarm(&project, &server)
        .args(["msg", "agent-0", "INFO", "--from", "u", "other"])
        .assert()
        .success();
    let out = swarm(&project, &server)
        .args(["inbox", "--agent", "agent-0", "--json"])
        .output()
        .expect("run");
    let inbox = stdout_json(&out);
    let limited: Vec<_> = inbox["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .filter(|m| m["content"] == "m2")
        .collect();
    assert_eq!(limited.len(), 1);
    assert!(
        limited[0]["queued_reason"]
            .as_str()
            .expect("reason")
            .contains("rate limited")
    );
    assert_eq!(wait_for_records(&project.file("rec-0.jsonl"), 3).len(), 3);

    // The person has a limit of their own (operator_per_minute), not an
    // agent's: three go through, the fourth waits.
    for i in 0..3 {
        swarm(&project, &server)
            .args(["msg", "agent-0", "INFO", "--from", "operator"])
            .arg(format!("o{i}"))
            .assert()
            .success();
    }
    let out = swarm(&project, &server)
        .args(["msg", "agent-0", "INFO", "--from", "operator", "o3"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(6));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("operator may send 3 messages per 60s")
            && stderr.contains("operator_per_minute"),
        "{stderr}"
    );
}

#[test]
fn broadcast_reaches_every_other_agent_once_and_counts_once() {
    let server = TmuxServer::start();
    let project = Project::new();
    config(&project, "[rate_limiting]\nmessages_per_minute = 1\n");
    agents(&server, &project, 4);
    let out = swarm(&project, &server)
        .env("TMUX_PANE", server.pane_ids()[1].clone())
        .args(["broadcast", "BLOCKED", "need src/auth.py", "--json"])
        .output()
        .expect("run");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report = stdout_json(&out);
    assert_eq!(report["sender"], "agent-0");
    assert_eq!(report["delivered"], 3);
    for i in 1..4 {
        let got = wait_for_records(&project.file(&format!("rec-{i}.jsonl")), 1);
        assert_eq!(
            parse_submission(got[0]["text"].as_str().expect("text")).2,
            "need src/auth.py"
        );
    }
    assert!(
        records(&project.file("rec-0.jsonl")).is_empty(),
        "the sender got its own broadcast"
    );
}

#[test]
fn speaking_for_another_agent_needs_as_other() {
    let server = TmuxServer::start();
    let project = Project::new();
    let panes = agents(&server, &project, 2);
    let out = swarm(&project, &server)
        .env("TMUX_PANE", &panes[0])
        .args(["msg", "agent-1", "INFO", "--from", "agent-1", "spoof"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--as-other"));
    swarm(&project, &server)
        .env("TMUX_PANE", &panes[0])
        .args([
            "msg",
            "agent-1",
            "INFO",
            "--from",
            "agent-1",
            "--as-other",
            "on purpose",
        ])
        .assert()
        .success();
    let log = project.read("agent_messages.log");
    assert!(
        log.contains("sent by agent-0 as agent-1 (--as-other)"),
        "{log}"
    );
    // Inside its own pane the sender needs no --from.
    swarm(&project, &server)
        .env("TMUX_PANE", &panes[0])
        .args(["msg", "agent-1", "INFO", "mine"])
        .assert()
        .success();
    let got = wait_for_records(&project.file("rec-1.jsonl"), 2);
    assert_eq!(
        parse_submission(got[1]["text"].as_str().expect("text")).0,
        "agent-0"
    );
}

#[test]
fn long_messages_go_to_a_file_with_a_pointer() {
    let server = TmuxServer::start();
    let project = Project::new();
    agents(&server, &project, 1);
    let body = "word ".repeat(1000).trim_end().to_owned();
    let out = swarm(&project, &server)
        .args([
            "msg", "agent-0", "INFO", "--from", "operator", "--json", &body,
        ])
        .output()
        .expect("run");
    assert!(out.status.success());
    let report = stdout_json(&out);
    let file = report["body_file"].as_str().expect("body file");
    assert!(std::fs::read_to_string(file).expect("read").contains(&body));
    let got = wait_for_records(&project.file("rec-0.jsonl"), 1);
    let text = got[0]["text"].as_str().expect("text");
    assert!(
        !text.contains('\n') && text.contains(file) && text.len() < 300,
        "{text}"
    );
}

#[test]
fn inbox_new_marks_only_what_it_showed() {
    let server = TmuxServer::start();
    let project = Project::new();
    config(&project, "[rate_limiting]\nmessages_per_minute = 100\n");
    agents(&server, &project, 1);
    for i in 0..7 {
        swarm(&project, &server)
            .args(["msg", "agent-0", "INFO", "--from", "operator"])
            .arg(format!("n{i}"))
            .assert()
            .success();
    }
    let inbox = |extra: &[&str]| {
        let out = swarm(&project, &server)
            .args(["inbox", "--agent", "agent-0", "--new"])
            .args(extra)
            .output()
            .expect("run");
        assert!(out.status.success());
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let first = inbox(&["--limit", "5", "--quiet"]);
    assert_eq!(
        first
            .lines()
            .filter(|l| l.starts_with("[operator:INFO]"))
            .count(),
        5
    );
    assert!(first.contains("2 more new messages"), "{first}");
    let second = inbox(&["--quiet"]);
    assert_eq!(
        second.lines().collect::<Vec<_>>(),
        ["[operator:INFO] n5", "[operator:INFO] n6"]
    );
    assert_eq!(inbox(&[]), "No new messages for agent-0\n");
    // The hook form prints nothing at all when there is nothing new.
    let out = swarm(&project, &server)
        .args(["inbox", "--agent", "agent-0", "--hook"])
        .output()
        .expect("run");
    assert!(out.status.success() && out.stdout.is_empty());
}

#[test]
fn many_writers_produce_whole_log_lines() {
    let server = TmuxServer::start();
    let project = Project::new();
    config(&project, "[rate_limiting]\nmessages_per_minute = 1000\n");
    // One registered agent whose pane is a shell: every send is logged and
    // queued at once, so this measures the log, not the pause before Enter.
    let pane = server.shell(&project.path());
    register(&project, &server, "agent-0", &pane);
    let processes = 16;
    let writers: Vec<String> = (0..processes).map(|p| format!("writer-{p}")).collect();
    project.register(&writers.iter().map(String::as_str).collect::<Vec<_>>());
    let per_process = 50;
    let script = format!(
        "for i in $(seq 1 {per_process}); do '{}' msg agent-0 INFO --from writer-$1 \"message $i from $1\" >/dev/null; done",
        swarm_bin()
    );
    let children: Vec<_> = (0..processes)
        .map(|p| {
            Command::new("sh")
                .args(["-c", &script, "sh", &p.to_string()])
                .current_dir(project.path())
                .env_remove("TMUX")
                .env_remove("TMUX_PANE")
                .env("SWARM_TMUX_SOCKET", &server.socket)
                .spawn()
                .expect("spawn")
        })
        .collect();
    for mut c in children {
        c.wait().expect("wait");
    }
    let log = project.read("agent_messages.log");
    let mut ids = std::collections::HashSet::new();
    let mut outcomes = 0;
    for line in log.lines() {
        let v: serde_json::Value =
            serde_json::from_str(line).unwrap_or_else(|e| panic!("torn line {line:?}: {e}"));
        if v["event"] == "delivery" {
            outcomes += 1;
            assert_eq!(v["outcomes"]["agent-0"]["status"], "queued");
        } else {
            assert!(
                ids.insert(v["msg_id"].as_str().expect("id").to_owned()),
                "duplicate id"
            );
        }
    }
    assert_eq!(ids.len(), processes * per_process);
    assert_eq!(outcomes, processes * per_process);
}

#[test]
fn onboarding_sixteen_agents_with_default_settings_reaches_each_once() {
    let server = TmuxServer::start();
    let project = Project::new();
    let n = 16;
    for i in 0..n {
        server.demo_agent(&project.path(), &project.file(&format!("rec-{i}.jsonl")));
    }
    let out = swarm(&project, &server)
        .arg("onboard")
        .output()
        .expect("run");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("Onboarded 16 agents: 16 delivered"));
    for i in 0..n {
        let got = wait_for_records(&project.file(&format!("rec-{i}.jsonl")), 1);
        assert_eq!(got.len(), 1);
        let (sender, kind, body) = parse_submission(got[0]["text"].as_str().expect("text"));
        assert_eq!((sender.as_str(), kind.as_str()), ("system", "INFO"));
        assert!(body.starts_with("=== SWARM COORDINATION ACTIVE ===") && body.contains("agent-15"));
    }
    // One broadcast, counted once: the default limit of 10 leaves room.
    swarm(&project, &server).arg("onboard").assert().success();
}

/// A demo agent that ignores the first `drop` Enter presses after a paste.
fn dropping_agent(server: &TmuxServer, project: &Project, name: &str, drop: u32) -> String {
    faulty_agent(server, project, name, &format!("--drop-enters {drop}"))
}

/// A demo agent recording to `<name>.jsonl`, misbehaving as `fault` (one
/// of its test flags) says; its pane once it waits for messages.
fn faulty_agent(server: &TmuxServer, project: &Project, name: &str, fault: &str) -> String {
    let command = format!(
        "exec '{}' demo-agent --record '{}' {fault}",
        swarm_bin(),
        project.file(&format!("{name}.jsonl")).display()
    );
    let pane = server.pane(&project.path(), &command);
    server.wait_for_screen(&pane, "waiting for messages");
    pane
}

#[test]
fn a_paste_the_agent_lost_in_a_redraw_before_enter_goes_in_once_more() {
    // The agent shows the paste, then redraws its screen without it (as
    // Gemini CLI does when it replays a resumed conversation just after
    // its first frame). No Enter was pressed: swarm pastes it once more,
    // and the agent gets it exactly once. With the pause a Gemini-like
    // agent needs, so that swarm looks at the box before Enter.
    let server = TmuxServer::start();
    let project = Project::new();
    let pane = faulty_agent(&server, &project, "redrawn", "--lose-pastes 1");
    swarm(&project, &server).arg("discover").assert().success();
    let id = project
        .agents()
        .into_iter()
        .find(|a| a.1 == pane)
        .map(|a| a.0)
        .expect("registered");
    project.write(
        ".claudeswarm.toml",
        "[messaging]\ndelivery_pause_ms = 1500\n",
    );
    let out = swarm(&project, &server)
        .args(["msg", &id, "INFO", "--from", "operator", "--json"])
        .arg("lost once, typed again")
        .output()
        .expect("swarm msg");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let got = wait_for_records(&project.file("redrawn.jsonl"), 1);
    assert_eq!(
        parse_submission(got[0]["text"].as_str().expect("text")).2,
        "lost once, typed again"
    );
    // The second paste alone was in the box when Enter came.
    assert_eq!(got[0]["pastes"], 1);
    let shown = String::from_utf8_lossy(&out.stdout);
    assert!(shown.contains("\"delivered\""), "{shown}");
    assert!(shown.contains("pasted a second time"), "{shown}");
    let screen = server.capture(&pane);
    assert_eq!(
        screen.matches("lost once, typed again").count(),
        1,
        "{screen}"
    );
    assert_eq!(records(&project.file("redrawn.jsonl")).len(), 1);
}

#[test]
fn a_question_the_message_opened_is_never_answered_by_a_second_enter() {
    // The agent takes the message on the first Enter and asks its yes/no
    // question, but for a moment the message is still drawn in a stale
    // input row above it, so a look finds text in a box. A second Enter
    // would pick the highlighted "Yes".
    let server = TmuxServer::start();
    let project = Project::new();
    let pane = faulty_agent(&server, &project, "asked", "--stale-box 1");
    swarm(&project, &server).arg("discover").assert().success();
    let id = project
        .agents()
        .into_iter()
        .find(|a| a.1 == pane)
        .map(|a| a.0)
        .expect("registered");
    let out = swarm(&project, &server)
        .args(["msg", &id, "INFO", "--from", "operator", "--json"])
        .arg("DEMOASK")
        .output()
        .expect("swarm msg");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let shown = String::from_utf8_lossy(&out.stdout);
    assert!(shown.contains("\"delivered\""), "{shown}");
    assert!(!shown.contains("Enter pressed a second time"), "{shown}");
    let got = wait_for_records(&project.file("asked.jsonl"), 1);
    assert_eq!(
        parse_submission(got[0]["text"].as_str().expect("text")).2,
        "DEMOASK"
    );
    // The question is still open: the person's own answer is the first
    // one it gets (a second Enter from swarm, sent before this and
    // waiting in the terminal, would have answered "yes" first).
    server.wait_for_screen(&pane, "Do you want to proceed?");
    server.tmux(&["send-keys", "-t", &pane, "2"]);
    server.wait_for_screen(&pane, "(answered ");
    let answers: Vec<serde_json::Value> = records(&project.file("asked.jsonl"))
        .into_iter()
        .filter_map(|r| r.get("answer").cloned())
        .collect();
    assert_eq!(answers, ["no"], "{}", server.capture(&pane));
    assert_eq!(records(&project.file("asked.jsonl")).len(), 2);
}

#[test]
fn a_dropped_enter_is_pressed_again_once_and_the_text_is_never_pasted_twice() {
    let server = TmuxServer::start();
    let project = Project::new();
    let plain = dropping_agent(&server, &project, "plain", 1);
    let confirmed = dropping_agent(&server, &project, "confirmed", 1);
    let stubborn = dropping_agent(&server, &project, "stubborn", 2);
    swarm(&project, &server).arg("discover").assert().success();
    let ids = project.agents();
    let id_of = |pane: &str| {
        ids.iter()
            .find(|a| a.1 == pane)
            .map(|a| a.0.clone())
            .expect("registered")
    };

    // The demo agent's profile reads its screen, so swarm checks that the
    // text left the box even without `confirm_delivery`.
    project.write(
        ".claudeswarm.toml",
        "[messaging]\nconfirm_delivery = false\n",
    );
    swarm(&project, &server)
        .args([
            "msg",
            &id_of(&plain),
            "INFO",
            "--from",
            "operator",
            "not left in the box",
        ])
        .assert()
        .success();
    server.wait_for_screen(&plain, "(ignored Enter 1 after a paste)");
    let got = wait_for_records(&project.file("plain.jsonl"), 1);
    assert_eq!(got[0]["pastes"], 1);

    // With it, swarm sees the text still waiting and presses Enter once more.
    project.write(
        ".claudeswarm.toml",
        "[messaging]\nconfirm_delivery = true\n",
    );
    swarm(&project, &server)
        .args([
            "msg",
            &id_of(&confirmed),
            "INFO",
            "--from",
            "operator",
            "submitted after all",
        ])
        .assert()
        .success();
    let got = wait_for_records(&project.file("confirmed.jsonl"), 1);
    assert_eq!(
        parse_submission(got[0]["text"].as_str().expect("text")).2,
        "submitted after all"
    );
    assert_eq!(got[0]["pastes"], 1);

    // An agent that drops two Enters gets exactly one more press, never a
    // second paste: the text is in its box once, unsubmitted.
    swarm(&project, &server)
        .args([
            "msg",
            &id_of(&stubborn),
            "INFO",
            "--from",
            "operator",
            "only once",
        ])
        .assert()
        .success();
    server.wait_for_screen(&stubborn, "(ignored Enter 2 after a paste)");
    assert!(records(&project.file("stubborn.jsonl")).is_empty());
    let screen = server.capture(&stubborn);
    let last = screen
        .lines()
        .rev()
        .find(|l| l.starts_with("> "))
        .expect("prompt");
    assert_eq!(last.matches("only once").count(), 1, "{last}");
    assert_eq!(records(&project.file("confirmed.jsonl")).len(), 1);
}
