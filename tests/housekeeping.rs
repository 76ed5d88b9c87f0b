//! The housekeeping every ordinary command does after its own work, with
//! no watcher running: a damaged registry never costs an obligation (the
//! due ACKs and held messages wait for a good one), and a command's share
//! of the due ACK work is bounded, oldest first, so repeated commands move
//! every ACK on.

use std::fs;
use std::path::Path;

use serde_json::Value;

use crate::harness::{Project, TmuxServer, swarm};

const CONFIG: &str = "[rate_limiting]\nmessages_per_minute = 1000\n\n[messaging]\ndelivery_pause_ms = 0\n\n[acks]\nmax_retries = 3\n";

/// The exit code of a message that was queued, not typed in (README).
const QUEUED: i32 = 7;

/// A project whose agents are registered without panes (their deliveries
/// are queued at once, no typing), with `acks` messages from the person
/// to agent-1 that need an answer.
fn project_with_acks(server: &TmuxServer, acks: usize) -> Project {
    let project = Project::new();
    project.write(".claudeswarm.toml", CONFIG);
    project.register(&["agent-0", "agent-1"]);
    for i in 0..acks {
        swarm(&project, server)
            .args([
                "msg",
                "agent-1",
                "QUESTION",
                "--from",
                "operator",
                "--ack",
                &format!("question {i}"),
            ])
            .assert()
            .code(QUEUED);
    }
    project
}

/// The pending list's entries.
fn pending(project: &Project) -> Vec<Value> {
    let doc: Value = serde_json::from_str(&project.read("PENDING_ACKS.json")).expect("json");
    doc["pending_acks"].as_array().cloned().unwrap_or_default()
}

/// Makes every pending entry due by its recorded time: the entry listed
/// first falls due last (the list order is not the due order), all of
/// them long ago. The due file goes, so the next command looks.
fn make_all_due(project: &Project) {
    let mut doc: Value = serde_json::from_str(&project.read("PENDING_ACKS.json")).expect("json");
    let entries = doc["pending_acks"].as_array_mut().expect("entries");
    let n = entries.len();
    for (i, e) in entries.iter_mut().enumerate() {
        let minute = n - i;
        e["next_retry_at"] = Value::String(format!("2001-01-01T00:{minute:02}:00.000000"));
    }
    project.write("PENDING_ACKS.json", &doc.to_string());
    let _ = fs::remove_file(project.file(".swarm/ack_due"));
}

/// Holds one message for agent-1 as a pane that was not safe would have.
fn hold_one(project: &Project) {
    fs::create_dir_all(project.file(".swarm")).expect("mkdir");
    project.write(
        ".swarm/held.json",
        r#"{"version": 1, "next_seq": 1, "held": [{"seq": 0, "msg_id": "0f0e0d0c-aaaa-bbbb-cccc-000000000001", "agent": "agent-1", "text": "[INFO] held hello", "marker": "[INFO]", "reason": "someone is typing", "since": "2026-01-01T00:00:00.000000+00:00"}], "notified": ["agent-1"]}"#,
    );
}

fn held(project: &Project) -> Vec<Value> {
    let doc: Value = serde_json::from_str(&project.read(".swarm/held.json")).expect("json");
    doc["held"].as_array().cloned().unwrap_or_default()
}

#[derive(Clone, Copy, Debug)]
enum Damage {
    Truncated,
    Garbage,
    Empty,
    WrongShape,
    AgentsNotAList,
    EntryMissingFields,
    Directory,
    Fifo,
    Symlink,
}

/// Damages the registry; returns whether the damage is to the whole file
/// (moved aside) rather than to an entry in it.
fn damage(project: &Project, how: Damage, outside: &Path) -> bool {
    let path = project.file("ACTIVE_AGENTS.json");
    let good = project.read("ACTIVE_AGENTS.json");
    fs::remove_file(&path).expect("rm");
    let write = |text: &str| fs::write(&path, text).expect("write");
    match how {
        Damage::Truncated => write(&good[..good.len() / 2]),
        Damage::Garbage => {
            fs::write(&path, [0xff, 0x00, 0x1b, b'[', b'2', b'J', 0x80]).expect("write")
        }
        Damage::Empty => write(""),
        Damage::WrongShape => write("[1, 2, 3]"),
        Damage::AgentsNotAList => write(
            r#"{"session_name": "test", "updated_at": "2026-01-01T00:00:00+00:00", "agents": {"agent-1": 1}}"#,
        ),
        Damage::EntryMissingFields => {
            let mut reg: Value = serde_json::from_str(&good).expect("json");
            for a in reg["agents"].as_array_mut().expect("agents") {
                if a["id"] == "agent-1" {
                    *a = serde_json::json!({"id": "agent-1", "status": "active"});
                }
            }
            write(&reg.to_string());
            return false;
        }
        Damage::Directory => fs::create_dir(&path).expect("mkdir"),
        Damage::Fifo => {
            let made = std::process::Command::new("mkfifo")
                .arg(&path)
                .status()
                .expect("mkfifo");
            assert!(made.success());
        }
        Damage::Symlink => std::os::unix::fs::symlink(outside, &path).expect("symlink"),
    }
    true
}

