//! A private redis-server for the unit tests of this backend: a unix
//! socket in a temporary directory, nothing saved, killed when dropped.

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use super::conn::RedisTarget;

/// A running redis-server.
pub(crate) struct TestServer {
    dir: tempfile::TempDir,
    child: Child,
}

impl TestServer {
    /// Starts one and waits until it answers.
    pub(crate) fn start() -> TestServer {
        let dir = tempfile::tempdir().expect("tempdir");
        let socket = dir.path().join("redis.sock");
        let child = Command::new("redis-server")
            .args(["--port", "0", "--save", "", "--appendonly", "no"])
            .arg("--unixsocket")
            .arg(&socket)
            .arg("--dir")
            .arg(dir.path())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("redis-server (`scripts/setup redis-server` installs it)");
        let server = TestServer { dir, child };
        let started = Instant::now();
        while server.target("probe").connect().is_err() {
            assert!(
                started.elapsed() < Duration::from_secs(30),
                "redis-server did not start"
            );
            std::thread::sleep(Duration::from_millis(10));
        }
        server
    }

    /// The swarm `name` on this server.
    pub(crate) fn target(&self, name: &str) -> RedisTarget {
        let url = format!("unix://{}", self.dir.path().join("redis.sock").display());
        RedisTarget::new(&url, name, Duration::from_secs(5))
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
