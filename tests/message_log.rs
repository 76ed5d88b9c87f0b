//! The message log across rotations, through the real binary: an unread
//! message outlives any number of rotations, concurrent writers lose
//! nothing while the log rotates under them, old messages stay findable
//! with `--all-history`, and doctor says what is kept and why.

use std::process::Command;

use serde_json::Value;

use crate::harness::{Project, TmuxServer, launch_demo, ok, stdout_json, swarm, swarm_bin};

/// Registers agents whose panes are shells: every send is logged and
/// queued at once, so the tests exercise the log, not the delivery.
fn register(project: &Project, server: &TmuxServer, ids: &[&str]) {
    let agents: Vec<String> = ids
        .iter()
        .map(|id| {
            let pane = server.shell(&project.path());
            let pid = server.tmux(&["display-message", "-p", "-t", &pane, "#{pane_pid}"]);
            format!(
                r#"{{"id": "{id}", "pane_index": "harness:1.0", "pid": {}, "status": "active", "last_seen": "2026-11-21T00:00:00+00:00", "session_name": "harness", "tmux_pane_id": "{pane}"}}"#,
                pid.trim()
            )
        })
        .collect();
    project.write(
        "ACTIVE_AGENTS.json",
        &format!(
            r#"{{"session_name": "harness", "updated_at": "2026-11-21T00:00:00+00:00", "agents": [{}]}}"#,
            agents.join(", ")
        ),
    );
}

fn segments(project: &Project) -> Vec<u64> {
    let mut n: Vec<u64> = project
        .ls(".")
        .iter()
        .filter_map(|name| name.strip_prefix("agent_messages.log.")?.parse().ok())
        .collect();
    n.sort_unstable();
    n
}

fn send(project: &Project, server: &TmuxServer, to: &str, from: &str, text: &str) {
    // Exit 7: queued (the pane is a shell), which is what these tests want.
    let out = swarm(project, server)
        .args(["msg", to, "INFO", "--from", from, text])
        .output()
        .expect("run");
    assert!(matches!(out.status.code(), Some(0 | 7)), "{out:?}");
}

fn inbox(project: &Project, server: &TmuxServer, args: &[&str]) -> Value {
    let out = swarm(project, server)
        .args(["inbox", "--json"])
        .args(args)
        .output()
        .expect("run");
    assert!(out.status.success(), "{out:?}");
    stdout_json(&out)
}

#[test]
fn an_unread_message_survives_five_rotations_and_doctor_says_why() {
    let server = TmuxServer::start();
    let project = Project::new();
    // Rotate every few messages and keep no history beyond what is unread.
    project.write(
        ".claudeswarm.toml",
        "[rate_limiting]\nmessages_per_minute = 1000\n\n[message_log]\nrotate_bytes = 2048\nkeep_bytes = 0\n",
    );
    register(&project, &server, &["agent-0", "agent-1"]);
    send(&project, &server, "agent-0", "agent-1", "the unread one");
    // agent-1 is sent many messages and keeps reading them.
    for round in 0..8 {
        for i in 0..6 {
            send(
                &project,
                &server,
                "agent-1",
                "agent-0",
                &format!("round {round} message {i} {}", "x".repeat(150)),
            );
        }
        let read = inbox(&project, &server, &["--agent", "agent-1", "--new"]);
        assert_eq!(read["messages"].as_array().map(Vec::len), Some(6));
    }
    let index: Value =
        serde_json::from_str(&project.read(".swarm/message_log.json")).expect("index");
    let rotations = index["next"].as_u64().expect("next") - 1;
    assert!(rotations >= 5, "only {rotations} rotations");
    let kept = segments(&project);
    assert!(kept.contains(&1), "segment 1 is gone: {kept:?}");
    assert!(
        kept.len() < rotations as usize,
        "read segments were not removed: {kept:?}"
    );
    // doctor names the reader that keeps it.
    let out = swarm(&project, &server)
        .args(["doctor", "--json"])
        .output()
        .expect("run");
    let report = stdout_json(&out);
    let history = report["checks"]
        .as_array()
        .or_else(|| report.as_array())
        .into_iter()
        .flatten()
        .find(|c| c["check"] == "message log history")
        .cloned()
        .unwrap_or_else(|| panic!("no history check in {report}"));
    assert_eq!(history["status"], "warn", "{history}");
    let details = history["details"].to_string();
    assert!(details.contains("agent_messages.log.1"), "{details}");
    assert!(details.contains("agent-0"), "{details}");
    // The message is still there, and still new.
    let new = inbox(&project, &server, &["--agent", "agent-0", "--new"]);
    assert_eq!(new["messages"][0]["content"], "the unread one");
    // Once read, the next rotation removes its segment.
    for i in 0..12 {
        send(
            &project,
            &server,
            "agent-1",
            "agent-0",
            &format!("more {i} {}", "y".repeat(150)),
        );
    }
    assert!(!segments(&project).contains(&1), "{:?}", segments(&project));
    // Still findable? No: it was read and the policy keeps nothing more.
    let found = inbox(
        &project,
        &server,
        &[
            "--agent",
            "agent-0",
            "--all-history",
            "--search",
            "unread one",
        ],
    );
    assert_eq!(found["messages"].as_array().map(Vec::len), Some(0));
}

