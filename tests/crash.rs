//! Crash consistency: swarm processes killed with SIGKILL at random points
//! while they write the registry, the log and PENDING_ACKS.json. Every
//! state file must still parse and hold a complete version, and the temp
//! files a killed writer leaves are removed by the next command. The same
//! kills against a private redis-server: every value still parses, and
//! every message in the log that asks for an answer has its pending ACK
//! (the obligation is recorded first).

use std::fs;
use std::process::Stdio;
use std::time::Duration;

use serde_json::Value;

use crate::harness::redis_server::RedisServer;
use crate::harness::{Project, TmuxServer, swarm, swarm_process};

/// A small deterministic generator (xorshift), so a failing trial can be
/// replayed from the printed seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

fn check_state(project: &Project, trial: usize, seed: u64) {
    let ctx = format!("trial {trial} (seed {seed})");
    let registry: Value = serde_json::from_str(&project.read("ACTIVE_AGENTS.json"))
        .unwrap_or_else(|e| panic!("{ctx}: registry does not parse: {e}"));
    assert_eq!(registry["agents"][0]["id"], "agent-0", "{ctx}: {registry}");
    if let Ok(text) = fs::read_to_string(project.file("PENDING_ACKS.json")) {
        let pending: Value = serde_json::from_str(&text)
            .unwrap_or_else(|e| panic!("{ctx}: pending does not parse: {e}"));
        assert!(pending["pending_acks"].is_array(), "{ctx}: {pending}");
    }
    // Every segment of the log, live or rotated, holds whole lines only.
    for name in project.ls(".") {
        if !name.starts_with("agent_messages.log") {
            continue;
        }
        let text = project.read(&name);
        for line in text.lines() {
            serde_json::from_str::<Value>(line)
                .unwrap_or_else(|e| panic!("{ctx}: torn line {line:?} in {name}: {e}"));
        }
    }
    let pending = pending_ids(project);
    for id in logged_ack_requests(project) {
        assert!(
            pending.contains(&id),
            "{ctx}: {id} is in the log but not pending"
        );
    }
    if let Ok(text) = fs::read_to_string(project.file(".swarm/message_log.json")) {
        let index: Value = serde_json::from_str(&text)
            .unwrap_or_else(|e| panic!("{ctx}: log index does not parse: {e}"));
        assert!(index["segments"].is_array(), "{ctx}: {index}");
    }
}

/// The swarm's name on the server, for the Redis run.
const SWARM: &str = "crash";

fn check_redis(redis: &RedisServer, trial: usize, seed: u64) {
    let ctx = format!("trial {trial} (seed {seed}, redis)");
    let mut conn = redis.connection();
    let key = |k: &str| format!("{{swarm:{SWARM}}}:{k}");
    let get = |conn: &mut redis::Connection, k: &str| -> Option<Value> {
        let raw: Option<String> = redis::cmd("GET").arg(key(k)).query(conn).expect("GET");
        raw.map(|t| {
            serde_json::from_str(&t).unwrap_or_else(|e| panic!("{ctx}: {k} does not parse: {e}"))
        })
    };
    let registry = get(&mut conn, "registry").unwrap_or_else(|| panic!("{ctx}: no registry"));
    assert_eq!(registry["agents"][0]["id"], "agent-0", "{ctx}: {registry}");
    let log: Vec<(String, Vec<(String, String)>)> = redis::cmd("XRANGE")
        .arg(key("log"))
        .arg("-")
        .arg("+")
        .query(&mut conn)
        .expect("XRANGE");
    let mut asked = Vec::new();
    for (_, fields) in &log {
        for (_, line) in fields {
            let v: Value = serde_json::from_str(line)
                .unwrap_or_else(|e| panic!("{ctx}: torn log entry {line:?}: {e}"));
            if v["requires_ack"] == true
                && let Some(id) = v["msg_id"].as_str()
            {
                asked.push(id.to_owned());
            }
        }
    }
    // The obligation is recorded before the message is logged: a logged
    // message that asks for an answer is always pending (nothing in these
    // trials acknowledges one, and none is old enough to escalate).
    let pending: Vec<String> = get(&mut conn, "acks")
        .and_then(|p| p["pending_acks"].as_array().cloned())
        .unwrap_or_default()
        .iter()
        .filter_map(|e| e["msg_id"].as_str().map(str::to_owned))
        .collect();
    for id in &asked {
        assert!(
            pending.contains(id),
            "{ctx}: {id} is in the log but not pending"
        );
    }
}