#[test]
fn a_damaged_registry_never_drops_a_due_ack_or_a_held_message() {
    let server = TmuxServer::start();
    let elsewhere = tempfile::tempdir().expect("tempdir");
    let outside = elsewhere.path().join("registry.json");
    fs::write(&outside, "{\"not\": \"a registry\"}").expect("write");
    let mut failures = Vec::new();
    for how in [
        Damage::Truncated,
        Damage::Garbage,
        Damage::Empty,
        Damage::WrongShape,
        Damage::AgentsNotAList,
        Damage::EntryMissingFields,
        Damage::Directory,
        Damage::Fifo,
        Damage::Symlink,
    ] {
        let project = project_with_acks(&server, 1);
        make_all_due(&project);
        hold_one(&project);
        let whole = damage(&project, how, &outside);
        // An ordinary command (it fails: agent-1 cannot be found) and its
        // housekeeping, twice: the second sees what the first left.
        let mut stderr = String::new();
        for _ in 0..2 {
            let out = swarm(&project, &server)
                .args(["msg", "agent-1", "INFO", "--from", "operator", "hello"])
                .output()
                .expect("run");
            stderr.push_str(&String::from_utf8_lossy(&out.stderr));
            if stderr.contains("panicked") {
                failures.push(format!("{how:?}: panicked: {stderr}"));
            }
        }
        let acks = pending(&project);
        if acks.len() != 1 || acks[0]["retry_count"] != 0 {
            failures.push(format!(
                "{how:?}: the pending ACK changed: {acks:?}\n{stderr}"
            ));
        }
        if held(&project).len() != 1 {
            failures.push(format!("{how:?}: the held message went: {stderr}"));
        }
        if project
            .read("agent_messages.log")
            .contains("UNACKNOWLEDGED")
        {
            failures.push(format!("{how:?}: escalated: {stderr}"));
        }
        if !stderr.contains("wait") {
            failures.push(format!("{how:?}: no warning that work waits: {stderr}"));
        }
        let aside: Vec<String> = project
            .ls(".")
            .into_iter()
            .filter(|n| n.starts_with("ACTIVE_AGENTS.json.corrupt-"))
            .collect();
        if whole && (aside.len() != 1 || !stderr.contains("moved it to")) {
            failures.push(format!(
                "{how:?}: not moved aside once: {aside:?}\n{stderr}"
            ));
        }
        if fs::read_to_string(&outside).expect("outside") != "{\"not\": \"a registry\"}" {
            failures.push(format!("{how:?}: wrote through the symlink"));
        }

        // A good registry again: the obligations move on.
        let path = project.file("ACTIVE_AGENTS.json");
        match fs::symlink_metadata(&path) {
            Ok(m) if m.is_dir() => fs::remove_dir_all(&path).expect("rm dir"),
            Ok(_) => fs::remove_file(&path).expect("rm"),
            Err(_) => {}
        }
        project.register(&["agent-0", "agent-1"]);
        swarm(&project, &server)
            .args(["msg", "agent-0", "INFO", "--from", "operator", "hello"])
            .assert()
            .code(QUEUED);
        let acks = pending(&project);
        if acks.len() != 1 || acks[0]["retry_count"] != 1 {
            failures.push(format!(
                "{how:?}: no retry once the registry was good: {acks:?}"
            ));
        }
        if !held(&project).is_empty() {
            failures.push(format!("{how:?}: the held message was not released"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn a_command_moves_the_oldest_due_acks_on_and_leaves_the_rest_for_the_next() {
    const ACKS: usize = 24;
    let server = TmuxServer::start();
    let project = project_with_acks(&server, ACKS);
    make_all_due(&project);
    let ids: Vec<String> = pending(&project)
        .iter()
        .map(|e| e["msg_id"].as_str().expect("id").to_owned())
        .collect();
    // Oldest due first: the list's last entry fell due first.
    let oldest_first: Vec<&String> = ids.iter().rev().collect();
    let moved = |project: &Project| -> Vec<String> {
        pending(project)
            .iter()
            .filter(|e| e["retry_count"] != 0)
            .map(|e| e["msg_id"].as_str().expect("id").to_owned())
            .collect()
    };

    swarm(&project, &server)
        .args(["lock", "src/a.py", "--agent", "agent-0"])
        .assert()
        .success();
    let after_one = moved(&project);
    assert!(
        !after_one.is_empty() && after_one.len() < ACKS,
        "one command retried {} of {ACKS} due ACKs",
        after_one.len()
    );
    let expected: Vec<&String> = oldest_first[..after_one.len()].to_vec();
    let mut got: Vec<&String> = after_one.iter().collect();
    got.sort_by_key(|id| ids.iter().rev().position(|i| i == *id));
    assert_eq!(got, expected, "the oldest went first");

    // Every further command moves at least one more on: the rest goes with
    // no watcher at all.
    let mut done = after_one.len();
    let mut commands = 1;
    while done < ACKS {
        swarm(&project, &server)
            .args(["lock", &format!("src/{commands}.py"), "--agent", "agent-0"])
            .assert()
            .success();
        commands += 1;
        let now = moved(&project).len();
        assert!(
            now > done,
            "command {commands} moved nothing on ({done}/{ACKS})"
        );
        done = now;
    }
    assert!(commands > 1);
    assert!(
        pending(&project).iter().all(|e| e["retry_count"] == 1),
        "each went once"
    );
}
