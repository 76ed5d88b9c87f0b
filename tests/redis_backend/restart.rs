//! A watcher and a plain monitor outlive a restart of the Redis server and
//! say so once.

use crate::harness::redis_server::RedisServer;
use crate::harness::{Project, TmuxServer, typed_as, wait_for, wait_for_records};

use super::{Watcher, on, on_tmux};

#[test]
fn a_watcher_outlives_a_server_restart_and_says_so_once() {
    outlives_a_restart(&["watch", "--interval", "3600"], "Watching");
}

#[test]
fn a_plain_monitor_outlives_a_server_restart_and_says_so_once() {
    outlives_a_restart(&["monitor", "--plain"], "watching");
}

/// `swarm ARGS...` keeps running through a restart of the server, says
/// once that it is unreachable and once that it answers again, and then
/// types in what host A hands over.
fn outlives_a_restart(args: &[&str], started: &str) {
    let mut server = RedisServer::start_durable();
    let tmux_b = TmuxServer::start();
    let (a, b) = (Project::new(), Project::new());
    let rec = b.file("rec.jsonl");
    tmux_b.demo_agent(&b.path(), &rec);
    let out = on_tmux(&b, &server, &tmux_b, "host-b", &["discover"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let log = b.file("watch.log");
    let _watcher = Watcher::logged(&b, &server, &tmux_b, "host-b", args, &log);
    let said = || std::fs::read_to_string(&log).unwrap_or_default();
    wait_for("the watcher to start", || {
        said().contains(started).then_some(())
    });

    server.kill9();
    wait_for("the watcher to say the store is unreachable", || {
        said().contains("unreachable").then_some(())
    });
    server.restart();
    wait_for("the watcher to say the store is back", || {
        said().contains("the store answers again").then_some(())
    });
    assert_eq!(said().matches("unreachable").count(), 1, "{}", said());

    // And it delivers again: a message from host A arrives once.
    let out = on(
        &a,
        &server,
        "host-a",
        &[
            "msg",
            "agent-0",
            "INFO",
            "after the outage",
            "--from",
            "operator",
        ],
    );
    assert_eq!(out.status.code(), Some(7), "{out:?}");
    let got = wait_for_records(&rec, 1);
    assert!(
        got[0]["text"]
            .as_str()
            .is_some_and(|t| typed_as(t, "INFO", "after the outage"))
    );
}