fn temp_files(project: &Project) -> Vec<String> {
    let mut found = Vec::new();
    for dir in [".", ".swarm"] {
        for entry in fs::read_dir(project.file(dir))
            .into_iter()
            .flatten()
            .flatten()
        {
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.contains(".tmp-") {
                found.push(format!("{dir}/{name}"));
            }
        }
    }
    found
}

#[test]
fn killed_writers_leave_every_state_file_whole() {
    killed_writers(None);
}

#[cfg(feature = "redis")]
#[test]
fn killed_writers_leave_every_value_on_redis_whole() {
    let redis = RedisServer::start();
    killed_writers(Some(&redis));
}

fn killed_writers(redis: Option<&RedisServer>) {
    let server = TmuxServer::start();
    let project = Project::new();
    server.demo_agent(&project.path(), &project.file("rec.jsonl"));
    project.write(
        ".claudeswarm.toml",
        "[rate_limiting]\nmessages_per_minute = 1000\n\n[messaging]\ndelivery_pause_ms = 0\n\n[message_log]\nrotate_bytes = 1024\n",
    );
    let store = redis.map(|r| r.store_env(SWARM)).unwrap_or_default();
    let run = || {
        let mut cmd = swarm(&project, &server);
        cmd.envs(store.iter().map(|(k, v)| (k, v)));
        cmd
    };
    let check = |trial: usize, seed: u64| match redis {
        Some(r) => check_redis(r, trial, seed),
        None => check_state(&project, trial, seed),
    };
    run().arg("discover").assert().success();
    let seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64 | 1)
        .unwrap_or(7);
    let mut rng = Rng(seed);
    let commands: [&[&str]; 3] = [
        &["discover"],
        &[
            "msg",
            "agent-0",
            "QUESTION",
            "--from",
            "operator",
            "--ack",
            "crash test",
        ],
        &["ack", "ffffffff", "--agent", "agent-0"],
    ];
    let trials = 300;
    let mut killed = 0;
    for trial in 0..trials {
        let args = commands[(rng.next() % commands.len() as u64) as usize];
        let mut child = swarm_process(&project, Some(&server))
            .envs(store.iter().map(|(k, v)| (k, v)))
            .args(args)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn");
        // Anywhere from before start-up to after the end of the command.
        std::thread::sleep(Duration::from_micros(rng.next() % 12_000));
        if matches!(child.try_wait(), Ok(None)) {
            killed += 1;
        }
        let _ = child.kill();
        let _ = child.wait();
        check(trial, seed);
    }
    // Most trials must really have hit a running process.
    assert!(
        killed > trials / 2,
        "only {killed} of {trials} kills hit a running process"
    );
    // The next commands clean up what killed writers left behind (a
    // rotation, which a few messages bring about, cleans the log index's).
    run().arg("discover").assert().success();
    for _ in 0..8 {
        run()
            .args([
                "msg", "agent-0", "INFO", "--from", "operator", "--ack", "after",
            ])
            .assert()
            .success();
    }
    run()
        .args(["inbox", "--agent", "agent-0", "--new"])
        .assert()
        .success();
    check(trials, seed);
    if redis.is_none() {
        assert_eq!(temp_files(&project), Vec::<String>::new());
        assert!(
            project.ls(".").iter().any(|n| n == "agent_messages.log.1"),
            "the log never rotated"
        );
    }
}

