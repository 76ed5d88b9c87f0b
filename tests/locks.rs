//! File locks: one winner per race, one lock per file however it is
//! spelled, globs and directories in both directions, ownership, damaged
//! lock files, and the Python tool's file format. Only the last test needs
//! tmux (the holder detected from the pane); the others name the holder
//! with `--agent` outside any pane.

use std::fs::{self, File, OpenOptions};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::{Arc, Barrier};
use std::thread;
use std::time::{Duration, SystemTime};

use proptest::prelude::*;
use swarm::{Acquired, FileLocks, LockError, LockKey, lock_file_name};
use swarm::{Paths, StateDir};

use crate::harness::{
    Project, TmuxServer, stderr, stdout_json, swarm, swarm_bin, swarm_outside_tmux,
};

/// A project whose registry holds agent-0 ... agent-31 (in panes that are
/// not there: these tests need named agents, not running ones).
fn registered_project() -> Project {
    let project = Project::new();
    let ids: Vec<String> = (0..32).map(|n| format!("agent-{n}")).collect();
    project.register(&ids.iter().map(String::as_str).collect::<Vec<_>>());
    project
}

/// `swarm lock ARGS... --agent AGENT` in `project`; returns the output.
fn lock(project: &Project, agent: &str, args: &[&str]) -> std::process::Output {
    swarm_outside_tmux(project)
        .arg("lock")
        .args(args)
        .args(["--agent", agent])
        .output()
        .expect("run swarm lock")
}

/// `swarm ARGS...` in `project`, outside tmux.
fn run(project: &Project, args: &[&str]) -> std::process::Output {
    swarm_outside_tmux(project)
        .args(args)
        .output()
        .expect("run swarm")
}

fn code(out: &std::process::Output) -> Option<i32> {
    out.status.code()
}

/// The lock file of a normalised path, parsed.
fn lock_file(project: &Project, filepath: &str) -> Option<serde_json::Value> {
    let text =
        fs::read_to_string(project.file(&format!(".agent_locks/{}", lock_file_name(filepath))))
            .ok()?;
    Some(serde_json::from_str(&text).expect("lock file is JSON"))
}

fn lock_files(project: &Project) -> Vec<String> {
    if !project.file(".agent_locks").exists() {
        return Vec::new();
    }
    project
        .ls(".agent_locks")
        .into_iter()
        .filter(|n| n.ends_with(".lock"))
        .collect()
}

/// Writes a lock file the way the Python tool does (docs/FORMATS.md).
fn python_lock(project: &Project, agent: &str, filepath: &str, locked_at: f64, reason: &str) {
    fs::create_dir_all(project.file(".agent_locks")).expect("mkdir");
    let text = format!(
        "{{\n  \"agent_id\": \"{agent}\",\n  \"filepath\": \"{filepath}\",\n  \"locked_at\": {locked_at:?},\n  \"reason\": \"{reason}\"\n}}"
    );
    fs::write(
        project.file(&format!(".agent_locks/{}", lock_file_name(filepath))),
        text,
    )
    .expect("write lock");
}

fn unix_now() -> f64 {
    SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .expect("clock")
        .as_secs_f64()
}

fn table(project: &Project) -> FileLocks {
    FileLocks::new(&Paths::new(project.path()), 300)
}

fn key(project: &Project, raw: &str) -> LockKey {
    let root = project.path();
    LockKey::resolve(raw, &root, &root).expect("valid key")
}

// ---------------------------------------------------------------------
// Races. Three layers, each proving something the others cannot:
// * real `swarm lock` processes (a few rounds): the whole command, as
//   agents run it, gives one winner and a lock file naming it;
// * threads calling the library (the bulk of the rounds, cheap enough to
//   run many): the same decision under heavy contention for the
//   directory's flock (each thread opens it separately, so they exclude
//   each other exactly as processes do);
// * threads calling only the exclusive create, with no flock at all: the
//   guarantee that still holds against the Python tool, which never takes
//   swarm's flock.
// 32 racers x 500 rounds in all for one path (the design target): 10 rounds
// of processes and 490 of library threads.
// ---------------------------------------------------------------------

const RACERS: usize = 32;
const PROCESS_ROUNDS: usize = 10;
const LIBRARY_ROUNDS: usize = 490;

