//! The project's watcher as the tests run it: a `swarm watch` child they
//! start and stop themselves (no watcher starts behind a test's back), and
//! the attention events it writes to the activity feed.

use std::process::{Child, Stdio};

use super::{Project, TmuxServer, records, swarm_process, wait_for};

/// A `swarm watch` child, stopped (and reaped) when dropped.
pub struct Watch(Child);

impl Watch {
    /// `swarm watch --interval 3600`: a watcher that looks at the screens
    /// but runs discovery only when it starts.
    pub fn start(project: &Project, server: &TmuxServer) -> Watch {
        let child = swarm_process(project, Some(server))
            .args(["watch", "--interval", "3600"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start swarm watch");
        Watch(child)
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `swarm watch` with more environment.
pub fn watch(project: &Project, server: &TmuxServer, env: &[(&str, &str)]) -> Watch {
    let mut cmd = swarm_process(project, Some(server));
    cmd.arg("watch").stdout(Stdio::null()).stderr(Stdio::null());
    for (k, v) in env {
        cmd.env(k, v);
    }
    Watch(cmd.spawn().expect("start swarm watch"))
}

/// The activity feed's lines.
pub fn feed(project: &Project) -> Vec<serde_json::Value> {
    records(&project.file(".swarm/feed.jsonl"))
}

/// The feed's `kind` events as (agent, episode).
pub fn events(project: &Project, kind: &str) -> Vec<(String, u64)> {
    feed(project)
        .into_iter()
        .filter(|e| e["event"] == kind)
        .map(|e| {
            (
                e["agent"].as_str().unwrap_or_default().to_owned(),
                e["episode"].as_u64().unwrap_or_default(),
            )
        })
        .collect()
}

/// Waits until the feed holds `n` `kind` events; returns them.
pub fn wait_for_event(project: &Project, kind: &str, n: usize) -> Vec<(String, u64)> {
    wait_for(&format!("{n} {kind} event(s)"), || {
        let e = events(project, kind);
        (e.len() >= n).then_some(e)
    })
}