#[test]
fn state_files_are_private() {
    use std::os::unix::fs::PermissionsExt;
    let server = TmuxServer::start();
    let project = Project::new();
    server.demo_agent(&project.path(), &project.file("rec.jsonl"));
    swarm(&project, &server).arg("discover").assert().success();
    swarm(&project, &server)
        .args([
            "msg", "agent-0", "INFO", "--from", "operator", "--ack", "private?",
        ])
        .assert()
        .success();
    swarm(&project, &server)
        .args(["inbox", "--agent", "agent-0", "--new"])
        .assert()
        .success();
    let mode = |rel: &str| {
        fs::metadata(project.file(rel))
            .expect(rel)
            .permissions()
            .mode()
            & 0o777
    };
    assert_eq!(mode(".swarm"), 0o700);
    for rel in [
        "ACTIVE_AGENTS.json",
        "agent_messages.log",
        "PENDING_ACKS.json",
        ".swarm/agent_ids.json",
        ".swarm/read_cursors.json",
        ".swarm/last_read_messages.json",
        ".swarm/rate_limits.json",
        ".swarm/ack_due",
    ] {
        assert_eq!(mode(rel), 0o600, "{rel}");
    }
}

/// The ids of the messages in the live log that ask for an answer.
fn logged_ack_requests(project: &Project) -> Vec<String> {
    fs::read_to_string(project.file("agent_messages.log"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|r| r["requires_ack"] == true)
        .filter_map(|r| r["msg_id"].as_str().map(str::to_owned))
        .collect()
}

/// The ids in PENDING_ACKS.json.
fn pending_ids(project: &Project) -> Vec<String> {
    fs::read_to_string(project.file("PENDING_ACKS.json"))
        .ok()
        .and_then(|t| serde_json::from_str::<Value>(&t).ok())
        .and_then(|v| v["pending_acks"].as_array().cloned())
        .unwrap_or_default()
        .iter()
        .filter_map(|e| e["msg_id"].as_str().map(str::to_owned))
        .collect()
}

#[test]
fn a_send_killed_once_its_message_is_logged_keeps_the_acknowledgement_it_asked_for() {
    let server = TmuxServer::start();
    let project = Project::new();
    server.demo_agent(&project.path(), &project.file("rec.jsonl"));
    swarm(&project, &server).arg("discover").assert().success();
    // The pending list's lock, held here: a send that needs it waits at
    // the point where it records the obligation, so the kill below lands
    // exactly there (whatever the order of the send's writes).
    let lock = fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(project.file(".PENDING_ACKS.json.lock"))
        .expect("open the pending list's lock");
    lock.lock().expect("take the pending list's lock");
    let mut child = swarm_process(&project, Some(&server))
        .args([
            "msg", "agent-0", "QUESTION", "--from", "operator", "--ack", "killed?",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    // Until the message is in the log, or the send gave up waiting for
    // the lock without logging anything.
    let logged = crate::harness::wait_for("the message logged or the send ended", || {
        if !logged_ack_requests(&project).is_empty() {
            return Some(true);
        }
        child.try_wait().expect("try_wait").map(|_| false)
    });
    let _ = child.kill();
    let out = child.wait_with_output().expect("wait");
    drop(lock);
    let logged_ids = logged_ack_requests(&project);
    let pending = pending_ids(&project);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    for id in &logged_ids {
        assert!(
            pending.contains(id),
            "message {id} is in the log but its acknowledgement is not pending \
             (logged before the kill: {logged}; pending {pending:?}; stderr {stderr})"
        );
    }
    // Once the lock is free a send records both, the obligation first.
    swarm(&project, &server)
        .args([
            "msg", "agent-0", "QUESTION", "--from", "operator", "--ack", "again",
        ])
        .assert()
        .success();
    let logged_ids = logged_ack_requests(&project);
    let pending = pending_ids(&project);
    assert!(!logged_ids.is_empty(), "nothing was logged");
    for id in &logged_ids {
        assert!(pending.contains(id), "{id} not pending: {pending:?}");
    }
}
