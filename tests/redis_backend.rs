//! The Redis backend through the real `swarm` binary: two project
//! checkouts with different host names share one private redis-server.

use std::process::{Output, Stdio};

use crate::harness::redis_server::RedisServer;
use crate::harness::{
    Project, TmuxServer, records, stdout_json, swarm, swarm_outside_tmux, swarm_process, typed_as,
    wait_for, wait_for_records,
};

/// `swarm` in `project` as host `host` of the swarm `shared` on `server`,
/// talking to the tmux server `tmux` when given.
fn swarm_on(
    project: &Project,
    server: &RedisServer,
    host: &str,
    tmux: Option<&TmuxServer>,
) -> assert_cmd::Command {
    let mut cmd = match tmux {
        Some(t) => swarm(project, t),
        None => swarm_outside_tmux(project),
    };
    cmd.envs(server.store_env("shared"))
        .env("SWARM_STORE_HOST", host);
    cmd
}

/// `swarm ARGS...` in `project` as host `host` of the swarm `shared` on
/// `server`.
fn on(project: &Project, server: &RedisServer, host: &str, args: &[&str]) -> Output {
    swarm_on(project, server, host, None)
        .args(args)
        .output()
        .expect("run swarm")
}

/// True when the checkout has no lock file (its lock directory may not
/// even exist).
fn no_lock_files(project: &Project) -> bool {
    !project.file(".agent_locks").exists() || project.ls(".agent_locks").is_empty()
}

/// Two checkouts of one swarm: agent-1 registered on host A, agent-2 on
/// host B, each moved onto the server with `swarm store migrate`.
fn two_hosts(server: &RedisServer) -> (Project, Project) {
    let a = Project::new();
    let b = Project::new();
    a.register(&["agent-1"]);
    b.register(&["agent-2"]);
    let out = on(&a, server, "host-a", &["store", "migrate", "--to", "redis"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    // The server is no longer empty: B adds to it only when told.
    let out = on(&b, server, "host-b", &["store", "migrate", "--to", "redis"]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("already holds agent registry"),
        "{out:?}"
    );
    let out = on(
        &b,
        server,
        "host-b",
        &["store", "migrate", "--to", "redis", "--force"],
    );
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    (a, b)
}

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

/// `swarm ARGS...` in `project` as host `host`, on the tmux server `tmux`.
fn on_tmux(
    project: &Project,
    server: &RedisServer,
    tmux: &TmuxServer,
    host: &str,
    args: &[&str],
) -> Output {
    swarm_on(project, server, host, Some(tmux))
        .args(args)
        .output()
        .expect("run swarm")
}

/// A `swarm watch` of host `host`, stopped when dropped.
struct Watcher(std::process::Child);

impl Watcher {
    fn start(project: &Project, server: &RedisServer, tmux: &TmuxServer, host: &str) -> Watcher {
        let args = ["watch", "--interval", "3600"];
        Watcher::spawn(
            project,
            server,
            tmux,
            host,
            &args,
            Stdio::null(),
            Stdio::null(),
        )
    }

    /// `swarm ARGS...` (a watch or a monitor) whose output (stdout and
    /// stderr) goes to `log`.
    fn logged(
        project: &Project,
        server: &RedisServer,
        tmux: &TmuxServer,
        host: &str,
        args: &[&str],
        log: &std::path::Path,
    ) -> Watcher {
        let file = std::fs::File::create(log).expect("log file");
        let copy = file.try_clone().expect("log file");
        Watcher::spawn(project, server, tmux, host, args, file.into(), copy.into())
    }

    fn spawn(
        project: &Project,
        server: &RedisServer,
        tmux: &TmuxServer,
        host: &str,
        args: &[&str],
        stdout: Stdio,
        stderr: Stdio,
    ) -> Watcher {
        let child = swarm_process(project, Some(tmux))
            .envs(server.store_env("shared"))
            .env("SWARM_STORE_HOST", host)
            .stdin(Stdio::null())
            .stdout(stdout)
            .stderr(stderr)
            .args(args)
            .spawn()
            .expect("start swarm watch");
        Watcher(child)
    }
}

impl Drop for Watcher {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
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

/// A `swarm monitor --plain` on one host of the swarm `shared`, its lines
/// read as they come.
struct PlainMonitor {
    child: std::process::Child,
    lines: std::sync::mpsc::Receiver<String>,
    seen: Vec<String>,
}

impl PlainMonitor {
    fn start(project: &Project, server: &RedisServer, host: &str) -> PlainMonitor {
        let mut child = swarm_process(project, None)
            .envs(server.store_env("shared"))
            .env("SWARM_STORE_HOST", host)
            .env("NO_COLOR", "1")
            .args(["monitor", "--plain"])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start swarm monitor");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            use std::io::BufRead;
            for line in std::io::BufReader::new(stdout).lines() {
                let Ok(line) = line else { return };
                if tx.send(line).is_err() {
                    return;
                }
            }
        });
        PlainMonitor {
            child,
            lines,
            seen: Vec::new(),
        }
    }

    /// Waits for a line holding `text`.
    fn expect(&mut self, text: &str) -> String {
        let (lines, seen) = (&self.lines, &mut self.seen);
        wait_for(&format!("a monitor line with {text:?}"), || {
            seen.extend(lines.try_iter());
            seen.iter().find(|l| l.contains(text)).cloned()
        })
    }
}

impl Drop for PlainMonitor {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn the_monitor_on_one_host_shows_the_locks_and_messages_of_another() {
    let server = RedisServer::start();
    let (a, b) = two_hosts(&server);
    let mut monitor = PlainMonitor::start(&a, &server, "host-a");
    monitor.expect("watching");
    // A lock lives on the server alone: no file event announces it on A.
    let out = on(
        &b,
        &server,
        "host-b",
        &["lock", "src/b.py", "--agent", "agent-2"],
    );
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let line = monitor.expect("taken by agent-2");
    assert!(line.contains("src/b.py"), "{line}");
    let out = on(
        &b,
        &server,
        "host-b",
        &[
            "msg",
            "agent-1",
            "INFO",
            "written on host b",
            "--from",
            "agent-2",
        ],
    );
    // Agent-1's pane is not running (exit 7, kept in its inbox): the
    // message is logged either way.
    assert!(matches!(out.status.code(), Some(0 | 7)), "{out:?}");
    let line = monitor.expect("written on host b");
    assert!(line.starts_with("[agent-2]"), "{line}");
    let out = on(
        &b,
        &server,
        "host-b",
        &["unlock", "src/b.py", "--agent", "agent-2"],
    );
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    monitor.expect("released");
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
