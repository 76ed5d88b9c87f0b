//! Locks on a Redis store: one host's lock blocks the other's, with a
//! growing token; acknowledged locks survive kill -9; shared locks and
//! leases keep their rules across hosts.

use std::process::Output;

use crate::harness::redis_server::RedisServer;
use crate::harness::{stdout_json, wait_for};

use super::{no_lock_files, on, two_hosts};

#[test]
fn a_lock_taken_on_one_host_blocks_the_other_and_carries_a_growing_token() {
    let server = RedisServer::start();
    let (a, b) = two_hosts(&server);
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
fn acknowledged_locks_survive_kill_9_and_tokens_never_repeat() {
    let mut server = RedisServer::start_durable();
    let (a, b) = two_hosts(&server);
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

/// Every event of the swarm `shared`'s audit stream, as (event, path).
fn audit_events(server: &RedisServer) -> Vec<(String, String)> {
    let entries: Vec<(String, Vec<(String, String)>)> = redis::cmd("XRANGE")
        .arg("{swarm:shared}:audit")
        .arg("-")
        .arg("+")
        .query(&mut server.connection())
        .expect("read the audit stream");
    entries
        .into_iter()
        .flat_map(|(_, fields)| fields)
        .filter(|(f, _)| f == "event")
        .map(|(_, v)| {
            let e: serde_json::Value = serde_json::from_str(&v).expect("an event is JSON");
            let s = |k: &str| e[k].as_str().unwrap_or_default().to_owned();
            (s("event"), s("path"))
        })
        .collect()
}

#[test]
fn shared_locks_and_leases_keep_their_rules_across_hosts() {
    let server = RedisServer::start();
    let (a, b) = two_hosts(&server);
    let code = |out: &Output| out.status.code();
    let err = |out: &Output| String::from_utf8_lossy(&out.stderr).into_owned();
    let as_1 = |args: &[&str]| {
        on(
            &a,
            &server,
            "host-a",
            &[args, &["--agent", "agent-1"]].concat(),
        )
    };
    let as_2 = |args: &[&str]| {
        on(
            &b,
            &server,
            "host-b",
            &[args, &["--agent", "agent-2"]].concat(),
        )
    };

    // Readers on two hosts share a path; a writer is refused, naming the
    // other reader, through a pattern too.
    assert_eq!(code(&as_1(&["lock", "src/api.py", "--shared"])), Some(0));
    let joined = as_2(&["lock", "src/api.py", "--shared"]);
    assert_eq!(code(&joined), Some(0), "{joined:?}");
    assert!(String::from_utf8_lossy(&joined.stdout).contains("Shared with: agent-1"));
    let refused = as_2(&["lock", "src/*.py"]);
    assert_eq!(code(&refused), Some(3), "{refused:?}");
    assert!(err(&refused).contains("agent-1") && err(&refused).contains("shared"));
    assert_eq!(code(&as_1(&["lock", "src", "--shared"])), Some(0));
    let who = stdout_json(&on(&b, &server, "host-b", &["who", "src/api.py", "--json"]));
    let exact = &who["locks"][0];
    assert_eq!(exact["shared"], true, "{who}");
    assert_eq!(exact["holders"].as_array().map(Vec::len), Some(2), "{who}");
    assert!(exact["fence"].as_u64().is_some(), "{who}");

    // agent-1 leaves the path but still reads the directory: no upgrade.
    let left = as_1(&["unlock", "src/api.py"]);
    assert!(String::from_utf8_lossy(&left.stdout).contains("Still shared by: agent-2"));
    assert_eq!(code(&as_2(&["lock", "src/api.py"])), Some(3));
    assert_eq!(code(&as_1(&["unlock", "src"])), Some(0));
    assert_eq!(code(&as_2(&["lock", "src/api.py"])), Some(0), "alone now");
    let refused = as_1(&["lock", "src/api.py", "--shared"]);
    assert_eq!(code(&refused), Some(3), "a writer refuses readers");

    // Leases, judged by the server's clock: the one that ended stops
    // nobody, the renewed one holds, only a holder renews.
    for path in ["lease/x.py", "lease/kept.py", "lease/witness.py"] {
        assert_eq!(code(&as_1(&["lock", path, "--ttl", "3s"])), Some(0));
    }
    let renewed = as_1(&["lock", "lease/kept.py", "--renew", "--ttl", "1h"]);
    assert_eq!(code(&renewed), Some(0), "{renewed:?}");
    wait_for("the witness lease to end", || {
        let out = as_2(&["lock", "lease/witness.py"]);
        match code(&out) {
            Some(0) => Some(()),
            Some(3) => None,
            other => panic!("{other:?}: {out:?}"),
        }
    });
    assert_eq!(code(&as_2(&["lock", "lease/x.py"])), Some(0));
    let held = as_2(&["lock", "lease/kept.py"]);
    assert_eq!(code(&held), Some(3), "{held:?}");
    let theirs = as_1(&["lock", "lease/x.py", "--renew"]);
    assert_eq!(code(&theirs), Some(3), "{theirs:?}");
    assert!(err(&theirs).contains("held by agent-2"), "{}", err(&theirs));
    let events = audit_events(&server);
    for (event, path) in [
        ("lease-renewed", "lease/kept.py"),
        ("lease-expired", "lease/x.py"),
        ("lease-expired", "lease/witness.py"),
    ] {
        assert!(
            events.iter().any(|(e, p)| e == event && p == path),
            "{event} {path}: {events:?}"
        );
    }
    // Nothing reached either checkout's lock files.
    assert!(no_lock_files(&a) && no_lock_files(&b));
}
