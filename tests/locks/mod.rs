//! File locks, by feature: races for one lock (`races`), how a path is
//! spelled (`paths`), globs and directories (`globs`), taking locks and
//! the reason rule (`acquire`), releasing (`release`), waiting (`wait`),
//! damaged lock files (`damaged`), listing and `who` (`listing`), and the
//! Python tool's locks and file format (`python`). Leases and renewing
//! are in tests/leases.rs. Only the tests of the pane's own agent need
//! tmux; the others name the holder with `--agent` outside any pane. The
//! helpers below are theirs.

mod acquire;
mod damaged;
mod globs;
mod listing;
mod paths;
mod python;
mod races;
mod release;
mod wait;

use std::fs;
use std::time::SystemTime;

use swarm::{FileLocks, LockKey, Paths, lock_file_name};

use crate::harness::{Project, swarm_outside_tmux};

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
