//! The event stream: `connected` first, then the state, then every
//! change as it happens (a new message, a deleted lock that is not the
//! newest, a lock going stale with no file touched, the registry, the
//! pending ACKs); and a clean end when the dashboard stops.

use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::{Value, json};

use crate::harness::Project;

use crate::harness::dashboard::Dashboard;

use super::{append, lock_file_of, log_line, populated_project, registry, swarm_ok};

fn lock_paths(body: &Value) -> Vec<String> {
    body["locks"]
        .as_array()
        .expect("locks")
        .iter()
        .map(|l| l["filepath"].as_str().expect("filepath").to_owned())
        .collect()
}

fn message_ids(body: &Value) -> Vec<String> {
    body["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .map(|m| m["msg_id"].as_str().expect("id").to_owned())
        .collect()
}

#[test]
fn the_stream_sends_the_state_then_each_change() {
    let project = populated_project();
    let dash = Dashboard::start(&project);
    let mut events = dash.events("");
    assert_eq!(events.status, 200);
    assert_eq!(events.header("transfer-encoding"), Some("chunked"));
    let (hello, seen) = events.until("connected", |_| true);
    assert_eq!(seen, ["connected"], "connected comes first");
    assert_eq!(hello["status"], json!("connected"));

    // The state as it is, in the API's shapes.
    let (locks, _) = events.until("locks", |_| true);
    assert_eq!(lock_paths(&locks), ["docs/*", "src/a.py"]);
    assert_eq!(locks, dash.get("/api/v1/locks").json());
    let (messages, _) = events.until("messages", |_| true);
    assert_eq!(messages["limit"], json!(10));
    assert_eq!(messages["count"], json!(3));
    events.until("stats", |s| s["message_count"] == json!(3));

    // A message appended to the log.
    append(
        &project,
        &log_line(
            "fresh-1",
            "agent-1",
            &["agent-0"],
            "COMPLETED",
            "2026-11-21T13:40:00.000000",
            "done",
        ),
    );
    let (messages, _) = events.until("messages", |m| message_ids(m).contains(&"fresh-1".into()));
    assert_eq!(
        message_ids(&messages).last().map(String::as_str),
        Some("fresh-1")
    );
    events.until("stats", |s| s["message_count"] == json!(4));

    // The older of the two live locks deleted: the newest lock file is
    // unchanged, which the original's change check (the newest mtime)
    // could not see.
    std::fs::remove_file(lock_file_of(&project, "src/a.py")).expect("delete the lock");
    let (locks, _) = events.until("locks", |l| l["count"] == json!(1));
    assert_eq!(lock_paths(&locks), ["docs/*"]);
    events.until("stats", |s| s["lock_count"] == json!(1));

    // A lock taken with the swarm command.
    swarm_ok(&project, &["lock", "tests/", "--agent", "agent-0"]);
    events.until("locks", |l| lock_paths(l).contains(&"tests".into()));

    // The registry rewritten (an agent left).
    let mut reg = registry();
    reg["agents"].as_array_mut().expect("agents").remove(1);
    project.write("ACTIVE_AGENTS.json", &reg.to_string());
    events.until("agents", |a| {
        a["agents"].as_array().is_some_and(|a| a.len() == 1)
    });

    // The pending acknowledgement answered.
    project.write("PENDING_ACKS.json", r#"{"version": 3, "pending_acks": []}"#);
    events.until("acks", |a| a["count"] == json!(0));
}

#[test]
fn a_lock_going_stale_leaves_the_list_without_any_file_changing() {
    let project = Project::new();
    project.register(&["agent-0", "agent-1"]);
    swarm_ok(&project, &["lock", "src/a.py", "--agent", "agent-0"]);
    swarm_ok(&project, &["lock", "src/b.py", "--agent", "agent-1"]);
    // Taken 297 s ago: stale (past the default 300 s) in about 3 s.
    let file = lock_file_of(&project, "src/a.py");
    let mut record: Value =
        serde_json::from_str(&std::fs::read_to_string(&file).expect("read")).expect("JSON");
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("clock")
        .as_secs_f64();
    record["locked_at"] = json!(now - 297.0);
    std::fs::write(&file, record.to_string()).expect("write");
    let dash = Dashboard::start(&project);
    let mut events = dash.events("");
    let (locks, _) = events.until("locks", |l| lock_paths(l) == ["src/b.py"]);
    assert_eq!(locks["count"], json!(1));
    assert_eq!(dash.get("/api/v1/locks").json(), locks);
}

#[test]
fn stopping_ends_every_stream_and_exits_cleanly() {
    let project = Project::new();
    let dash = Dashboard::start(&project);
    let mut first = dash.events("");
    let mut second = dash.events("");
    first.until("stats", |_| true);
    second.until("connected", |_| true);
    let (status, printed, stderr) = dash.stop();
    assert!(status.success(), "exit {status}: {stderr}");
    assert_eq!(
        printed.last().map(String::as_str),
        Some("Dashboard stopped")
    );
    for events in [&mut first, &mut second] {
        let deadline = std::time::Instant::now() + crate::harness::PATIENCE;
        while events.next(deadline).is_some() {}
        assert!(events.ended, "the stream got its last chunk");
    }
}

#[test]
fn an_http_1_0_client_gets_the_events_unchunked() {
    let project = Project::new();
    let dash = Dashboard::start(&project);
    let mut conn = std::net::TcpStream::connect_timeout(&dash.addr, crate::harness::PATIENCE)
        .expect("connect");
    conn.set_read_timeout(Some(crate::harness::PATIENCE))
        .expect("timeout");
    use std::io::{Read, Write};
    conn.write_all(format!("GET /api/v1/stream HTTP/1.0\r\n{}\r\n", dash.host()).as_bytes())
        .expect("send");
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    let deadline = std::time::Instant::now() + crate::harness::PATIENCE;
    while !String::from_utf8_lossy(&got).contains("event: connected\ndata: {") {
        assert!(std::time::Instant::now() < deadline, "no connected event");
        let n = conn.read(&mut buf).expect("read");
        assert!(n > 0, "closed early: {}", String::from_utf8_lossy(&got));
        got.extend_from_slice(&buf[..n]);
    }
    let text = String::from_utf8_lossy(&got);
    let head = text.to_ascii_lowercase();
    assert!(!head.contains("transfer-encoding"), "{text}");
    assert!(
        !head.contains("\r\nconnection: keep-alive\r\n"),
        "the connection ends with the stream: {text}"
    );
}
