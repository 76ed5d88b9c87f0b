//! Shared locks and leases through the real binary: readers share a path
//! and keep writers out (through patterns and directories too), a lease
//! lapses by itself and a renewed one holds, only a holder renews, racing
//! shared and exclusive takers never both win, and every lock file stays
//! one the Python tool reads. No test waits a fixed time: each waits, with
//! a deadline, for what it can observe.

use std::collections::BTreeSet;
use std::fs::{self, File, OpenOptions};
use std::process::{Command, Output, Stdio};
use std::time::SystemTime;

use serde_json::Value;
use swarm::lock_file_name;

use crate::harness::{
    Project, stderr, stdout, stdout_json, swarm_bin, swarm_outside_tmux, wait_for,
};

/// A project whose registry holds agent-0 ... agent-15 (no panes: these
/// tests name the holder with `--agent`).
fn registered_project() -> Project {
    let project = Project::new();
    let ids: Vec<String> = (0..16).map(|n| format!("agent-{n}")).collect();
    project.register(&ids.iter().map(String::as_str).collect::<Vec<_>>());
    fs::create_dir_all(project.file("src")).expect("mkdir");
    fs::create_dir_all(project.file("docs")).expect("mkdir");
    project
}

/// `swarm lock ARGS... --agent AGENT`.
fn lock(project: &Project, agent: &str, args: &[&str]) -> Output {
    run(project, &[&["lock"], args, &["--agent", agent]].concat())
}

/// `swarm ARGS...` outside tmux.
fn run(project: &Project, args: &[&str]) -> Output {
    swarm_outside_tmux(project)
        .args(args)
        .output()
        .expect("run swarm")
}

fn code(out: &Output) -> Option<i32> {
    out.status.code()
}

fn unix_now() -> f64 {
    SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .expect("clock")
        .as_secs_f64()
}

/// The lock listed for `filepath` by `swarm locks --json`, if it is live.
fn listed(project: &Project, filepath: &str) -> Option<Value> {
    let out = run(project, &["locks", "--json"]);
    assert_eq!(code(&out), Some(0), "{out:?}");
    stdout_json(&out)
        .as_array()
        .expect("an array")
        .iter()
        .find(|l| l["filepath"] == filepath)
        .cloned()
}

/// The audit log's events, as (event, holder, path).
fn audit(project: &Project) -> Vec<(String, String, String)> {
    let text = fs::read_to_string(project.file(".swarm/audit.log")).unwrap_or_default();
    text.lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).expect("an audit line is JSON");
            let s = |k: &str| v[k].as_str().unwrap_or_default().to_owned();
            (s("event"), s("holder"), s("path"))
        })
        .collect()
}

/// One lock file as the Python tool reads it: exactly its four keys, in
/// its order and layout, with their types, named by the SHA-256 of its
/// `filepath`. Returns (agent_id, filepath, locked_at, reason).
fn python_read(name: &str, text: &str) -> (String, String, f64, String) {
    let value: Value = serde_json::from_str(text).expect("a lock file is JSON");
    let object = value.as_object().expect("a lock file is an object");
    let keys: BTreeSet<&str> = object.keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        BTreeSet::from(["agent_id", "filepath", "locked_at", "reason"]),
        "{name}: the Python reader rejects any other key: {text}"
    );
    let at = |key: &str| {
        text.find(&format!("\n  \"{key}\": "))
            .unwrap_or_else(|| panic!("{name}: {key} not in the Python layout: {text}"))
    };
    assert!(
        text.starts_with("{\n") && !text.ends_with('\n'),
        "{name}: indent 2, no trailing newline: {text:?}"
    );
    assert!(
        at("agent_id") < at("filepath")
            && at("filepath") < at("locked_at")
            && at("locked_at") < at("reason"),
        "{name}: the Python key order: {text}"
    );
    let agent = object["agent_id"].as_str().expect("agent_id is a string");
    let filepath = object["filepath"].as_str().expect("filepath is a string");
    let locked_at = object["locked_at"].as_f64().expect("locked_at is a number");
    let reason = object["reason"].as_str().expect("reason is a string");
    assert_eq!(
        name,
        lock_file_name(filepath),
        "{name}: named by its filepath's hash"
    );
    (agent.into(), filepath.into(), locked_at, reason.into())
}

