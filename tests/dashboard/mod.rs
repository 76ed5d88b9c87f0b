//! `swarm dashboard`: the real binary serving a real project on an
//! ephemeral loopback port, talked to by a small HTTP client over
//! `std::net` whose every read is bounded by a time limit.

mod access;
mod actions;
mod api;
mod attention;
mod browser;
mod command;
mod security;
mod stream;
mod usage;

use std::io::Write;

use serde_json::{Value, json};

use crate::harness::{Project, swarm_outside_tmux};

/// Runs snapshot assertions with the snapshots kept beside every other
/// one, in `tests/snapshots`, named without the module path.
fn snapshots(f: impl FnOnce()) {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path("../snapshots");
    settings.set_prepend_module_to_snapshot(false);
    settings.bind(f);
}

// --- The project every API test serves -------------------------------

const UPDATED: &str = "2026-11-21T13:26:58.589963+00:00";

/// A registry as the Python tool writes it: one active agent, one stale.
fn registry() -> Value {
    let agent = |i: usize, status: &str, seen: &str| {
        json!({"id": format!("agent-{i}"), "pane_index": format!("swarm:0.{i}"), "pid": 18877 + i,
               "status": status, "last_seen": seen, "session_name": "swarm",
               "tmux_pane_id": format!("%{i}")})
    };
    json!({"session_name": "swarm", "updated_at": UPDATED,
           "agents": [agent(0, "active", UPDATED), agent(1, "stale", "2026-11-21T13:20:00+00:00")],
           "session_names": ["swarm"]})
}

/// A message line in the shape both tools write.
fn log_line(id: &str, from: &str, to: &[&str], kind: &str, when: &str, content: &str) -> String {
    json!({
        "sender": from, "timestamp": when, "msg_type": kind, "content": content,
        "recipients": to, "msg_id": id,
        "delivery_status": to.iter().map(|r| (r.to_string(), json!(true))).collect::<serde_json::Map<_, _>>(),
        "success_count": to.len(), "failure_count": 0
    })
    .to_string()
}

fn append(project: &Project, line: &str) {
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .open(project.file("agent_messages.log"))
        .expect("open the log");
    writeln!(f, "{line}").expect("append");
}

/// Runs a swarm command that must succeed.
fn swarm_ok(project: &Project, args: &[&str]) {
    let out = swarm_outside_tmux(project)
        .args(args)
        .output()
        .expect("run");
    assert!(
        out.status.success(),
        "swarm {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The lock file whose `filepath` is `path`.
fn lock_file_of(project: &Project, path: &str) -> std::path::PathBuf {
    let found = project
        .ls(".agent_locks")
        .into_iter()
        .filter(|n| n.ends_with(".lock"))
        .find(|n| {
            let text = project.read(&format!(".agent_locks/{n}"));
            serde_json::from_str::<Value>(&text).is_ok_and(|v| v["filepath"] == json!(path))
        });
    project.file(&format!(
        ".agent_locks/{}",
        found.unwrap_or_else(|| panic!("no lock file for {path}"))
    ))
}

/// A project with state in every file: two agents, three messages (one
/// with markup in it, one whose delivery was recorded later), a garbage
/// log line, two live locks, a stale one, a damaged lock file, and a
/// pending acknowledgement.
fn populated_project() -> Project {
    let project = Project::new();
    project.write("ACTIVE_AGENTS.json", &registry().to_string());
    let lines = [
        log_line(
            "9c2c68bd-7f2c-490f-a333-2015aba90f22",
            "agent-0",
            &["agent-1"],
            "INFO",
            "2026-11-21T13:27:02.029457",
            "schema v2 merged",
        ),
        "not a message".to_owned(),
        json!({"sender": "agent-1", "timestamp": "2026-11-21T13:28:00.000000+00:00",
               "msg_type": "QUESTION", "content": "<script>alert('x')</script> & <img src=x onerror=alert(1)>",
               "recipients": ["agent-0", "agent-2"], "msg_id": "3f1e0c7a-0000-4000-8000-000000000002",
               "requires_ack": true,
               "delivery_status": {"agent-0": false, "agent-2": false},
               "success_count": 0, "failure_count": 2})
        .to_string(),
        json!({"event": "delivery", "msg_id": "3f1e0c7a-0000-4000-8000-000000000002",
               "timestamp": "2026-11-21T13:28:01.000000+00:00", "recipients": [],
               "outcomes": {"agent-0": {"status": "delivered"},
                            "agent-2": {"status": "queued", "reason": "a shell holds the pane"}}})
        .to_string(),
        log_line(
            "3f1e0c7a-0000-4000-8000-000000000003",
            "agent-0",
            &["agent-1"],
            "BLOCKED",
            "2026-11-21T13:29:30.500000+00:00",
            "need src/a.py\nsoon",
        ),
    ];
    project.write("agent_messages.log", &(lines.join("\n") + "\n"));
    swarm_ok(
        &project,
        &[
            "lock",
            "src/a.py",
            "--agent",
            "agent-0",
            "--reason",
            "editing <a>",
        ],
    );
    swarm_ok(&project, &["lock", "docs/*", "--agent", "agent-1"]);
    swarm_ok(&project, &["lock", "old.txt", "--agent", "agent-1"]);
    // Taken long ago: stale.
    let old = lock_file_of(&project, "old.txt");
    let mut record: Value =
        serde_json::from_str(&std::fs::read_to_string(&old).expect("read")).expect("JSON");
    record["locked_at"] = json!(1_000_000_000.5);
    std::fs::write(&old, record.to_string()).expect("write");
    project.write(
        &format!(".agent_locks/{}.lock", "0".repeat(64)),
        "not a lock",
    );
    project.write(
        "PENDING_ACKS.json",
        &json!({"version": 2, "pending_acks": [{
            "msg_id": "3f1e0c7a-0000-4000-8000-000000000002", "sender_id": "agent-1",
            "recipient_id": "agent-0",
            "message": {"sender": "agent-1", "msg_type": "QUESTION", "content": "ok?"},
            "sent_at": "2026-11-21T13:28:00.000000", "retry_count": 1,
            "next_retry_at": "2026-11-21T13:29:00.000000"}]})
        .to_string(),
    );
    project
}
