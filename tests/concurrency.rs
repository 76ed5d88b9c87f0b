//! Many processes at once: 16 workers mix messages, broadcasts, ACKs, file
//! locks and discovery against 8 demo agents for a fixed number of
//! operations. Afterwards every log line parses, every message is in its
//! recipients' records exactly once or queued there with a reason, no
//! file lock ever had two holders, and no acknowledgement was lost or
//! retried. The same run on both stores: the state files, and a private
//! redis-server.

use std::collections::HashMap;
use std::process::Output;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use serde_json::Value;

use crate::harness::redis_server::RedisServer;
use crate::harness::{Project, TmuxServer, swarm, wait_for_records};

const WORKERS: usize = 16;
const OPS: usize = 25;
const AGENTS: usize = 8;
const PATHS: usize = 3;

/// What the workers observed.
#[derive(Default)]
struct Seen {
    /// Message id -> (recipients, body).
    sent: HashMap<String, (Vec<String>, String)>,
    /// Per path: (held from, held until) as observed by the holder.
    holds: HashMap<usize, Vec<(f64, f64, usize)>>,
    /// ACK-requiring messages: id -> acknowledged by the worker?
    acks: HashMap<String, bool>,
    ops: usize,
}

struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

fn json(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or(Value::Null)
}

/// The swarm's name on the server, for the Redis run.
const SWARM: &str = "conc";

/// `cmd` pointed at `redis` (the files when `None`).
fn on_store<'c>(
    cmd: &'c mut assert_cmd::Command,
    redis: Option<&RedisServer>,
) -> &'c mut assert_cmd::Command {
    if let Some(r) = redis {
        cmd.envs(r.store_env(SWARM));
    }
    cmd
}

/// Every line of the message log, wherever the store keeps it.
fn log_lines(project: &Project, redis: Option<&RedisServer>) -> String {
    let Some(r) = redis else {
        return project.read("agent_messages.log");
    };
    let entries: Vec<(String, Vec<(String, String)>)> = redis::cmd("XRANGE")
        .arg(format!("{{swarm:{SWARM}}}:log"))
        .arg("-")
        .arg("+")
        .query(&mut r.connection())
        .expect("read the log stream");
    let mut text = String::new();
    for (_, fields) in entries {
        for (f, v) in fields {
            if f == "r" {
                text.push_str(&v);
                text.push('\n');
            }
        }
    }
    text
}

#[test]
fn sixteen_workers_mixing_every_operation_lose_and_duplicate_nothing() {
    sixteen_workers(None);
}

#[cfg(feature = "redis")]
#[test]
fn sixteen_workers_on_redis_lose_and_duplicate_nothing() {
    let redis = RedisServer::start();
    sixteen_workers(Some(&redis));
}

