//! `swarm monitor` as the tests run it: its plain stream read line by
//! line from a pipe, in a clean environment that never reaches the user's
//! tmux server.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use super::{Project, stop_child, swarm_bin, wait_for};

/// A `swarm monitor` whose stdout is a pipe, read line by line.
pub struct Stream {
    child: Child,
    lines: mpsc::Receiver<String>,
    seen: Vec<String>,
}

/// `swarm monitor ARGS` in `project`, its stdout piped.
pub fn command(project: &Project, args: &[&str]) -> Command {
    command_named(project, "monitor", args)
}

/// `swarm NAME ARGS` (the monitor under one of its names) in `project`
/// with a clean environment, its stdout piped.
pub fn command_named(project: &Project, name: &str, args: &[&str]) -> Command {
    let mut cmd = Command::new(swarm_bin());
    cmd.current_dir(project.path())
        .env_remove("TMUX")
        .env_remove("TMUX_PANE")
        .env_remove("CLAUDESWARM_ROOT")
        // Never the user's tmux server, should anything ask tmux.
        .env(
            "SWARM_TMUX_SOCKET",
            format!("swarm-test-absent-{}", std::process::id()),
        )
        .env("NO_COLOR", "1")
        .env("TZ", "UTC")
        // The monitor starts the project's watcher unless told not to,
        // which would clean the stale locks these tests watch.
        .env("SWARM_WATCHER_AUTOSTART", "false")
        .arg(name)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    cmd
}

impl Stream {
    pub fn start(project: &Project, args: &[&str]) -> Stream {
        Stream::new(project, args, "monitor")
    }

    /// The monitor under another of its names.
    pub fn new(project: &Project, args: &[&str], name: &str) -> Stream {
        Stream::spawn(command_named(project, name, args))
    }

    /// Starts `cmd`, a monitor whose stdout is piped.
    pub fn spawn(mut cmd: Command) -> Stream {
        let mut child = cmd.spawn().expect("start the monitor");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { return };
                if tx.send(line).is_err() {
                    return;
                }
            }
        });
        Stream {
            child,
            lines: rx,
            seen: Vec::new(),
        }
    }

    /// Waits for a line containing `text` and returns it.
    pub fn expect(&mut self, text: &str) -> String {
        let lines = &self.lines;
        let seen = &mut self.seen;
        wait_for(&format!("a line with {text:?}"), || {
            while let Ok(line) = lines.try_recv() {
                seen.push(line);
            }
            seen.iter().find(|l| l.contains(text)).cloned()
        })
    }

    /// Stops it with SIGTERM; returns its status, everything it printed
    /// and its stderr.
    pub fn stop(&mut self) -> (ExitStatus, Vec<String>, String) {
        stop_child(
            "the monitor",
            &mut self.child,
            &self.lines,
            &mut self.seen,
            Duration::from_secs(10),
        )
    }
}

impl Drop for Stream {
    /// A failed test leaves no monitor running.
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Waits for `child`, a monitor told to stop, to exit.
pub fn wait_exit(child: &mut Child) -> ExitStatus {
    wait_for("the monitor to exit", || child.try_wait().expect("wait"))
}