/// Every lock file of the project, read as the Python tool reads them,
/// by filepath.
fn python_view(project: &Project) -> Vec<(String, String, f64, String)> {
    let dir = project.file(".agent_locks");
    let mut all = Vec::new();
    for entry in fs::read_dir(&dir).expect("the lock directory") {
        let entry = entry.expect("entry");
        let name = entry.file_name().to_string_lossy().into_owned();
        if !name.ends_with(".lock") {
            continue;
        }
        let text = fs::read_to_string(entry.path()).expect("read a lock file");
        all.push(python_read(&name, &text));
    }
    all.sort_by(|a, b| a.1.cmp(&b.1));
    all
}

/// The Python tool's staleness rule, with the default stale timeout.
fn python_stale(locked_at: f64, now: f64) -> bool {
    now - locked_at > 300.0
}

#[test]
fn readers_share_a_path_and_keep_writers_out_through_patterns_and_directories() {
    let project = registered_project();
    let first = lock(
        &project,
        "agent-1",
        &["src/a.py", "--shared", "--reason", "reading the schema"],
    );
    assert_eq!(code(&first), Some(0), "{first:?}");
    assert!(
        stdout(&first).contains("Shared lock acquired on: src/a.py"),
        "{}",
        stdout(&first)
    );
    let second = lock(&project, "agent-2", &["./src/a.py", "--shared"]);
    assert_eq!(code(&second), Some(0), "{second:?}");
    assert!(
        stdout(&second).contains("Shared with: agent-1"),
        "{}",
        stdout(&second)
    );

    // A writer is refused, with every reader named; through a pattern and
    // through the directory too.
    for path in ["src/a.py", "src/*.py", "src", "src/"] {
        let out = lock(&project, "agent-3", &[path]);
        assert_eq!(code(&out), Some(3), "{path}: {out:?}");
        let err = stderr(&out);
        assert!(
            err.contains("agent-1") && err.contains("agent-2"),
            "{path}: {err}"
        );
        assert!(err.contains("shared"), "{path}: {err}");
    }
    // A reader of the pattern (or the directory) reads along.
    let out = lock(&project, "agent-3", &["src/*.py", "--shared"]);
    assert_eq!(code(&out), Some(0), "{out:?}");
    let out = lock(&project, "agent-4", &["src", "--shared"]);
    assert_eq!(code(&out), Some(0), "{out:?}");
    // ... and a reader holding it may not write it while others read.
    let out = lock(&project, "agent-1", &["src/a.py"]);
    assert_eq!(code(&out), Some(3), "{out:?}");

    // Every reader is shown, by `locks` and `who`.
    let shown = listed(&project, "src/a.py").expect("listed");
    assert_eq!(shown["shared"], true);
    let holders: Vec<&str> = shown["holders"]
        .as_array()
        .expect("holders")
        .iter()
        .map(|h| h["agent_id"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(holders, ["agent-1", "agent-2"]);
    let who = run(&project, &["who", "src/a.py"]);
    let text = stdout(&who);
    assert!(
        text.contains("Held by: agent-1, agent-2 (shared)"),
        "{text}"
    );
    assert!(
        text.contains("agent-1 since") && text.contains("reading the schema"),
        "{text}"
    );
    let who = stdout_json(&run(&project, &["who", "src/a.py", "--json"]));
    assert_eq!(who["locks"].as_array().map(Vec::len), Some(3), "{who}");

    // A reader leaves; the others keep it.
    let out = run(&project, &["unlock", "src/a.py", "--agent", "agent-1"]);
    assert_eq!(code(&out), Some(0), "{out:?}");
    assert!(
        stdout(&out).contains("Still shared by: agent-2"),
        "{}",
        stdout(&out)
    );
    assert!(listed(&project, "src/a.py").is_some());

    // The other way round: a writer refuses readers, of the path and of
    // a directory or pattern overlapping it.
    let out = lock(&project, "agent-5", &["docs/x.md", "--reason", "rewriting"]);
    assert_eq!(code(&out), Some(0), "{out:?}");
    for path in ["docs/x.md", "docs", "docs/*.md"] {
        let out = lock(&project, "agent-6", &[path, "--shared"]);
        assert_eq!(code(&out), Some(3), "{path}: {out:?}");
        assert!(stderr(&out).contains("agent-5"), "{path}: {}", stderr(&out));
    }

    // The Python tool sees every path locked, in its own shape: the
    // shared ones held by `shared-lock`, the exclusive one by its holder.
    let now = unix_now();
    for (agent, filepath, locked_at, reason) in python_view(&project) {
        assert!(
            !python_stale(locked_at, now),
            "{filepath} is live for the Python tool"
        );
        match filepath.as_str() {
            "docs/x.md" => assert_eq!((agent.as_str(), reason.as_str()), ("agent-5", "rewriting")),
            "src/a.py" | "src/*.py" | "src" => {
                assert_eq!(agent, "shared-lock", "{filepath}");
                assert!(
                    reason.starts_with("shared by agent-"),
                    "{filepath}: {reason}"
                );
            }
            other => panic!("unexpected lock file for {other}"),
        }
    }
}

#[test]
fn a_lease_lapses_by_itself_and_a_renewed_one_holds_across_processes() {
    let project = registered_project();
    for path in ["l/lapsing.py", "l/renewed.py", "l/witness.py"] {
        // Taken in this order: the witness's lease ends last of the three.
        // (Long enough for the renewal below to come first, even on a
        // busy machine.)
        let out = lock(
            &project,
            "agent-1",
            &[path, "--ttl", "3s", "--reason", "short job"],
        );
        assert_eq!(code(&out), Some(0), "{out:?}");
        assert!(stdout(&out).contains("Lease ends: "), "{}", stdout(&out));
    }
    let out = lock(
        &project,
        "agent-1",
        &["l/renewed.py", "--renew", "--ttl", "1h", "--json"],
    );
    assert_eq!(code(&out), Some(0), "{out:?}");
    let renewed = &stdout_json(&out)["acquired"][0];
    assert!(
        renewed["expires_in_seconds"]
            .as_f64()
            .is_some_and(|s| s > 60.0),
        "{renewed}"
    );
    let shown = listed(&project, "l/witness.py").expect("the witness is live");
    assert!(shown["expires_at"].as_f64().is_some(), "{shown}");

    // While they hold, the Python tool sees them live too.
    let now = unix_now();
    let view = python_view(&project);
    assert_eq!(view.len(), 3);
    assert!(
        view.iter()
            .all(|(agent, _, at, _)| agent == "agent-1" && !python_stale(*at, now))
    );

    // Nobody runs anything: the witness lapses by itself, which every
    // reader sees.
    wait_for("the witness lease to lapse", || {
        listed(&project, "l/witness.py").is_none().then_some(())
    });
    let who = stdout(&run(&project, &["who", "l/witness.py"]));
    assert!(who.contains("[EXPIRED]"), "{who}");
    // So has the lease that ended before it; the renewed one holds.
    let out = lock(&project, "agent-2", &["l/lapsing.py"]);
    assert_eq!(code(&out), Some(0), "an ended lease stops nobody: {out:?}");
    let out = lock(&project, "agent-2", &["l/renewed.py"]);
    assert_eq!(code(&out), Some(3), "the renewed lease holds: {out:?}");
    assert!(stderr(&out).contains("lease ends in"), "{}", stderr(&out));

    // For the Python tool too, the ended lease is stale and the renewed
    // one is not.
    let now = unix_now();
    let view = python_view(&project);
    let of = |p: &str| view.iter().find(|v| v.1 == p).cloned().expect(p);
    assert!(python_stale(of("l/witness.py").2, now));
    assert!(!python_stale(of("l/renewed.py").2, now));

    // Only a holder renews, and only a claim that still holds.
    let out = lock(&project, "agent-1", &["l/lapsing.py", "--renew"]);
    assert_eq!(code(&out), Some(3), "{out:?}");
    assert!(
        stderr(&out).contains("cannot renew l/lapsing.py: it is held by agent-2"),
        "{}",
        stderr(&out)
    );
    let out = lock(&project, "agent-1", &["l/witness.py", "--renew"]);
    assert_eq!(code(&out), Some(1), "{out:?}");
    assert!(stderr(&out).contains("lease ended"), "{}", stderr(&out));
    let out = lock(&project, "agent-3", &["l/none.py", "--renew"]);
    assert_eq!(code(&out), Some(1), "{out:?}");
    assert!(
        stderr(&out).contains("holds no lock on it"),
        "{}",
        stderr(&out)
    );

    // Cleaning removes the ended lease; the log keeps who kept what.
    let out = run(&project, &["locks", "--clean"]);
    assert_eq!(code(&out), Some(0), "{out:?}");
    assert!(
        stdout(&out).contains("l/witness.py (held by agent-1"),
        "{}",
        stdout(&out)
    );
    assert!(listed(&project, "l/witness.py").is_none());
    let events = audit(&project);
    for (event, path) in [
        ("lease-renewed", "l/renewed.py"),
        ("lease-expired", "l/lapsing.py"),
        ("lease-expired", "l/witness.py"),
    ] {
        assert!(
            events
                .iter()
                .any(|(e, h, p)| e == event && h == "agent-1" && p == path),
            "{event} {path}: {events:?}"
        );
    }
    // The terms of the removed lock went with it.
    let terms = project.file(".swarm/lock_terms");
    let left: Vec<String> = fs::read_dir(&terms)
        .map(|d| {
            d.filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    assert_eq!(left, [format!("{}.json", lock_file_name("l/renewed.py"))]);
}

#[test]
fn a_shared_lease_lapses_for_one_reader_while_the_other_keeps_reading() {
    let project = registered_project();
    let out = lock(
        &project,
        "agent-1",
        &["src/a.py", "--shared", "--ttl", "1s"],
    );
    assert_eq!(code(&out), Some(0), "{out:?}");
    let out = lock(&project, "agent-2", &["src/a.py", "--shared"]);
    assert_eq!(code(&out), Some(0), "{out:?}");
    // A writer is refused all along (agent-2 reads it); once agent-1's
    // claim lapses, the refusal names agent-2 alone.
    wait_for("agent-1's claim to lapse", || {
        let out = lock(&project, "agent-3", &["src/a.py"]);
        assert_eq!(code(&out), Some(3), "{out:?}");
        let err = stderr(&out);
        (err.contains("agent-2") && !err.contains("agent-1")).then_some(())
    });
    let out = lock(&project, "agent-1", &["src/a.py", "--renew"]);
    assert_eq!(
        code(&out),
        Some(1),
        "a lapsed claim is not renewed: {out:?}"
    );
    // The Python tool still sees it held.
    let now = unix_now();
    let (agent, _, at, _) = python_view(&project).pop().expect("one lock file");
    assert_eq!(agent, "shared-lock");
    assert!(!python_stale(at, now));
    // Cleaning drops only the lapsed claim.
    let out = run(&project, &["locks", "--clean"]);
    assert!(
        stdout(&out).contains("dropped the claims that lapsed"),
        "{}",
        stdout(&out)
    );
    let shown = listed(&project, "src/a.py").expect("still held");
    assert_eq!(
        shown["holders"].as_array().map(Vec::len),
        Some(1),
        "{shown}"
    );
    assert_eq!(shown["agent_id"], "agent-2");
}

#[test]
fn a_lock_file_the_python_tool_replaced_is_its_lock_alone() {
    let project = registered_project();
    let out = lock(&project, "agent-1", &["src/a.py", "--shared"]);
    assert_eq!(code(&out), Some(0), "{out:?}");
    let name = lock_file_name("src/a.py");
    // The Python tool's own lock replaces the file (as after a cleanup of
    // its own): swarm's terms no longer belong to it.
    fs::write(
        project.file(&format!(".agent_locks/{name}")),
        format!(
            "{{\n  \"agent_id\": \"agent-7\",\n  \"filepath\": \"src/a.py\",\n  \"locked_at\": {:?},\n  \"reason\": \"python\"\n}}",
            unix_now()
        ),
    )
    .expect("write");
    let shown = listed(&project, "src/a.py").expect("listed");
    assert_eq!(shown["agent_id"], "agent-7");
    assert!(shown.get("shared").is_none(), "{shown}");
    let out = lock(&project, "agent-2", &["src/a.py", "--shared"]);
    assert_eq!(
        code(&out),
        Some(3),
        "an exclusive Python lock keeps readers out: {out:?}"
    );
    // Cleaning removes the terms that belong to nothing.
    let out = run(&project, &["locks", "--clean"]);
    assert_eq!(code(&out), Some(0), "{out:?}");
    assert!(
        !project
            .file(&format!(".swarm/lock_terms/{name}.json"))
            .exists()
    );
}

/// Starts one `swarm lock PATH --agent AGENT [--shared]` per racer at the
/// same moment (each waits on its own FIFO, which the test closes once
/// every process has opened its own) and returns each racer's exit code.
fn race(project: &Project, racers: &[(String, String, bool)]) -> Vec<Option<i32>> {
    let gun_dir = tempfile::tempdir().expect("tempdir");
    let fifos: Vec<_> = (0..racers.len())
        .map(|i| gun_dir.path().join(format!("gun-{i}")))
        .collect();
    let status = Command::new("mkfifo")
        .args(&fifos)
        .status()
        .expect("mkfifo");
    assert!(status.success());
    let children: Vec<_> = racers
        .iter()
        .zip(&fifos)
        .map(|((agent, path, shared), fifo)| {
            Command::new("sh")
                .arg("-c")
                .arg(r#"read _ < "$1"; exec "$2" lock "$3" --agent "$4" $5"#)
                .arg("sh")
                .arg(fifo)
                .arg(swarm_bin())
                .arg(path)
                .arg(agent)
                .arg(if *shared { "--shared" } else { "--json" })
                .current_dir(project.path())
                .env_remove("TMUX")
                .env_remove("TMUX_PANE")
                .env_remove("CLAUDESWARM_ROOT")
                .env("NO_COLOR", "1")
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .expect("spawn racer")
        })
        .collect();
    // Opening a FIFO for writing returns once its reader has opened it.
    let writers: Vec<File> = fifos
        .iter()
        .map(|f| OpenOptions::new().write(true).open(f).expect("open fifo"))
        .collect();
    drop(writers);
    children
        .into_iter()
        .map(|mut child| child.wait().expect("wait").code())
        .collect()
}

#[test]
fn racing_shared_and_exclusive_processes_never_both_win() {
    let project = registered_project();
    for round in 0..12 {
        // Eight racers: half shared, half exclusive, half through a
        // pattern; which kind starts first changes with the round.
        let racers: Vec<(String, String, bool)> = (0..8)
            .map(|i| {
                let path = if i % 4 < 2 {
                    format!("r{round}/a.py")
                } else {
                    format!("r{round}/*.py")
                };
                (format!("agent-{i}"), path, (i + round) % 2 == 0)
            })
            .collect();
        let codes = race(&project, &racers);
        let mut exclusive = 0;
        let mut shared = 0;
        for ((agent, _, is_shared), code) in racers.iter().zip(&codes) {
            match code {
                Some(0) if *is_shared => shared += 1,
                Some(0) => exclusive += 1,
                Some(3) => {}
                other => panic!("round {round}: {agent} ended with {other:?}"),
            }
        }
        assert!(
            (exclusive == 1 && shared == 0) || (exclusive == 0 && shared >= 1),
            "round {round}: {exclusive} exclusive and {shared} shared winners"
        );
    }
    // Whatever won, the Python tool reads every file.
    assert!(python_view(&project).len() >= 12);
}
