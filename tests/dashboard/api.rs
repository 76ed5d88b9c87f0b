//! The JSON API (README, Dashboard): every endpoint's shape against a project
//! with real state files, the message limit, legacy redirects, 404s.

use serde_json::{Value, json};

use crate::harness::{Project, four_ways_in};

use crate::harness::dashboard::Dashboard;

use super::{append, log_line, populated_project, snapshots};

#[test]
fn every_endpoint_answers_in_the_original_shape() {
    let project = populated_project();
    let dash = Dashboard::start(&project);
    let get = |path: &str| {
        let reply = dash.get(path);
        assert_eq!(reply.status, 200, "{path}: {}", reply.text());
        assert_eq!(reply.header("content-type"), Some("application/json"));
        reply.json()
    };
    let agents = get("/api/v1/agents");
    let locks = get("/api/v1/locks");
    let messages = get("/api/v1/messages");
    let stats = get("/api/v1/stats");
    let acks = get("/api/v1/acks");
    let health = get("/health");
    snapshots(|| {
        insta::assert_json_snapshot!("dashboard_agents", agents);
        insta::assert_json_snapshot!("dashboard_locks", locks, {
            ".locks[].locked_at" => "[locked_at]"
        });
        insta::assert_json_snapshot!("dashboard_messages", messages);
        insta::assert_json_snapshot!("dashboard_stats", stats);
        insta::assert_json_snapshot!("dashboard_acks", acks);
        insta::assert_json_snapshot!("dashboard_health", health, {
            ".timestamp" => "[time]"
        });
    });
    // Only live locks: the stale one and the damaged file are left out.
    let paths: Vec<&str> = locks["locks"]
        .as_array()
        .expect("locks")
        .iter()
        .map(|l| l["filepath"].as_str().expect("filepath"))
        .collect();
    assert_eq!(paths, ["docs/*", "src/a.py"]);
    assert_eq!(stats["lock_count"], json!(2));
    // The stale agent is listed, as stored.
    assert_eq!(agents["agents"][1]["status"], json!("stale"));
    // The later delivery record is merged into its message.
    assert_eq!(
        messages["messages"][1]["delivery_status"],
        json!({"agent-0": true, "agent-2": false})
    );
}

#[test]
fn usage_answers_as_swarm_usage_json() {
    let project = Project::new();
    let dash = Dashboard::start(&project);
    let reply = dash.get("/api/v1/usage");
    assert_eq!(reply.status, 200, "{}", reply.text());
    let body = reply.json();
    assert_eq!(body["agents"], json!([]));
    assert_eq!(body["total"]["tokens"]["input"], json!(0));
    assert!(body["prices_taken"].is_string(), "{body}");
}

#[test]
fn without_state_files_the_answers_are_empty() {
    let project = Project::new();
    let dash = Dashboard::start(&project);
    assert_eq!(
        dash.get("/api/v1/agents").json(),
        json!({"session_name": null, "updated_at": null, "agents": []})
    );
    assert_eq!(
        dash.get("/api/v1/locks").json(),
        json!({"locks": [], "count": 0})
    );
    assert_eq!(
        dash.get("/api/v1/messages").json(),
        json!({"messages": [], "count": 0, "limit": 50})
    );
    assert_eq!(
        dash.get("/api/v1/stats").json(),
        json!({"watcher": {"running": false}, "agent_count": 0, "lock_count": 0,
               "message_count": 0, "message_types": {}, "latest_activity": null,
               "session_name": null, "updated_at": null})
    );
    assert_eq!(
        dash.get("/health").json()["files"],
        json!({"agents": false, "messages": false, "locks_dir": false})
    );
    // A damaged registry reads as no registry, not as an error.
    project.write("ACTIVE_AGENTS.json", "{not json");
    let reply = dash.get("/api/v1/agents");
    assert_eq!(reply.status, 200);
    assert_eq!(reply.json()["agents"], json!([]));
}

