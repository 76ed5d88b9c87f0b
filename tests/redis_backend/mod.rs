//! The Redis backend through the real `swarm` binary: two project
//! checkouts with different host names share one private redis-server.

mod connection;
mod locks;
mod messages;
mod migrate;
mod monitor;
mod restart;

use std::process::{Output, Stdio};

use crate::harness::redis_server::RedisServer;
use crate::harness::{Project, TmuxServer, swarm, swarm_outside_tmux, swarm_process};

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
