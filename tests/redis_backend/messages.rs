//! Messages on a Redis store: one swarm's rate limits, threads, search and
//! topics on every host; a message, a broadcast's share, a printed line
//! and a notification reach another host's agents or person exactly once,
//! and acknowledged messages survive kill -9.

use std::process::Stdio;

use crate::harness::redis_server::RedisServer;
use crate::harness::{
    Project, TmuxServer, records, stdout_json, swarm_process, typed_as, wait_for, wait_for_records,
};

use super::{Watcher, on, on_tmux, swarm_on, two_hosts};

#[test]
fn a_senders_rate_limit_counts_its_sends_from_every_host() {
    let server = RedisServer::start();
    let (a, b) = two_hosts(&server);
    let send = |project: &Project, host: &str, text: &str| {
        swarm_on(project, &server, host, None)
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

#[test]
fn threads_search_and_topics_are_one_swarms_on_every_host() {
    let server = RedisServer::start();
    let (a, b) = two_hosts(&server);
    let json = |project: &Project, host: &str, args: &[&str]| -> serde_json::Value {
        let out = on(project, &server, host, args);
        assert!(
            matches!(out.status.code(), Some(0 | 7)),
            "{args:?}: {out:?}"
        );
        serde_json::from_slice(&out.stdout).expect("json")
    };
    let asked = json(
        &a,
        "host-a",
        &[
            "msg",
            "agent-2",
            "QUESTION",
            "--from",
            "agent-1",
            "which schema?",
            "--json",
        ],
    );
    let question = asked["msg_id"].as_str().expect("id").to_owned();
    // Host B answers by a beginning of the id: its own index, built from
    // the server's stream, knows the message.
    let replied = json(
        &b,
        "host-b",
        &[
            "msg",
            "agent-1",
            "INFO",
            "--from",
            "agent-2",
            "--reply-to",
            &question[..8],
            "schema v2",
            "--json",
        ],
    );
    assert_eq!(replied["parent_msg_id"], question.as_str());
    let answer = replied["msg_id"].as_str().expect("id").to_owned();
    // Host A's index catches up with what B appended.
    let thread = json(&a, "host-a", &["thread", &answer, "--json"]);
    let ids: Vec<&str> = thread["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .map(|m| m["msg_id"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(ids, [question.as_str(), answer.as_str()]);
    let found = json(
        &a,
        "host-a",
        &["search", "schema", "--from", "agent-2", "--json"],
    );
    assert_eq!(found["messages"][0]["msg_id"], answer.as_str());
    // The index is each host's own file; the subscriptions are the server's.
    assert!(a.file(".swarm/message_index.sqlite3").exists());
    let out = on(
        &b,
        &server,
        "host-b",
        &["subscribe", "deploys", "--agent", "agent-2"],
    );
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let topics = json(&a, "host-a", &["topics", "--json"]);
    assert_eq!(topics["topics"]["deploys"], serde_json::json!(["agent-2"]));
    assert!(!a.file(".swarm/subscriptions.json").exists());
    assert!(!b.file(".swarm/subscriptions.json").exists());
}

#[test]
fn a_message_to_an_agent_on_another_host_is_typed_in_there_exactly_once() {
    let server = RedisServer::start();
    let (tmux_a, tmux_b) = (TmuxServer::start(), TmuxServer::start());
    let (a, b) = (Project::new(), Project::new());
    let rec_a = a.file("rec.jsonl");
    let rec_b = b.file("rec.jsonl");
    tmux_a.demo_agent(&a.path(), &rec_a);
    tmux_b.demo_agent(&b.path(), &rec_b);
    // Each host discovers its own pane; ids are unique across both.
    let out = on_tmux(&a, &server, &tmux_a, "host-a", &["discover"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let out = on_tmux(&b, &server, &tmux_b, "host-b", &["discover"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("Registry saved to: unix://"),
        "{out:?}"
    );
    // Doctor on A sees both agents on the server and checks only its own
    // pane (B's is not on A's tmux server).
    let doctor = on_tmux(&a, &server, &tmux_a, "host-a", &["doctor"]);
    let said = String::from_utf8_lossy(&doctor.stdout);
    assert_eq!(doctor.status.code(), Some(0), "{said}");
    assert!(said.contains("2 agent(s), 1 on this host"), "{said}");
    assert!(
        said.contains("all 1 registered agent pane(s) exist"),
        "{said}"
    );
    assert!(!said.contains("ACTIVE_AGENTS.json"), "{said}");
    let listed = on_tmux(&b, &server, &tmux_b, "host-b", &["agents", "--json"]);
    let agents = stdout_json(&listed);
    let hosts: Vec<(String, String, String)> = agents
        .as_array()
        .expect("a list")
        .iter()
        .map(|a| {
            (
                a["id"].as_str().expect("id").to_owned(),
                a["host"].as_str().expect("host").to_owned(),
                a["state"].as_str().expect("state").to_owned(),
            )
        })
        .collect();
    assert_eq!(
        hosts,
        [
            ("agent-1".to_owned(), "host-b".to_owned(), "idle".to_owned()),
            (
                "agent-0".to_owned(),
                "host-a".to_owned(),
                "remote".to_owned()
            ),
        ]
    );

    // Each send from A hands the message over: exit 7, not typed in yet.
    let send = |kind: &str, text: &str| {
        let out = on_tmux(
            &a,
            &server,
            &tmux_a,
            "host-a",
            &["msg", "agent-1", kind, text, "--from", "agent-0"],
        );
        assert_eq!(out.status.code(), Some(7), "{out:?}");
        out
    };
    // Sent on A while no watcher runs on B: it waits in agent-1's inbox.
    let payload = "needs `src/auth.py` \"now\"; $(touch pwned) ünïcödé";
    let out = send("BLOCKED", payload);
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        said.contains("on host host-b") && said.contains("swarm watch"),
        "{said}"
    );
    assert!(records(&rec_b).is_empty() && records(&rec_a).is_empty());
    let inbox = on_tmux(
        &b,
        &server,
        &tmux_b,
        "host-b",
        &["inbox", "--agent", "agent-1", "--json"],
    );
    assert!(
        String::from_utf8_lossy(&inbox.stdout).contains("pwned"),
        "{inbox:?}"
    );

    // A redelivery from A before B took it adds nothing there.
    let out = on_tmux(
        &a,
        &server,
        &tmux_a,
        "host-a",
        &["redeliver", "--all-queued"],
    );
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("already waits there"),
        "{out:?}"
    );

    // Two watchers on B: the message is typed in once, byte for byte.
    let _w1 = Watcher::start(&b, &server, &tmux_b, "host-b");
    let _w2 = Watcher::start(&b, &server, &tmux_b, "host-b");
    let got = wait_for_records(&rec_b, 1);
    let text = got[0]["text"].as_str().expect("text");
    assert!(text.starts_with("[agent-0]["), "{text}");
    assert!(typed_as(text, "BLOCKED", payload), "{text}");
    // Its outcome reaches the log every host reads.
    wait_for("the outcome from host B in the shared log", || {
        let out = on_tmux(
            &a,
            &server,
            &tmux_a,
            "host-a",
            &["inbox", "--agent", "agent-1", "--json"],
        );
        let v = stdout_json(&out);
        (v["messages"][0]["delivered_to_pane"] == true).then_some(())
    });
    // A second message while the watchers run arrives as its own turn.
    send("INFO", "second");
    let got = wait_for_records(&rec_b, 2);
    assert!(
        got[1]["text"]
            .as_str()
            .is_some_and(|t| typed_as(t, "INFO", "second"))
    );
    // Nothing more comes: a marker message sent after them is the third.
    send("INFO", "marker");
    let got = wait_for_records(&rec_b, 3);
    assert!(
        got[2]["text"]
            .as_str()
            .is_some_and(|t| typed_as(t, "INFO", "marker"))
    );
    assert_eq!(records(&rec_b).len(), 3, "each exactly once");
    assert!(records(&rec_a).is_empty(), "nothing typed on host A");
}

#[test]
fn acknowledged_messages_and_acks_survive_kill_9_once_each() {
    let mut server = RedisServer::start_durable();
    let tmux_b = TmuxServer::start();
    let (a, b) = (Project::new(), Project::new());
    let rec = b.file("rec.jsonl");
    tmux_b.demo_agent(&b.path(), &rec);
    let out = on_tmux(&b, &server, &tmux_b, "host-b", &["discover"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    // Sent from host A with an acknowledgement asked for, while host B
    // runs no watcher: logged, pending, handed over; then the server dies.
    let out = on(
        &a,
        &server,
        "host-a",
        &[
            "msg",
            "agent-0",
            "QUESTION",
            "which schema?",
            "--ack",
            "--from",
            "operator",
            "--json",
        ],
    );
    assert_eq!(out.status.code(), Some(7), "{out:?}");
    let id = stdout_json(&out)["msg_id"]
        .as_str()
        .expect("an id")
        .to_owned();
    server.kill9();
    server.restart();

    // Nothing lost, nothing doubled: one message in the inbox, one
    // pending ACK, and one delivery once B's watcher runs.
    let inbox = on(
        &b,
        &server,
        "host-b",
        &["inbox", "--agent", "agent-0", "--json"],
    );
    let messages = stdout_json(&inbox)["messages"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let ids: Vec<&str> = messages
        .iter()
        .filter_map(|m| m["msg_id"].as_str())
        .collect();
    assert_eq!(ids, [id.as_str()], "{inbox:?}");
    let acks = on(&a, &server, "host-a", &["acks", "--json"]);
    let pending = stdout_json(&acks);
    let pending: Vec<&str> = pending
        .as_array()
        .expect("a list")
        .iter()
        .filter_map(|p| p["msg_id"].as_str())
        .collect();
    assert_eq!(pending, [id.as_str()]);
    let _watcher = Watcher::start(&b, &server, &tmux_b, "host-b");
    let got = wait_for_records(&rec, 1);
    assert!(
        got[0]["text"]
            .as_str()
            .expect("text")
            .contains("which schema?")
    );
    // The agent answers from host B; the ACK is gone for everyone.
    let out = on(
        &b,
        &server,
        "host-b",
        &["ack", &id[..8], "--agent", "agent-0"],
    );
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let acks = on(&a, &server, "host-a", &["acks", "--json"]);
    assert_eq!(stdout_json(&acks), serde_json::json!([]), "{acks:?}");
    assert_eq!(records(&rec).len(), 1, "typed in once");
}

/// The delivery records (`event: delivery`) in the swarm `shared`'s log
/// on `server` whose note names host `from`, as (message id, recipients).
fn deliveries_from(server: &RedisServer, from: &str) -> Vec<(String, Vec<String>)> {
    let mut c = server.connection();
    let entries: Vec<(String, Vec<(String, String)>)> = redis::cmd("XRANGE")
        .arg("{swarm:shared}:log")
        .arg("-")
        .arg("+")
        .query(&mut c)
        .expect("XRANGE");
    entries
        .into_iter()
        .flat_map(|(_, fields)| fields)
        .filter_map(|(_, line)| serde_json::from_str::<serde_json::Value>(&line).ok())
        .filter(|r| {
            r["event"] == "delivery"
                && r["note"]
                    .as_str()
                    .is_some_and(|n| n.contains(&format!("from host {from}")))
        })
        .map(|r| {
            let who = r["outcomes"]
                .as_object()
                .map(|o| o.keys().cloned().collect())
                .unwrap_or_default();
            (r["msg_id"].as_str().unwrap_or_default().to_owned(), who)
        })
        .collect()
}

#[test]
fn a_broadcast_s_share_for_another_host_goes_in_there_as_one_fan_out() {
    let server = RedisServer::start();
    let (tmux_a, tmux_b) = (TmuxServer::start(), TmuxServer::start());
    let (a, b) = (Project::new(), Project::new());
    let rec_a = a.file("rec.jsonl");
    tmux_a.demo_agent(&a.path(), &rec_a);
    let recs: Vec<_> = (0..3).map(|i| b.file(&format!("rec-{i}.jsonl"))).collect();
    for r in &recs {
        tmux_b.demo_agent(&b.path(), r);
    }
    let out = on_tmux(&a, &server, &tmux_a, "host-a", &["discover"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let out = on_tmux(&b, &server, &tmux_b, "host-b", &["discover"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");

    // Sent on A while no watcher runs on B: all three wait for B.
    let out = on_tmux(
        &a,
        &server,
        &tmux_a,
        "host-a",
        &["broadcast", "INFO", "to everyone", "--from", "agent-0"],
    );
    assert_eq!(out.status.code(), Some(7), "{out:?}");
    assert!(recs.iter().all(|r| records(r).is_empty()));

    // Two watchers on B: each agent gets it once, and B typed the three
    // in one go (one delivery record with the three outcomes), not one
    // after another.
    let _w1 = Watcher::start(&b, &server, &tmux_b, "host-b");
    let _w2 = Watcher::start(&b, &server, &tmux_b, "host-b");
    for r in &recs {
        let got = wait_for_records(r, 1);
        assert!(
            got[0]["text"]
                .as_str()
                .expect("text")
                .ends_with("]: to everyone"),
            "{got:?}"
        );
    }
    let records_from_a = wait_for("B's outcomes in the shared log", || {
        let d = deliveries_from(&server, "host-a");
        (d.iter().map(|(_, who)| who.len()).sum::<usize>() >= 3).then_some(d)
    });
    assert_eq!(records_from_a.len(), 1, "{records_from_a:?}");
    let mut who = records_from_a[0].1.clone();
    who.sort();
    assert_eq!(who, ["agent-1", "agent-2", "agent-3"]);

    // Nothing more comes: a marker message after it is each one's second.
    let out = on_tmux(
        &a,
        &server,
        &tmux_a,
        "host-a",
        &["broadcast", "INFO", "marker", "--from", "agent-0"],
    );
    assert_eq!(out.status.code(), Some(7), "{out:?}");
    for r in &recs {
        let got = wait_for_records(r, 2);
        assert!(
            got[1]["text"]
                .as_str()
                .expect("text")
                .ends_with("]: marker")
        );
        assert_eq!(records(r).len(), 2, "each exactly once");
    }
    assert!(records(&rec_a).is_empty(), "nothing typed on host A");
}

/// How many submissions recorded in `rec` hold `text`.
fn submissions_with(rec: &std::path::Path, text: &str) -> usize {
    records(rec)
        .iter()
        .filter(|r| r["text"].as_str().is_some_and(|t| t.contains(text)))
        .count()
}

#[test]
fn a_printed_line_is_sent_once_by_two_watchers_on_redis() {
    let server = RedisServer::start();
    let tmux = TmuxServer::start();
    let project = Project::new();
    let (rec0, rec1) = (project.file("rec0.jsonl"), project.file("rec1.jsonl"));
    let printer = tmux.demo_agent(&project.path(), &rec0);
    tmux.demo_agent(&project.path(), &rec1);
    let out = on_tmux(&project, &server, &tmux, "h1", &["discover"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let _a = Watcher::start(&project, &server, &tmux, "h1");
    let _b = Watcher::start(&project, &server, &tmux, "h1");
    let print = |text: &str| {
        tmux.tmux(&["send-keys", "-t", &printer, "-l", "--", text]);
        tmux.tmux(&["send-keys", "-t", &printer, "Enter"]);
    };
    print("DEMOPRINT @swarm:* first broadcast");
    wait_for("the broadcast", || {
        (submissions_with(&rec1, "]: first broadcast") >= 1).then_some(())
    });
    // The notice is in before the next prompt is typed there.
    wait_for("the notice", || {
        (submissions_with(&rec0, "sent to everyone as ") >= 1).then_some(())
    });
    print("DEMOPRINT @swarm:* second broadcast");
    wait_for("the second broadcast", || {
        (submissions_with(&rec1, "]: second broadcast") >= 1).then_some(())
    });
    wait_for("the second notice", || {
        (submissions_with(&rec0, "sent to everyone as ") >= 2).then_some(())
    });
    assert_eq!(submissions_with(&rec1, "]: first broadcast"), 1);
    assert_eq!(submissions_with(&rec1, "]: second broadcast"), 1);
    assert_eq!(submissions_with(&rec0, "]: first broadcast"), 0);
    assert_eq!(submissions_with(&rec0, "sent to everyone as "), 2);
    // The claims are on the server, not in the checkout.
    assert!(!project.file(".swarm/printed.json").exists());
}

/// A `swarm watch` of host `host` with `url` as its webhook, writing to
/// `log`, stopped when dropped.
fn watcher_with_webhook(
    project: &Project,
    server: &RedisServer,
    tmux: &TmuxServer,
    host: &str,
    url: &str,
    log: &std::path::Path,
) -> Watcher {
    let file = std::fs::File::create(log).expect("log file");
    let copy = file.try_clone().expect("log file");
    let child = swarm_process(project, Some(tmux))
        .envs(server.store_env("shared"))
        .env("SWARM_STORE_HOST", host)
        .env("SWARM_NOTIFY_WEBHOOK", url)
        .stdin(Stdio::null())
        .stdout(Stdio::from(file))
        .stderr(Stdio::from(copy))
        .args(["watch", "--interval", "3600"])
        .spawn()
        .expect("start swarm watch");
    Watcher(child)
}

#[test]
fn watchers_on_two_hosts_notify_a_message_to_the_person_once() {
    let server = RedisServer::start();
    let (tmux_a, tmux_b) = (TmuxServer::start(), TmuxServer::start());
    let (a, b) = (Project::new(), Project::new());
    tmux_a.demo_agent(&a.path(), &a.file("rec.jsonl"));
    tmux_b.demo_agent(&b.path(), &b.file("rec.jsonl"));
    for (p, t, host) in [(&a, &tmux_a, "host-a"), (&b, &tmux_b, "host-b")] {
        let out = on_tmux(p, &server, t, host, &["discover"]);
        assert_eq!(out.status.code(), Some(0), "{out:?}");
    }
    let (port, received) = crate::harness::http::http_server(&[200, 200, 200]);
    let url = format!("http://127.0.0.1:{port}/hook");
    let (log_a, log_b) = (a.file("watch.log"), b.file("watch.log"));
    let _wa = watcher_with_webhook(&a, &server, &tmux_a, "host-a", &url, &log_a);
    let _wb = watcher_with_webhook(&b, &server, &tmux_b, "host-b", &url, &log_b);
    for log in [&log_a, &log_b] {
        wait_for("both watchers to start", || {
            std::fs::read_to_string(log)
                .unwrap_or_default()
                .contains("Watching")
                .then_some(())
        });
    }
    // Two messages to the person, one from each host: each is notified
    // once, by one of the two watchers that read the shared feed.
    let from = |p: &Project, t: &TmuxServer, host: &str, id: &str, text: &str| {
        let out = on_tmux(
            p,
            &server,
            t,
            host,
            &["msg", "operator", "INFO", text, "--from", id],
        );
        assert_eq!(out.status.code(), Some(0), "{out:?}");
    };
    // A discovered first: its pane is agent-0, B's agent-1.
    from(&a, &tmux_a, "host-a", "agent-0", "first from A");
    let got = received
        .recv_timeout(crate::harness::PATIENCE)
        .expect("a notice");
    assert!(
        got.json()["detail"]
            .as_str()
            .unwrap_or_default()
            .contains("first from A")
    );
    from(&b, &tmux_b, "host-b", "agent-1", "then from B");
    let got = received
        .recv_timeout(crate::harness::PATIENCE)
        .expect("a notice");
    let body = got.json();
    assert!(
        body["detail"]
            .as_str()
            .unwrap_or_default()
            .contains("then from B"),
        "the second notice was not the second message (a notice sent twice?): {body}"
    );
}