#[test]
fn many_writers_across_rotations_lose_nothing() {
    let server = TmuxServer::start();
    let project = Project::new();
    project.write(
        ".claudeswarm.toml",
        "[rate_limiting]\nmessages_per_minute = 1000\n\n[message_log]\nrotate_bytes = 4096\n",
    );
    register(&project, &server, &["agent-0"]);
    let processes = 8;
    let per_process = 25;
    let script = format!(
        "for i in $(seq 1 {per_process}); do '{}' msg agent-0 INFO --from operator \"message $i from writer $1\" >/dev/null; done",
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
    assert!(segments(&project).len() >= 5, "{:?}", segments(&project));
    // Every line of every segment parses; every message is there once.
    let mut ids = std::collections::HashSet::new();
    let mut outcomes = 0;
    let mut files: Vec<String> = segments(&project)
        .iter()
        .map(|n| format!("agent_messages.log.{n}"))
        .collect();
    files.push("agent_messages.log".into());
    for f in files {
        for line in project.read(&f).lines() {
            let v: Value =
                serde_json::from_str(line).unwrap_or_else(|e| panic!("torn line {line:?}: {e}"));
            if v["event"] == "delivery" {
                outcomes += 1;
            } else {
                assert!(
                    ids.insert(v["msg_id"].as_str().expect("id").to_owned()),
                    "duplicate id"
                );
            }
        }
    }
    assert_eq!(ids.len(), processes * per_process);
    assert_eq!(outcomes, processes * per_process);
    // The inbox sees all of them, across the segments.
    let all = inbox(&project, &server, &["--agent", "agent-0", "--all-history"]);
    assert_eq!(
        all["messages"].as_array().map(Vec::len),
        Some(processes * per_process)
    );
    let new = inbox(
        &project,
        &server,
        &["--agent", "agent-0", "--new", "--limit", "100000"],
    );
    assert_eq!(
        new["messages"].as_array().map(Vec::len),
        Some(processes * per_process)
    );
}

#[test]
fn recent_and_search_reach_into_rotated_segments() {
    let server = TmuxServer::start();
    let project = Project::new();
    project.write(
        ".claudeswarm.toml",
        "[rate_limiting]\nmessages_per_minute = 1000\n\n[message_log]\nrotate_bytes = 2048\n",
    );
    register(&project, &server, &["agent-0"]);
    send(
        &project,
        &server,
        "agent-0",
        "operator",
        "deploy key is in the vault",
    );
    for i in 0..30 {
        send(
            &project,
            &server,
            "agent-0",
            "operator",
            &format!("filler {i} {}", "z".repeat(150)),
        );
    }
    assert!(segments(&project).len() >= 3);
    let recent = inbox(&project, &server, &["--agent", "agent-0", "--limit", "2"]);
    let texts: Vec<&str> = recent["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .filter_map(|m| m["content"].as_str())
        .collect();
    assert!(texts[0].starts_with("filler 28") && texts[1].starts_with("filler 29"));
    assert_eq!(recent["more_older"], true);
    let found = inbox(
        &project,
        &server,
        &["--agent", "agent-0", "--all-history", "--search", "VAULT"],
    );
    assert_eq!(
        found["messages"][0]["content"],
        "deploy key is in the vault"
    );
    assert_eq!(found["messages"].as_array().map(Vec::len), Some(1));
    // --search needs --all-history; --new and --all-history exclude each other.
    swarm(&project, &server)
        .args(["inbox", "--agent", "agent-0", "--search", "x"])
        .assert()
        .code(2);
    swarm(&project, &server)
        .args(["inbox", "--agent", "agent-0", "--new", "--all-history"])
        .assert()
        .code(2);
}

#[test]
fn a_python_reader_of_the_log_sees_no_failure_for_a_delivered_message() {
    let server = TmuxServer::start();
    let project = Project::new();
    let agents = launch_demo(&project, &server, 2, "team");
    for (_, pane) in &agents {
        server.wait_for_screen(pane, "waiting for messages");
    }
    let out = ok(swarm(&project, &server).args(["msg", "agent-1", "INFO", "hello", "--json"]));
    let id = stdout_json(&out)["msg_id"].as_str().expect("id").to_owned();
    let lines: Vec<Value> = project
        .read("agent_messages.log")
        .lines()
        .map(|l| serde_json::from_str(l).expect("json line"))
        .collect();
    // The delivery record says it was delivered...
    assert!(lines.iter().any(|l| l["event"] == "delivery"
        && l["msg_id"] == id.as_str()
        && l.to_string().contains("delivered")));
    // ...and the message line, which is all the Python tool reads, holds
    // no verdict that says otherwise.
    let line = lines
        .iter()
        .find(|l| l["msg_id"] == id.as_str() && l.get("event").is_none())
        .expect("the message line");
    assert_eq!(line["failure_count"], 0, "{line}");
    let statuses = line["delivery_status"]
        .as_object()
        .expect("delivery_status");
    assert!(statuses.values().all(|v| v != false), "{line}");
}