fn ids(reply: &Value) -> Vec<String> {
    reply["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .map(|m| m["msg_id"].as_str().expect("id").to_owned())
        .collect()
}

/// The original returned N-1 messages for `limit=N` (its tail kept the
/// empty "line" after the last newline) and lost a line straddling its
/// 8 KiB read boundary; swarm returns exactly the last N.
#[test]
fn limit_n_returns_exactly_the_last_n_messages() {
    let project = Project::new();
    // About 20 KiB: several 8 KiB boundaries fall inside lines.
    let mut lines = Vec::new();
    for n in 0..50 {
        lines.push(log_line(
            &format!("m{n:02}"),
            "agent-0",
            &["agent-1"],
            "INFO",
            "2026-11-21T13:27:02.029457",
            &format!("message {n} {}", "x".repeat(300 + n * 7)),
        ));
        if n % 10 == 3 {
            lines.push("garbage between messages".into());
        }
    }
    project.write("agent_messages.log", &(lines.join("\n") + "\n"));
    let dash = Dashboard::start(&project);
    let all: Vec<String> = (0..50).map(|n| format!("m{n:02}")).collect();
    for n in [1, 2, 3, 10, 49, 50] {
        let reply = dash.get(&format!("/api/v1/messages?limit={n}")).json();
        assert_eq!(reply["count"], json!(n));
        assert_eq!(reply["limit"], json!(n));
        assert_eq!(ids(&reply), all[50 - n..], "limit={n}");
    }
    // Out of range: clamped like the original.
    for (raw, limit) in [("0", 50), ("-5", 50), ("5000", 1000)] {
        let reply = dash.get(&format!("/api/v1/messages?limit={raw}")).json();
        assert_eq!(reply["limit"], json!(limit), "limit={raw}");
        assert_eq!(reply["count"], json!(50), "limit={raw}");
    }
    let reply = dash.get("/api/v1/messages?limit=ten");
    assert_eq!(reply.status, 422);
    assert_eq!(reply.json()["detail"][0]["loc"], json!(["query", "limit"]));
    // A message appended later is the new last one.
    append(
        &project,
        &log_line(
            "m50",
            "agent-1",
            &["agent-0"],
            "COMPLETED",
            "2026-11-21T13:30:00.000000",
            "done",
        ),
    );
    assert_eq!(
        ids(&dash.get("/api/v1/messages?limit=2").json()),
        ["m49", "m50"]
    );
}

#[test]
fn the_log_is_followed_across_its_rotation() {
    let project = Project::new();
    project.write(
        "agent_messages.log",
        &(log_line(
            "a",
            "agent-0",
            &["agent-1"],
            "INFO",
            "2026-11-21T13:27:02.029457",
            "one",
        ) + "\n"),
    );
    let dash = Dashboard::start(&project);
    assert_eq!(ids(&dash.get("/api/v1/messages").json()), ["a"]);
    // Rotated as the tools do it: renamed to .old, a new log started.
    std::fs::rename(
        project.file("agent_messages.log"),
        project.file("agent_messages.log.old"),
    )
    .expect("rotate");
    append(
        &project,
        &log_line(
            "b",
            "agent-0",
            &["agent-1"],
            "INFO",
            "2026-11-21T13:28:00.000000",
            "two",
        ),
    );
    assert_eq!(ids(&dash.get("/api/v1/messages").json()), ["a", "b"]);
}

#[test]
fn legacy_paths_redirect_keeping_the_query() {
    let project = Project::new();
    let dash = Dashboard::start(&project);
    for name in ["agents", "locks", "messages", "stats", "stream"] {
        let reply = dash.get(&format!("/api/{name}"));
        assert_eq!(reply.status, 307, "/api/{name}");
        assert_eq!(reply.header("location"), Some(&*format!("/api/v1/{name}")));
    }
    let reply = dash.get("/api/messages?limit=3&x=%20y");
    assert_eq!(reply.status, 307);
    assert_eq!(
        reply.header("location"),
        Some("/api/v1/messages?limit=3&x=%20y")
    );
}

#[test]
fn unknown_paths_and_methods_get_json_errors() {
    let project = Project::new();
    let dash = Dashboard::start(&project);
    for path in [
        "/nope",
        "/api/v1/nope",
        "/api/v1/agents/",
        "/docs",
        "/openapi.json",
    ] {
        let reply = dash.get(path);
        assert_eq!(reply.status, 404, "{path}");
        assert_eq!(reply.json(), json!({"detail": "Not Found"}), "{path}");
    }
    let host = dash.host();
    let reply = dash.send(&format!(
        "POST /api/v1/agents HTTP/1.1\r\n{host}Content-Length: 0\r\n\r\n"
    ));
    assert_eq!(reply.status, 405);
    assert_eq!(reply.header("allow"), Some("GET, HEAD"));
    let reply = dash.send(&format!("HEAD /api/v1/agents HTTP/1.1\r\n{host}\r\n"));
    assert_eq!(reply.status, 200);
    assert!(reply.body.is_empty());
    let reply = dash.send("GARBAGE\r\n\r\n");
    assert_eq!(reply.status, 400);
    let huge = format!("GET /{} HTTP/1.1\r\n\r\n", "a".repeat(20_000));
    assert_eq!(dash.send(&huge).status, 431);
}

#[test]
fn doctor_and_the_stats_count_the_same_messages() {
    let project = Project::new();
    project.register(&["agent-0", "agent-1"]);
    for i in 0..3 {
        // The agents have no pane here: each message is logged, then a
        // delivery record saying it waits in the inbox.
        let out = crate::harness::swarm_outside_tmux(&project)
            .args(["msg", "agent-1", "INFO", &format!("m{i}")])
            .output()
            .expect("run");
        assert_eq!(
            out.status.code(),
            Some(7),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let lines = project.read("agent_messages.log").lines().count();
    assert!(lines > 3, "delivery records too: {lines} lines");
    let out = crate::harness::swarm_outside_tmux(&project)
        .args(["doctor", "--json"])
        .output()
        .expect("run doctor");
    let doctor = crate::harness::stdout_json(&out);
    let log = doctor["checks"]
        .as_array()
        .expect("checks")
        .iter()
        .filter(|c| c["check"] == "agent_messages.log")
        .filter_map(|c| c["message"].as_str())
        .collect::<Vec<_>>()
        .join(" ");
    assert!(log.contains("3 message(s)"), "{log}");
    let dash = Dashboard::start(&project);
    assert_eq!(dash.get("/api/v1/stats").json()["message_count"], json!(3));
}

#[test]
fn native_outcomes_carry_their_status_way_in_and_confirmation() {
    let project = Project::new();
    let line = log_line(
        "n1",
        "agent-0",
        &["agent-1", "agent-2", "agent-3", "agent-4"],
        "INFO",
        "2026-11-21T13:30:00+00:00",
        "schema v3",
    );
    let delivery = json!({
        "event": "delivery", "msg_id": "n1", "timestamp": "2026-11-21T13:30:01+00:00",
        "recipients": [],
        "outcomes": four_ways_in(),
    });
    project.write("agent_messages.log", &format!("{line}\n{delivery}\n"));
    let dash = Dashboard::start(&project);
    let reply = dash.get("/api/v1/messages").json();
    let m = &reply["messages"][0];
    assert_eq!(
        m["delivery"],
        json!({
            "agent-1": {"status": "accepted", "via": "socket",
                        "shown": "accepted (socket)"},
            "agent-2": {"status": "delivered", "via": "app-server",
                        "confirmed_by": "app-server",
                        "shown": "delivered (app-server, confirmed by app-server)"},
        }),
        "{m}"
    );
    // Accepted is not delivered yet: the original field says so.
    assert_eq!(
        m["delivery_status"],
        json!({"agent-1": false, "agent-2": true, "agent-3": true, "agent-4": true})
    );
}