fn sixteen_workers(redis: Option<&RedisServer>) {
    let server = TmuxServer::start();
    let project = Project::new();
    for i in 0..AGENTS {
        server.demo_agent(&project.path(), &project.file(&format!("rec-{i}.jsonl")));
    }
    // ACKs are not due during the run: any retry would be a bug.
    project.write(
        ".claudeswarm.toml",
        "[rate_limiting]\nmessages_per_minute = 1000\n\n[messaging]\ndelivery_pause_ms = 20\n\n[acks]\ntimeout_seconds = 300\n\n[discovery]\nstale_threshold = 3600\n",
    );
    // The workers are registered agents too (in the harness's pane, where
    // no agent runs: discovery keeps them as stale). On Redis they are
    // moved there with `swarm store migrate`.
    let workers: Vec<String> = (0..WORKERS).map(|w| format!("worker-{w}")).collect();
    if redis.is_some() {
        project.register_in(
            &workers.iter().map(String::as_str).collect::<Vec<_>>(),
            Some(&server.pane_ids()[0]),
        );
        on_store(&mut swarm(&project, &server), redis)
            .args(["store", "migrate", "--to", "redis"])
            .assert()
            .success();
    }
    on_store(&mut swarm(&project, &server), redis)
        .arg("discover")
        .assert()
        .success();
    if redis.is_none() {
        project.register_in(
            &workers.iter().map(String::as_str).collect::<Vec<_>>(),
            Some(&server.pane_ids()[0]),
        );
    }
    let redis_env = redis.map(|r| r.store_env(SWARM)).unwrap_or_default();
    let started = Instant::now();
    let seen = Arc::new(Mutex::new(Seen::default()));
    let project = Arc::new(project);
    let socket = server.socket.clone();
    let workers: Vec<_> = (0..WORKERS)
        .map(|w| {
            let seen = Arc::clone(&seen);
            let project = Arc::clone(&project);
            let socket = socket.clone();
            let redis_env = redis_env.clone();
            std::thread::spawn(move || {
                let run = |args: &[&str]| -> Output {
                    let mut cmd = assert_cmd::Command::new(crate::harness::swarm_bin());
                    cmd.current_dir(project.path())
                        .env_remove("TMUX")
                        .env_remove("TMUX_PANE")
                        .env("SWARM_TMUX_SOCKET", &socket)
                        .env("NO_COLOR", "1")
                        .envs(redis_env.iter().map(|(k, v)| (k, v)))
                        .args(args);
                    cmd.output().expect("run swarm")
                };
                let now = || started.elapsed().as_secs_f64();
                let me = format!("worker-{w}");
                let mut rng = Rng(0x9e37_79b9_7f4a_7c15 ^ ((w as u64 + 1) * 0x1000_0001));
                for op in 0..OPS {
                    // Delimited, so that no body is part of another.
                    let body = format!("<{me} op {op}>");
                    match rng.below(10) {
                        0..=3 => {
                            let to = format!("agent-{}", rng.below(AGENTS));
                            let out = run(&["msg", &to, "INFO", "--from", &me, "--json", &body]);
                            let id = json(&out)["msg_id"].as_str().map(str::to_owned);
                            let id = id.unwrap_or_else(|| {
                                panic!("msg failed: {}", String::from_utf8_lossy(&out.stderr))
                            });
                            seen.lock().expect("seen").sent.insert(id, (vec![to], body));
                        }
                        4 => {
                            let out = run(&["broadcast", "INFO", "--from", &me, "--json", &body]);
                            let v = json(&out);
                            let id = v["msg_id"].as_str().expect("broadcast id").to_owned();
                            let to: Vec<String> = v["recipients"]
                                .as_array()
                                .expect("recipients")
                                .iter()
                                .map(|r| r.as_str().expect("id").to_owned())
                                .collect();
                            seen.lock().expect("seen").sent.insert(id, (to, body));
                        }
                        5 => {
                            let to = format!("agent-{}", rng.below(AGENTS));
                            let out = run(&[
                                "msg", &to, "QUESTION", "--ack", "--from", &me, "--json", &body,
                            ]);
                            let id = json(&out)["msg_id"].as_str().expect("ack id").to_owned();
                            let answer = rng.below(2) == 0;
                            if answer {
                                let ack = run(&["ack", &id[..8], "--agent", &to]);
                                assert!(
                                    ack.status.success(),
                                    "{}",
                                    String::from_utf8_lossy(&ack.stderr)
                                );
                            }
                            let mut s = seen.lock().expect("seen");
                            s.sent.insert(id.clone(), (vec![to], body));
                            s.acks.insert(id, answer);
                        }
                        6..=8 => {
                            let k = rng.below(PATHS);
                            let path = format!("src/shared-{k}.py");
                            let out = run(&["lock", &path, "--agent", &me, "--reason", &body]);
                            match out.status.code() {
                                Some(0) => {
                                    let from = now();
                                    std::thread::sleep(std::time::Duration::from_millis(
                                        rng.below(15) as u64,
                                    ));
                                    let until = now();
                                    seen.lock()
                                        .expect("seen")
                                        .holds
                                        .entry(k)
                                        .or_default()
                                        .push((from, until, w));
                                    let out = run(&["unlock", &path, "--agent", &me]);
                                    assert!(
                                        out.status.success(),
                                        "{}",
                                        String::from_utf8_lossy(&out.stderr)
                                    );
                                }
                                Some(3) => {}
                                other => panic!(
                                    "lock: {other:?}: {}",
                                    String::from_utf8_lossy(&out.stderr)
                                ),
                            }
                        }
                        _ => {
                            let out = run(&["discover"]);
                            assert!(
                                out.status.success(),
                                "{}",
                                String::from_utf8_lossy(&out.stderr)
                            );
                        }
                    }
                    seen.lock().expect("seen").ops += 1;
                }
            })
        })
        .collect();
    for w in workers {
        w.join().expect("worker");
    }
    let seen = seen.lock().expect("seen");
    assert_eq!(seen.ops, WORKERS * OPS);

    // Every log line parses; outcomes per message and recipient.
    let log = log_lines(&project, redis);
    if redis.is_some() {
        // Everything went to the server: the files hold no message, no
        // pending ACK and no lock.
        assert!(!log.is_empty());
        assert!(!project.file("agent_messages.log").exists());
        assert!(!project.file("PENDING_ACKS.json").exists());
        assert!(!project.file(".agent_locks").exists() || project.ls(".agent_locks").is_empty());
    }
    let mut outcome: HashMap<(String, String), Value> = HashMap::new();
    for line in log.lines() {
        let v: Value =
            serde_json::from_str(line).unwrap_or_else(|e| panic!("torn log line {line:?}: {e}"));
        if v["event"] == "delivery" {
            let id = v["msg_id"].as_str().expect("id").to_owned();
            for (r, o) in v["outcomes"].as_object().expect("outcomes") {
                outcome.insert((id.clone(), r.clone()), o.clone());
            }
        }
    }
    // Each message is in each recipient's record exactly once if it was
    // delivered, and queued there with a reason if not.
    // An agent records a submission when it reads the Enter, a moment
    // after `swarm msg` returns: wait for all of them first.
    let mut expected = [0usize; AGENTS];
    for ((_, r), o) in &outcome {
        if o["status"] == "delivered"
            && let Some(i) = r
                .strip_prefix("agent-")
                .and_then(|n| n.parse::<usize>().ok())
        {
            expected[i] += 1;
        }
    }
    let texts: Vec<Vec<String>> = (0..AGENTS)
        .map(|i| {
            let rec = wait_for_records(&project.file(&format!("rec-{i}.jsonl")), expected[i]);
            rec.iter()
                .map(|r| r["text"].as_str().unwrap_or_default().to_owned())
                .collect()
        })
        .collect();
    let mut delivered = 0;
    for (id, (to, body)) in &seen.sent {
        for r in to {
            let o = outcome
                .get(&(id.clone(), r.clone()))
                .unwrap_or_else(|| panic!("no outcome for {id} -> {r}"));
            let agent: usize = r["agent-".len()..].parse().expect("agent number");
            let count = texts[agent]
                .iter()
                .filter(|t| t.contains(body.as_str()))
                .count();
            match o["status"].as_str() {
                Some("delivered") => {
                    delivered += 1;
                    assert_eq!(count, 1, "{id} ({body}) reached {r} {count} times");
                }
                Some("queued") => {
                    assert!(
                        o["reason"].as_str().is_some_and(|s| !s.is_empty()),
                        "{id}: no reason"
                    );
                    assert_eq!(count, 0, "{id} queued for {r} but in its record");
                }
                other => panic!("{id} -> {r}: outcome {other:?}"),
            }
        }
    }
    assert!(delivered > 0);
    // No two holders of one path at once.
    for (k, holds) in &seen.holds {
        let mut holds = holds.clone();
        holds.sort_by(|a, b| a.0.total_cmp(&b.0));
        for pair in holds.windows(2) {
            assert!(
                pair[1].0 >= pair[0].1,
                "src/shared-{k}.py held by worker-{} and worker-{} at once",
                pair[0].2,
                pair[1].2
            );
        }
    }
    // ACKs: answered ones are gone and their sender got an ACK; the others
    // wait, never retried.
    let out = on_store(&mut swarm(&project, &server), redis)
        .args(["acks", "--json"])
        .output()
        .expect("acks");
    let pending: Vec<Value> = serde_json::from_slice(&out.stdout).expect("acks json");
    for (id, answered) in &seen.acks {
        let entry = pending.iter().find(|p| p["msg_id"] == id.as_str());
        if *answered {
            assert!(entry.is_none(), "{id} acknowledged but still pending");
            assert!(
                log.contains(&format!("ACK {id}")),
                "the ACK of {id} was lost"
            );
        } else {
            let entry = entry.unwrap_or_else(|| panic!("{id} lost from the pending list"));
            assert_eq!(entry["retry_count"], 0, "{id} retried");
        }
    }
    assert!(!log.contains("\"note\": \"retry"), "a retry was sent");
}
