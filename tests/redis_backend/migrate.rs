//! `swarm store migrate`: a project moved to Redis and back loses nothing.

use std::process::Output;

use crate::harness::redis_server::RedisServer;
use crate::harness::{Project, stdout_json, swarm_outside_tmux};

#[test]
fn store_migrate_moves_a_project_to_redis_and_back_without_loss() {
    let server = RedisServer::start();
    let p = Project::new();
    p.register(&["agent-1", "agent-2"]);
    let files = |args: &[&str]| -> Output {
        swarm_outside_tmux(&p)
            .env("SWARM_STORE_URL", server.url())
            .env("SWARM_STORE_NAME", "moved")
            .env("SWARM_STORE_HOST", "host-a")
            .args(args)
            .output()
            .expect("run swarm")
    };
    let redis = |project: &Project, args: &[&str]| -> Output {
        swarm_outside_tmux(project)
            .envs(server.store_env("moved"))
            .env("SWARM_STORE_HOST", "host-a")
            .args(args)
            .output()
            .expect("run swarm")
    };
    for text in ["first", "second"] {
        let out = files(&["msg", "agent-2", "INFO", text, "--from", "agent-1"]);
        assert_eq!(out.status.code(), Some(7), "{out:?}");
    }
    let out = files(&["inbox", "--new", "--agent", "agent-2", "--limit", "1"]);
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("first"),
        "{out:?}"
    );
    let out = files(&[
        "msg", "agent-1", "QUESTION", "ack me", "--ack", "--from", "agent-2",
    ]);
    assert_eq!(out.status.code(), Some(7), "{out:?}");
    let out = files(&[
        "lock", "src/x.py", "--agent", "agent-1", "--reason", "moving",
    ]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let out = files(&["coord", "add", "Decisions", "we use Redis"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let out = files(&["tasks", "create", "ship it", "--creator", "agent-1"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    // Lines of the Python tool (naive local time, its verdicts, a key swarm
    // does not model, its own layout) and one whose time does not parse.
    let log = format!(
        "{}{}\n{}\n",
        p.read("agent_messages.log"),
        r#"{"sender":"agent-2","timestamp":"2026-11-21T13:27:02","msg_type":"INFO","content":"caf\u00E9","recipients":["agent-1"],"msg_id":"py-1","signature":"s","delivery_status":{"agent-1":true},"success_count":1,"failure_count":0}"#,
        r#"{"sender": "agent-2", "timestamp": "soon", "msg_type": "INFO", "content": "when?", "recipients": ["agent-1"], "msg_id": "py-2"}"#,
    );
    p.write("agent_messages.log", &log);

    let out = files(&["store", "migrate", "--to", "redis", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let moved = stdout_json(&out)["moved"].clone();
    assert_eq!(moved["agents"], 2, "{moved}");
    assert_eq!(moved["locks"], 1, "{moved}");
    assert_eq!(moved["pending_acks"], 1, "{moved}");
    assert_eq!(moved["coordination"], true, "{moved}");
    assert!(moved["a2a_collections"].as_u64() >= Some(1), "{moved}");

    // On the server: the same agents, lock, ACK, notes and task, and the
    // inbox goes on from where agent-2 had read.
    let check = |run: &dyn Fn(&[&str]) -> Output| {
        let agents = stdout_json(&run(&["agents", "--json"]));
        let ids: Vec<&str> = agents
            .as_array()
            .expect("a list")
            .iter()
            .filter_map(|a| a["id"].as_str())
            .collect();
        assert_eq!(ids, ["agent-1", "agent-2"]);
        let who = run(&["who", "src/x.py"]);
        let who = String::from_utf8_lossy(&who.stdout).into_owned();
        assert!(who.contains("agent-1") && who.contains("moving"), "{who}");
        let acks = stdout_json(&run(&["acks", "--json"]));
        assert_eq!(acks.as_array().map(Vec::len), Some(1), "{acks}");
        let coord = run(&["coord", "show"]);
        assert!(String::from_utf8_lossy(&coord.stdout).contains("we use Redis"));
        let tasks = run(&["tasks", "list"]);
        assert!(
            String::from_utf8_lossy(&tasks.stdout).contains("ship it"),
            "{tasks:?}"
        );
        let history = stdout_json(&run(&[
            "inbox",
            "--all-history",
            "--agent",
            "agent-2",
            "--json",
        ]));
        assert_eq!(
            history["messages"].as_array().map(Vec::len),
            Some(2),
            "{history}"
        );
    };
    check(&|args| redis(&p, args));
    let new = stdout_json(&redis(
        &p,
        &["inbox", "--new", "--agent", "agent-2", "--json"],
    ));
    let texts: Vec<&str> = new["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .filter_map(|m| m["content"].as_str())
        .collect();
    assert_eq!(texts, ["second"], "only what was unread: {new}");

    // A second migration to a server that holds state is refused.
    let out = files(&["store", "migrate", "--to", "redis"]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");

    // And back, into another checkout's empty files.
    let back = Project::new();
    let out = redis(&back, &["store", "migrate", "--to", "files"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    check(&|args| {
        swarm_outside_tmux(&back)
            .args(args)
            .output()
            .expect("run swarm")
    });
    // Every line came back as it was written.
    assert_eq!(back.read("agent_messages.log"), log);
}
