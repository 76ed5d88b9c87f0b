//! The Redis backend through the real `swarm` binary: two project
//! checkouts with different host names share one private redis-server.

use std::process::Output;

use crate::harness::redis_server::RedisServer;
use crate::harness::{Project, stdout_json, swarm_outside_tmux};

/// `swarm ARGS...` in `project` as host `host` of the swarm `shared` on
/// `server`.
fn on(project: &Project, server: &RedisServer, host: &str, args: &[&str]) -> Output {
    swarm_outside_tmux(project)
        .env("SWARM_STORE_BACKEND", "redis")
        .env("SWARM_STORE_URL", server.url())
        .env("SWARM_STORE_NAME", "shared")
        .env("SWARM_STORE_HOST", host)
        .args(args)
        .output()
        .expect("run swarm")
}

/// True when the checkout has no lock file (its lock directory may not
/// even exist).
fn no_lock_files(project: &Project) -> bool {
    !project.file(".agent_locks").exists() || project.ls(".agent_locks").is_empty()
}

fn two_hosts() -> (Project, Project) {
    let a = Project::new();
    let b = Project::new();
    a.register(&["agent-1"]);
    b.register(&["agent-2"]);
    (a, b)
}

#[test]
fn a_lock_taken_on_one_host_blocks_the_other_and_carries_a_growing_token() {
    let server = RedisServer::start();
    let (a, b) = two_hosts();
    let got = on(
        &a,
        &server,
        "host-a",
        &["lock", "src/api.py", "--agent", "agent-1", "--json"],
    );
    assert_eq!(got.status.code(), Some(0), "{got:?}");
    let first = stdout_json(&got);
    let token = first["acquired"][0]["fence"]
        .as_u64()
        .expect("a fencing token");
    assert_eq!(first["acquired"][0]["host"], "host-a");

    // Host B sees it, through a pattern, and is refused with exit code 3.
    let refused = on(
        &b,
        &server,
        "host-b",
        &["lock", "src/*.py", "--agent", "agent-2"],
    );
    assert_eq!(refused.status.code(), Some(3), "{refused:?}");
    assert!(String::from_utf8_lossy(&refused.stderr).contains("agent-1"));
    let who = on(&b, &server, "host-b", &["who", "src/api.py"]);
    let text = String::from_utf8_lossy(&who.stdout);
    assert!(text.contains("Held by: agent-1"), "{text}");
    assert!(text.contains(&format!("Fencing token: {token}")), "{text}");
    assert!(text.contains("Host: host-a"), "{text}");

    // Nothing went to either checkout's lock files.
    assert!(no_lock_files(&a) && no_lock_files(&b));

    // Released on A, B gets it with a larger token.
    let out = on(
        &a,
        &server,
        "host-a",
        &["unlock", "src/api.py", "--agent", "agent-1"],
    );
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let got = on(
        &b,
        &server,
        "host-b",
        &["lock", "src/*.py", "--agent", "agent-2", "--json"],
    );
    assert_eq!(got.status.code(), Some(0), "{got:?}");
    let second = stdout_json(&got)["acquired"][0]["fence"]
        .as_u64()
        .expect("token");
    assert!(second > token, "{second} after {token}");
}

#[test]
fn an_unreachable_server_fails_with_exit_code_8_and_never_shows_the_password() {
    let project = Project::new();
    project.register(&["agent-1"]);
    let out = swarm_outside_tmux(&project)
        .env("SWARM_STORE_BACKEND", "redis")
        .env("SWARM_STORE_URL", "redis://:hunter2@127.0.0.1:1")
        .env("SWARM_STORE_TIMEOUT_MS", "500")
        .args(["lock", "a.py", "--agent", "agent-1"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(8), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("unreachable"), "{err}");
    assert!(!err.contains("hunter2"), "{err}");
    assert!(no_lock_files(&project), "nothing half-done");
}

#[test]
fn redis_without_a_url_is_a_clear_configuration_error() {
    let project = Project::new();
    project.register(&["agent-1"]);
    let out = swarm_outside_tmux(&project)
        .env("SWARM_STORE_BACKEND", "redis")
        .args(["lock", "a.py", "--agent", "agent-1"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("SWARM_STORE_URL"));
}

#[test]
fn acknowledged_locks_survive_kill_9_and_tokens_never_repeat() {
    let mut server = RedisServer::start_durable();
    let (a, b) = two_hosts();
    let got = on(
        &a,
        &server,
        "host-a",
        &["lock", "x.py", "--agent", "agent-1", "--json"],
    );
    assert_eq!(got.status.code(), Some(0), "{got:?}");
    let token = stdout_json(&got)["acquired"][0]["fence"]
        .as_u64()
        .expect("token");
    server.kill9();
    let down = on(
        &b,
        &server,
        "host-b",
        &["lock", "y.py", "--agent", "agent-2"],
    );
    assert_eq!(down.status.code(), Some(8), "{down:?}");
    server.restart();
    let list = on(&b, &server, "host-b", &["locks", "--json"]);
    assert_eq!(list.status.code(), Some(0), "{list:?}");
    let locks = stdout_json(&list);
    let text = locks.to_string();
    assert!(text.contains("x.py") && text.contains("agent-1"), "{text}");
    assert!(
        !text.contains("y.py"),
        "the refused lock was not half-taken: {text}"
    );
    let got = on(
        &b,
        &server,
        "host-b",
        &["lock", "y.py", "--agent", "agent-2", "--json"],
    );
    let next = stdout_json(&got)["acquired"][0]["fence"]
        .as_u64()
        .expect("token");
    assert!(next > token, "{next} after {token}");
}

#[test]
fn config_show_never_prints_the_store_password() {
    let project = Project::new();
    for args in [&["config", "show"][..], &["config", "show", "--json"][..]] {
        let out = swarm_outside_tmux(&project)
            .env("SWARM_STORE_URL", "redis://:hunter2@cache.internal:6379/0")
            .args(args)
            .output()
            .expect("run");
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains("cache.internal"), "{text}");
        assert!(!text.contains("hunter2"), "{text}");
    }
}

#[test]
fn a_senders_rate_limit_counts_its_sends_from_every_host() {
    let server = RedisServer::start();
    let (a, b) = two_hosts();
    a.register(&["agent-2"]);
    b.register(&["agent-1"]);
    let send = |project: &Project, host: &str, text: &str| {
        swarm_outside_tmux(project)
            .env("SWARM_STORE_BACKEND", "redis")
            .env("SWARM_STORE_URL", server.url())
            .env("SWARM_STORE_NAME", "shared")
            .env("SWARM_STORE_HOST", host)
            .env("SWARM_RATE_LIMITING_MESSAGES_PER_MINUTE", "2")
            .args(["msg", "agent-2", "INFO", text, "--from", "agent-1"])
            .output()
            .expect("run swarm")
    };
    // agent-2 has no pane: each message is logged and queued (exit 7).
    for text in ["one", "two"] {
        let out = send(&a, "host-a", text);
        assert_eq!(out.status.code(), Some(7), "{out:?}");
    }
    // The third send, from the other host, is over agent-1's limit.
    let out = send(&b, "host-b", "three");
    assert_eq!(out.status.code(), Some(6), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("rate limit"),
        "{out:?}"
    );
    // The windows live on the server, in neither checkout.
    for p in [&a, &b] {
        assert!(!p.file(".swarm/rate_limits.json").exists());
    }
}
