//! The Python tool's agent-to-agent commands (cards, tasks, delegate,
//! find-agent, context, memory, learning, resolve-conflict): their
//! original argument shapes and output, the task workflow, delegation
//! scores, the file formats both tools share, damaged files, and
//! concurrent writers. Only the identity test needs tmux.

mod commands;
mod conflicts;
mod damaged;
mod delegation;
mod files;
mod tasks;

use std::process::Output;

use crate::harness::{Project, stderr, stdout, swarm_outside_tmux};

/// `swarm ARGS...` in `project`, outside tmux.
pub fn run(project: &Project, args: &[&str]) -> Output {
    swarm_outside_tmux(project)
        .args(args)
        .output()
        .expect("run swarm")
}

/// Runs and expects exit 0; returns stdout.
pub fn ok(project: &Project, args: &[&str]) -> String {
    let out = run(project, args);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{args:?}: {}{}",
        stdout(&out),
        stderr(&out)
    );
    stdout(&out)
}

/// Creates a task and returns its id.
pub fn create_task(project: &Project, args: &[&str]) -> String {
    let mut all = vec!["tasks", "create"];
    all.extend_from_slice(args);
    all.push("--json");
    let out = ok(project, &all);
    let task: serde_json::Value = serde_json::from_str(&out).expect("task JSON");
    task["task_id"].as_str().expect("task_id").to_owned()
}