/// Runs one `swarm lock PATH --agent agent-I` process per agent at the
/// same moment: each waits on its own FIFO, and the test closes them all
/// at once after every process has opened its FIFO (so all are waiting).
fn race_processes(project: &Project, path: &str, agents: &[String]) -> Vec<(String, Option<i32>)> {
    let gun_dir = tempfile::tempdir().expect("tempdir");
    let fifos: Vec<_> = (0..agents.len())
        .map(|i| gun_dir.path().join(format!("gun-{i}")))
        .collect();
    let status = Command::new("mkfifo")
        .args(&fifos)
        .status()
        .expect("mkfifo");
    assert!(status.success());
    let children: Vec<_> = agents
        .iter()
        .zip(&fifos)
        .map(|(agent, fifo)| {
            let child = Command::new("sh")
                .arg("-c")
                .arg(r#"read _ < "$1"; exec "$2" lock "$3" --agent "$4""#)
                .arg("sh")
                .arg(fifo)
                .arg(swarm_bin())
                .arg(path)
                .arg(agent)
                .current_dir(project.path())
                .env_remove("TMUX")
                .env_remove("TMUX_PANE")
                .env_remove("CLAUDESWARM_ROOT")
                .env("NO_COLOR", "1")
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .expect("spawn racer");
            (agent.clone(), child)
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
        .map(|(agent, mut child)| (agent, child.wait().expect("wait").code()))
        .collect()
}

fn agents(n: usize) -> Vec<String> {
    (0..n).map(|i| format!("agent-{i}")).collect()
}

#[test]
fn racing_swarm_processes_have_exactly_one_winner() {
    let project = registered_project();
    let agents = agents(RACERS);
    for round in 0..PROCESS_ROUNDS {
        let results = race_processes(&project, "src/contested.py", &agents);
        let winners: Vec<&String> = results
            .iter()
            .filter(|(_, c)| *c == Some(0))
            .map(|(a, _)| a)
            .collect();
        assert_eq!(winners.len(), 1, "round {round}: {results:?}");
        let losers = results.iter().filter(|(_, c)| *c == Some(3)).count();
        assert_eq!(losers, RACERS - 1, "round {round}: {results:?}");
        let file = lock_file(&project, "src/contested.py").expect("lock file");
        assert_eq!(file["agent_id"], winners[0].as_str(), "round {round}");
        let out = swarm_outside_tmux(&project)
            .args(["unlock", "src/contested.py", "--agent", winners[0]])
            .output()
            .expect("unlock");
        assert_eq!(code(&out), Some(0));
    }
}

#[test]
fn racing_library_callers_have_exactly_one_winner() {
    let project = registered_project();
    let table = table(&project);
    let contested = key(&project, "src/contested.py");
    for round in 0..LIBRARY_ROUNDS {
        let barrier = Arc::new(Barrier::new(RACERS));
        let handles: Vec<_> = (0..RACERS)
            .map(|i| {
                let (table, key, barrier) =
                    (table.clone(), contested.clone(), Arc::clone(&barrier));
                thread::spawn(move || {
                    let agent = format!("agent-{i}");
                    barrier.wait();
                    match table.acquire(&[key], &agent, Some("race"), "") {
                        Ok(_) => Some(agent),
                        Err(LockError::Held(_)) => None,
                        Err(e) => panic!("unexpected error: {e}"),
                    }
                })
            })
            .collect();
        let winners: Vec<String> = handles
            .into_iter()
            .filter_map(|h| h.join().expect("thread"))
            .collect();
        assert_eq!(winners.len(), 1, "round {round}: {winners:?}");
        let file = lock_file(&project, "src/contested.py").expect("lock file");
        assert_eq!(file["agent_id"], winners[0].as_str(), "round {round}");
        table
            .release(std::slice::from_ref(&contested), &winners[0], false)
            .expect("release");
    }
}

#[test]
fn exclusive_creation_alone_has_exactly_one_winner() {
    let project = registered_project();
    let dir = StateDir::new(project.file(".agent_locks"));
    let name = lock_file_name("src/contested.py");
    for round in 0..(PROCESS_ROUNDS + LIBRARY_ROUNDS) {
        let barrier = Arc::new(Barrier::new(RACERS));
        let handles: Vec<_> = (0..RACERS)
            .map(|i| {
                let (dir, name, barrier) = (dir.clone(), name.clone(), Arc::clone(&barrier));
                thread::spawn(move || {
                    barrier.wait();
                    dir.create_new(&name, format!("agent-{i}").as_bytes())
                        .expect("create")
                        .then_some(i)
                })
            })
            .collect();
        let winners: Vec<usize> = handles
            .into_iter()
            .filter_map(|h| h.join().expect("thread"))
            .collect();
        assert_eq!(winners.len(), 1, "round {round}: {winners:?}");
        let content = fs::read_to_string(dir.file(&name)).expect("read");
        assert_eq!(content, format!("agent-{}", winners[0]));
        fs::remove_file(dir.file(&name)).expect("remove");
    }
}

#[test]
fn racers_taking_over_a_stale_lock_have_exactly_one_winner() {
    const TAKEOVER_RACERS: usize = 16;
    let project = registered_project();
    let table = table(&project);
    let contested = key(&project, "src/stale.py");
    let process_rounds = 3;
    let library_rounds = 40;
    for round in 0..process_rounds + library_rounds {
        python_lock(
            &project,
            "agent-old",
            "src/stale.py",
            unix_now() - 10_000.0,
            "gone",
        );
        let winners: Vec<String> = if round < process_rounds {
            race_processes(&project, "src/stale.py", &agents(TAKEOVER_RACERS))
                .into_iter()
                .filter(|(_, c)| *c == Some(0))
                .map(|(a, _)| a)
                .collect()
        } else {
            let barrier = Arc::new(Barrier::new(TAKEOVER_RACERS));
            let handles: Vec<_> = (0..TAKEOVER_RACERS)
                .map(|i| {
                    let (table, key, barrier) =
                        (table.clone(), contested.clone(), Arc::clone(&barrier));
                    thread::spawn(move || {
                        let agent = format!("agent-{i}");
                        barrier.wait();
                        match table.acquire(&[key], &agent, None, "") {
                            Ok(got) => {
                                assert!(matches!(got[0].how, Acquired::TookOver(_)));
                                Some(agent)
                            }
                            Err(LockError::Held(c)) => {
                                assert_ne!(c[0].held.record.agent_id, "agent-old");
                                None
                            }
                            Err(e) => panic!("unexpected error: {e}"),
                        }
                    })
                })
                .collect();
            handles
                .into_iter()
                .filter_map(|h| h.join().expect("thread"))
                .collect()
        };
        assert_eq!(winners.len(), 1, "round {round}: {winners:?}");
        let file = lock_file(&project, "src/stale.py").expect("lock file");
        assert_eq!(file["agent_id"], winners[0].as_str(), "round {round}");
    }
    // Every takeover is in the audit log, once.
    let audit = project.read(".swarm/audit.log");
    let takeovers = audit
        .lines()
        .filter(|l| l.contains("stale-takeover"))
        .count();
    assert_eq!(takeovers, process_rounds + library_rounds);
}

// ---------------------------------------------------------------------
// Paths.
// ---------------------------------------------------------------------

#[test]
fn three_spellings_of_one_path_are_one_lock() {
    let project = registered_project();
    fs::create_dir_all(project.file("src")).expect("mkdir");
    project.write("src/a.py", "");
    let absolute = project.file("src/a.py").to_string_lossy().into_owned();
    assert_eq!(code(&lock(&project, "agent-1", &["src/a.py"])), Some(0));
    for spelling in ["src/a.py", "./src/a.py", absolute.as_str(), "src//a.py"] {
        let out = lock(&project, "agent-2", &[spelling]);
        assert_eq!(code(&out), Some(3), "{spelling}: {}", stderr(&out));
        assert!(stderr(&out).contains("agent-1"), "{}", stderr(&out));
        // The holder re-locking any spelling refreshes the same lock.
        assert_eq!(code(&lock(&project, "agent-1", &[spelling])), Some(0));
    }
    assert_eq!(lock_files(&project), [lock_file_name("src/a.py")]);
    // From a subdirectory, a relative path starts there.
    let out = swarm_outside_tmux(&project)
        .current_dir(project.file("src"))
        .args(["lock", "a.py", "--agent", "agent-2"])
        .output()
        .expect("run");
    assert_eq!(code(&out), Some(3), "{}", stderr(&out));
}

#[test]
fn paths_outside_the_project_are_refused() {
    let project = registered_project();
    for path in ["../outside", "/etc/passwd", "src/../../x"] {
        let out = lock(&project, "agent-1", &[path]);
        assert_eq!(code(&out), Some(1), "{path}");
        assert!(
            stderr(&out).contains("outside the project root"),
            "{path}: {}",
            stderr(&out)
        );
    }
    assert!(lock_files(&project).is_empty());
}

#[test]
fn globs_and_paths_conflict_in_both_directions() {
    let project = registered_project();
    fs::create_dir_all(project.file("src/auth")).expect("mkdir");
    fs::create_dir_all(project.file("pkg/auth")).expect("mkdir");
    // A held pattern stops paths it matches, and patterns that overlap it.
    assert_eq!(code(&lock(&project, "agent-1", &["src/*.py"])), Some(0));
    assert_eq!(code(&lock(&project, "agent-2", &["src/a.py"])), Some(3));
    assert_eq!(
        code(&lock(&project, "agent-2", &["src/auth/deep.py"])),
        Some(3),
        "* crosses /"
    );
    assert_eq!(code(&lock(&project, "agent-2", &["src/a*"])), Some(3));
    assert_eq!(code(&lock(&project, "agent-2", &["src/a.rs"])), Some(0));
    assert_eq!(code(&lock(&project, "agent-2", &["docs/*"])), Some(0));
    assert_eq!(code(&lock(&project, "agent-2", &["src/*.rs"])), Some(0));
    // A held path stops patterns that match it.
    assert_eq!(code(&lock(&project, "agent-1", &["lib/b.py"])), Some(0));
    let out = lock(&project, "agent-2", &["lib/*.py"]);
    assert_eq!(code(&out), Some(3));
    assert!(stderr(&out).contains("lib/b.py"), "{}", stderr(&out));
    // A directory lock covers everything below it, both ways round: here
    // agent-2's `src/*.rs` may match `src/auth/x.rs`.
    assert_eq!(code(&lock(&project, "agent-1", &["src/auth/"])), Some(3));
    assert_eq!(code(&lock(&project, "agent-1", &["pkg/auth/"])), Some(0));
    assert_eq!(
        code(&lock(&project, "agent-2", &["pkg/auth/login.py"])),
        Some(3)
    );
    assert_eq!(
        code(&lock(&project, "agent-2", &["pkg/auth/*.py"])),
        Some(3)
    );
    assert_eq!(code(&lock(&project, "agent-2", &["pkg/authz.py"])), Some(0));
    assert_eq!(
        code(&lock(&project, "agent-1", &["tests/unit/t.py"])),
        Some(0)
    );
    assert_eq!(code(&lock(&project, "agent-2", &["tests"])), Some(3));
    assert_eq!(code(&lock(&project, "agent-2", &["tests/"])), Some(3));
}

#[test]
fn a_pattern_lock_written_by_the_python_tool_is_seen() {
    let project = registered_project();
    // Our own lock first, so that swarm's index exists and describes the
    // directory; the Python tool then adds a pattern behind its back.
    assert_eq!(code(&lock(&project, "agent-1", &["docs/x.md"])), Some(0));
    python_lock(&project, "agent-9", "src/*.py", unix_now(), "python");
    let out = lock(&project, "agent-2", &["src/a.py"]);
    assert_eq!(code(&out), Some(3), "{}", stderr(&out));
    assert!(stderr(&out).contains("agent-9"), "{}", stderr(&out));
    // The Python tool's own spelling of an absolute path is one lock too.
    let absolute = project.file("lib/c.py").to_string_lossy().into_owned();
    python_lock(&project, "agent-9", &absolute, unix_now(), "");
    let out = lock(&project, "agent-2", &["lib/c.py"]);
    assert_eq!(code(&out), Some(3), "{}", stderr(&out));
}

#[test]
fn taking_several_locks_is_all_or_nothing() {
    let project = registered_project();
    assert_eq!(code(&lock(&project, "agent-1", &["b.py"])), Some(0));
    let out = lock(&project, "agent-2", &["a.py", "b.py", "c.py"]);
    assert_eq!(code(&out), Some(3));
    assert_eq!(lock_files(&project), [lock_file_name("b.py")]);
    assert_eq!(code(&lock(&project, "agent-2", &["a.py", "c.py"])), Some(0));
    assert_eq!(lock_files(&project).len(), 3);
}

#[test]
fn only_the_holder_releases_and_force_is_recorded() {
    let project = registered_project();
    assert_eq!(
        code(&lock(&project, "agent-1", &["a.py", "--reason", "mine"])),
        Some(0)
    );
    let out = run(&project, &["unlock", "a.py", "--agent", "agent-2"]);
    assert_eq!(code(&out), Some(3));
    assert!(
        stderr(&out).contains("locked by agent-1"),
        "{}",
        stderr(&out)
    );
    assert!(lock_file(&project, "a.py").is_some());
    let out = run(
        &project,
        &[
            "release-file-lock",
            "a.py",
            "--agent-id",
            "agent-2",
            "--force",
        ],
    );
    assert_eq!(code(&out), Some(0), "{}", stderr(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains("held by agent-1"));
    assert!(lock_file(&project, "a.py").is_none());
    let audit: serde_json::Value =
        serde_json::from_str(project.read(".swarm/audit.log").trim()).expect("one JSON line");
    assert_eq!(audit["event"], "force-unlock");
    assert_eq!(audit["by"], "agent-2");
    assert_eq!(audit["holder"], "agent-1");
    assert_eq!(audit["path"], "a.py");
    assert_eq!(audit["reason"], "mine");
    // Releasing what nobody holds is fine.
    let out = run(&project, &["unlock", "a.py", "--agent", "agent-1"]);
    assert_eq!(code(&out), Some(0));
}

#[test]
fn damaged_lock_files_are_reported_and_cleaned_not_crashed_on() {
    let project = registered_project();
    let shapes = [
        ("a.py", "not json at all"),
        ("b.py", ""),
        ("c.py", "[1, 2, 3]"),
        (
            "d.py",
            r#"{"agent_id": "agent-1", "filepath": "d.py", "locked_at": "noon", "reason": ""}"#,
        ),
        (
            "e.py",
            r#"{"agent_id": "agent-1", "filepath": "d.py", "locked_at": 1, "reason": ""}"#,
        ),
    ];
    fs::create_dir_all(project.file(".agent_locks")).expect("mkdir");
    for (path, content) in shapes {
        project.write(&format!(".agent_locks/{}", lock_file_name(path)), content);
    }
    python_lock(&project, "agent-1", "ok.py", unix_now(), "fine");
    // Not even a file.
    fs::create_dir(project.file(&format!(".agent_locks/{}", lock_file_name("f.py"))))
        .expect("mkdir");
    for (path, _) in shapes {
        let out = lock(&project, "agent-2", &[path]);
        assert_eq!(code(&out), Some(1), "{path}");
        assert!(stderr(&out).contains("damaged"), "{path}: {}", stderr(&out));
        let out = run(&project, &["who", path]);
        assert_eq!(code(&out), Some(0));
        assert!(stderr(&out).contains("damaged"), "{path}: {}", stderr(&out));
    }
    let out = run(&project, &["locks", "--json"]);
    assert_eq!(code(&out), Some(0), "{}", stderr(&out));
    assert_eq!(stdout_json(&out).as_array().map(Vec::len), Some(1));
    assert_eq!(stderr(&out).matches("is damaged").count(), shapes.len() + 1);
    fs::remove_dir(project.file(&format!(".agent_locks/{}", lock_file_name("f.py"))))
        .expect("rmdir");
    // Freshly written damaged files may be the Python tool mid-write: kept.
    let out = run(&project, &["locks", "--clean"]);
    assert_eq!(code(&out), Some(0));
    assert_eq!(lock_files(&project).len(), shapes.len() + 1);
    let old = SystemTime::now() - Duration::from_secs(60);
    for (path, _) in shapes {
        let file = File::options()
            .write(true)
            .open(project.file(&format!(".agent_locks/{}", lock_file_name(path))))
            .expect("open");
        file.set_modified(old).expect("set mtime");
    }
    let out = run(&project, &["cleanup-stale-locks"]);
    assert_eq!(code(&out), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).contains("Removed 5 damaged lock file(s)"));
    assert_eq!(lock_files(&project), [lock_file_name("ok.py")]);
    assert_eq!(code(&lock(&project, "agent-2", &["a.py"])), Some(0));
}

#[test]
fn listing_and_who_never_delete_anything() {
    let project = registered_project();
    python_lock(
        &project,
        "agent-1",
        "old.py",
        unix_now() - 1000.0,
        "long ago",
    );
    python_lock(&project, "agent-1", "new.py", unix_now(), "now");
    for args in [
        &["locks"][..],
        &["locks", "--include-stale"],
        &["list-all-locks", "--json"],
        &["who", "old.py"],
        &["who-has-lock", "old.py", "--json"],
    ] {
        let out = run(&project, args);
        assert_eq!(code(&out), Some(0), "{args:?}");
        assert_eq!(lock_files(&project).len(), 2, "{args:?} deleted a lock");
    }
    let out = run(&project, &["locks"]);
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        text.contains("new.py") && !text.contains("old.py"),
        "{text}"
    );
    let out = run(&project, &["who", "old.py", "--json"]);
    assert_eq!(stdout_json(&out)["locks"][0]["stale"], true);
    // A stale lock does not stop anyone; it is taken over.
    let out = lock(&project, "agent-2", &["old.py"]);
    assert_eq!(code(&out), Some(0), "{}", stderr(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains("Took over the stale lock of agent-1"));
    python_lock(&project, "agent-1", "older.py", unix_now() - 1000.0, "");
    let out = run(&project, &["locks", "--clean"]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("Cleaned up 1 stale lock(s)"));
    assert_eq!(lock_files(&project).len(), 2);
}

#[test]
fn who_reports_every_lock_that_covers_a_path() {
    let project = registered_project();
    assert_eq!(
        code(&lock(&project, "agent-1", &["src/", "--reason", "dir"])),
        Some(0)
    );
    assert_eq!(code(&lock(&project, "agent-2", &["lib/*.py"])), Some(0));
    let out = run(&project, &["who", "src/a.py", "--json"]);
    let json = stdout_json(&out);
    assert_eq!(json["path"], "src/a.py");
    assert_eq!(json["locks"][0]["agent_id"], "agent-1");
    let out = run(&project, &["who", "lib/x.py"]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("Lock on: lib/*.py (overlaps lib/x.py)"));
    let out = run(&project, &["who", "docs/x"]);
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "No active lock on: docs/x\n"
    );
}

#[test]
fn wait_retries_until_the_holder_lets_go() {
    let project = registered_project();
    assert_eq!(code(&lock(&project, "agent-1", &["a.py"])), Some(0));
    let out = lock(&project, "agent-2", &["a.py", "--wait", "0"]);
    assert_eq!(code(&out), Some(3));
    let waiter = Command::new(swarm_bin())
        .args(["lock", "a.py", "--agent", "agent-2", "--wait", "60"])
        .current_dir(project.path())
        .env_remove("TMUX_PANE")
        .env_remove("TMUX")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let out = run(&project, &["unlock", "a.py", "--agent", "agent-1"]);
    assert_eq!(code(&out), Some(0));
    let out = waiter.wait_with_output().expect("wait");
    assert_eq!(code(&out), Some(0), "{}", stderr(&out));
    assert_eq!(
        lock_file(&project, "a.py").expect("lock")["agent_id"],
        "agent-2"
    );
}

#[test]
fn a_blank_reason_counts_as_none() {
    // The rule of `swarm_core::ops::lock`, the same over MCP: a reason
    // that cleans to nothing is no reason.
    let project = registered_project();
    for (path, blank) in [("a.py", ""), ("b.py", " \t "), ("c.py", "\x1b[31m")] {
        let out = lock(&project, "agent-1", &[path, "--reason", blank]);
        assert_eq!(code(&out), Some(0), "{}", stderr(&out));
        assert_eq!(
            lock_file(&project, path).expect("lock")["reason"],
            "working",
            "a new lock with the reason {blank:?} gets locking.default_reason"
        );
    }
    let out = lock(&project, "agent-1", &["a.py", "--reason", "schema change"]);
    assert_eq!(code(&out), Some(0), "{}", stderr(&out));
    let out = lock(&project, "agent-1", &["a.py", "--reason", ""]);
    assert_eq!(code(&out), Some(0), "{}", stderr(&out));
    assert_eq!(
        lock_file(&project, "a.py").expect("lock")["reason"],
        "schema change",
        "re-locking with a blank reason keeps the lock's own"
    );
    let long = "r".repeat(swarm_core::MAX_REASON_CHARS + 1);
    let out = lock(&project, "agent-1", &["d.py", "--reason", &long]);
    assert_eq!(code(&out), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("lock reason too long"),
        "{}",
        stderr(&out)
    );
    assert!(lock_file(&project, "d.py").is_none());
}

#[test]
fn the_python_tools_command_forms_work() {
    let project = registered_project();
    let out = run(
        &project,
        &[
            "acquire-file-lock",
            "a.py",
            "because",
            "--agent-id",
            "agent-1",
        ],
    );
    assert_eq!(code(&out), Some(0), "{}", stderr(&out));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "Lock acquired on: a.py\n  Agent: agent-1\n  Reason: because\n"
    );
    assert_eq!(
        lock_file(&project, "a.py").expect("lock")["reason"],
        "because"
    );
    let out = run(
        &project,
        &["acquire-file-lock", "a.py", "--agent-id", "agent-2"],
    );
    assert_eq!(code(&out), Some(3));
}

#[test]
fn a_python_lock_file_is_read_and_ours_has_exactly_its_shape() {
    let project = registered_project();
    // Byte for byte what the Python tool writes (docs/FORMATS.md).
    python_lock(
        &project,
        "agent-1",
        "src/a.py",
        1795267578.9710896,
        "editing a",
    );
    let out = run(&project, &["who", "src/a.py", "--json"]);
    let json = stdout_json(&out);
    assert_eq!(json["locks"][0]["agent_id"], "agent-1");
    assert_eq!(json["locks"][0]["locked_at"], 1795267578.9710896);
    assert_eq!(json["locks"][0]["reason"], "editing a");
    // Ours, for another file.
    assert_eq!(
        code(&lock(
            &project,
            "agent-2",
            &["src/b.py", "--reason", "editing b"]
        )),
        Some(0)
    );
    let name = lock_file_name("src/b.py");
    let ours = project.read(&format!(".agent_locks/{name}"));
    let mut settings = insta::Settings::clone_current();
    settings.add_filter(r#""locked_at": \d+(\.\d+)?"#, r#""locked_at": [time]"#);
    settings.set_prepend_module_to_snapshot(false);
    settings.bind(|| insta::assert_snapshot!("lock_file", ours));
    assert!(!ours.ends_with('\n'));
    // `swarm locks` as people see it.
    let out = run(&project, &["locks", "--include-stale"]);
    let mut settings = insta::Settings::clone_current();
    settings.add_filter(r"Locked at: .* UTC", "Locked at: [time] UTC");
    settings.add_filter(r"Age: [0-9.]+ seconds", "Age: [age] seconds");
    settings.set_prepend_module_to_snapshot(false);
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    settings.bind(|| insta::assert_snapshot!("locks_list", text));
}

// ---------------------------------------------------------------------
// Conflict rules against an oracle: globset on every short path.
// ---------------------------------------------------------------------

/// Every normalised path of up to four characters over `a`, `b`, `/`.
fn small_paths() -> Vec<String> {
    let mut all = Vec::new();
    let mut level = vec![String::new()];
    for _ in 0..4 {
        let mut next = Vec::new();
        for s in &level {
            for c in ['a', 'b', '/'] {
                next.push(format!("{s}{c}"));
            }
        }
        all.extend(next.iter().cloned());
        level = next;
    }
    all.retain(|s| !s.starts_with('/') && !s.ends_with('/') && !s.contains("//"));
    all
}

fn globset_match(pattern: &str, path: &str) -> bool {
    globset::GlobBuilder::new(pattern)
        .literal_separator(false)
        .backslash_escape(false)
        .build()
        .map(|g| g.compile_matcher().is_match(Path::new(path)))
        .unwrap_or(false)
}

fn lock_spec() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("a"),
        Just("b"),
        Just("/"),
        Just("*"),
        Just("?"),
        Just("[ab]"),
        Just("**"),
    ];
    proptest::collection::vec(piece, 1..5)
        .prop_map(|v| v.concat())
        .prop_filter("a normalised lock path", |s| {
            !s.starts_with('/') && !s.ends_with('/') && !s.contains("//")
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Locks held by different agents conflict exactly when they cover a
    /// common path, in whichever order they are taken (for two patterns
    /// the check may be stricter, never looser). A path lock covers the
    /// path and what is below it; a pattern covers what globset matches.
    /// None of these paths exist on disk, so no pattern reaches "below" a
    /// path (a file has nothing below it).
    #[test]
    fn conflicts_match_the_globset_oracle(a in lock_spec(), b in lock_spec()) {
        let glob = swarm::has_glob_chars;
        let below = |inner: &str, outer: &str| inner.starts_with(&format!("{outer}/"));
        let expected = match (glob(&a), glob(&b)) {
            (false, false) => a == b || below(&a, &b) || below(&b, &a),
            (true, false) => globset_match(&a, &b),
            (false, true) => globset_match(&b, &a),
            (true, true) => small_paths()
                .iter()
                .any(|p| globset_match(&a, p) && globset_match(&b, p)),
        };
        let both_patterns = glob(&a) && glob(&b);
        for (first, second) in [(&a, &b), (&b, &a)] {
            let project = registered_project();
            let table = table(&project);
            table.acquire(&[key(&project, first)], "agent-1", None, "").expect("first lock");
            let got = table.acquire(&[key(&project, second)], "agent-2", None, "");
            let conflict = matches!(got, Err(LockError::Held(_)));
            prop_assert!(conflict || got.is_ok(), "{:?}", got.err());
            if expected {
                prop_assert!(conflict, "{} then {} share a path but did not conflict", first, second);
            } else if !both_patterns {
                prop_assert!(!conflict, "{} then {} share no path but conflicted", first, second);
            }
        }
    }
}

#[test]
fn the_holder_is_the_agent_of_the_pane_and_acting_for_another_is_recorded() {
    let server = TmuxServer::start();
    let project = Project::new();
    let pane = server.demo_agent(&project.path(), &project.file("a.jsonl"));
    swarm(&project, &server).arg("discover").assert().success();
    project.register(&["agent-7"]);
    let in_pane = |args: &[&str]| {
        swarm(&project, &server)
            .env("TMUX_PANE", &pane)
            .args(args)
            .output()
            .expect("run")
    };
    let out = in_pane(&["lock", "a.py", "--json"]);
    assert_eq!(code(&out), Some(0), "{}", stderr(&out));
    assert_eq!(stdout_json(&out)["acquired"][0]["agent_id"], "agent-0");
    // Naming another agent inside this pane needs --as-other.
    let out = in_pane(&["lock", "b.py", "--agent", "agent-7"]);
    assert_eq!(code(&out), Some(1));
    assert!(stderr(&out).contains("--as-other"), "{}", stderr(&out));
    let out = in_pane(&["lock", "a.py", "--agent", "agent-7", "--as-other", "--json"]);
    assert_eq!(code(&out), Some(3));
    let json = stdout_json(&out);
    assert_eq!(json["acquired"], serde_json::json!([]));
    assert_eq!(json["conflicts"][0]["agent_id"], "agent-0");
    let audit = project.read(".swarm/audit.log");
    assert!(
        audit.contains(r#""event": "as-other", "by": "agent-7""#),
        "{audit}"
    );
    // The pane's own agent releases without naming itself.
    assert_eq!(code(&in_pane(&["unlock", "a.py"])), Some(0));
    assert!(lock_file(&project, "a.py").is_none());
}

#[test]
fn lock_paths_longer_than_the_system_allows_are_refused() {
    let project = Project::new();
    project.register(&["agent-0"]);
    let lock = |path: &str| {
        let out = swarm_outside_tmux(&project)
            .args(["lock", path, "--agent", "agent-0"])
            .output()
            .expect("run");
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let name = "n".repeat(256);
    let (code, stderr) = lock(&format!("src/{name}.py"));
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stderr.contains("at most 255 per file or directory name"),
        "{stderr}"
    );
    let deep = vec!["d".repeat(200); 21].join("/");
    let (code, stderr) = lock(&deep);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stderr.contains("the system allows at most 4095"),
        "{stderr}"
    );
    // At the limit is fine.
    let (code, stderr) = lock(&format!("src/{}", "n".repeat(255)));
    assert_eq!(code, Some(0), "{stderr}");
    assert!(project.ls(".agent_locks").len() == 1);
}
