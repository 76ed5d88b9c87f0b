//! The monitor on one host shows the locks and messages of another.

use std::process::Stdio;

use crate::harness::redis_server::RedisServer;
use crate::harness::{Project, swarm_process, wait_for};

use super::{on, two_hosts};

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
