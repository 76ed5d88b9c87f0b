//! A private redis-server per test: its own directory, a unix socket in
//! it (no port to collide on), no persistence unless asked for, killed
//! when dropped. Nothing here touches a Redis server the test did not
//! start.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use super::wait_for;

/// A running redis-server.
pub struct RedisServer {
    dir: tempfile::TempDir,
    child: Option<Child>,
    durable: bool,
}

impl RedisServer {
    /// Starts a server that keeps nothing on disk.
    pub fn start() -> RedisServer {
        RedisServer::launch(false)
    }

    /// Starts a server that writes every change to its append-only file
    /// before answering (`appendonly yes`, `appendfsync always`), so that
    /// `kill -9` and a restart lose nothing it acknowledged.
    pub fn start_durable() -> RedisServer {
        RedisServer::launch(true)
    }

    fn launch(durable: bool) -> RedisServer {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut server = RedisServer {
            dir,
            child: None,
            durable,
        };
        server.spawn();
        server
    }

    fn spawn(&mut self) {
        let mut cmd = Command::new("redis-server");
        cmd.arg("--port")
            .arg("0")
            .arg("--unixsocket")
            .arg(self.socket())
            .arg("--unixsocketperm")
            .arg("700")
            .arg("--dir")
            .arg(self.dir.path())
            .arg("--save")
            .arg("");
        if self.durable {
            cmd.args(["--appendonly", "yes", "--appendfsync", "always"]);
        } else {
            cmd.args(["--appendonly", "no"]);
        }
        let child = cmd
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("redis-server (`scripts/setup redis-server` installs it)");
        self.child = Some(child);
        let url = self.url();
        wait_for("redis-server to answer PING", || {
            let client = redis::Client::open(url.as_str()).ok()?;
            let mut conn = client.get_connection().ok()?;
            redis::cmd("PING").query::<String>(&mut conn).ok()
        });
    }

    /// The unix socket it listens on.
    pub fn socket(&self) -> PathBuf {
        self.dir.path().join("redis.sock")
    }

    /// Its data directory.
    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    /// The URL swarm is given (`unix:///.../redis.sock`).
    pub fn url(&self) -> String {
        format!("unix://{}", self.socket().display())
    }

    /// The environment that makes swarm keep its state on this server as
    /// the swarm `name`.
    pub fn store_env(&self, name: &str) -> Vec<(&'static str, String)> {
        vec![
            ("SWARM_STORE_BACKEND", "redis".to_owned()),
            ("SWARM_STORE_URL", self.url()),
            ("SWARM_STORE_NAME", name.to_owned()),
        ]
    }

    /// A connection for the test's own checks.
    pub fn connection(&self) -> redis::Connection {
        redis::Client::open(self.url().as_str())
            .expect("url")
            .get_connection()
            .expect("connect")
    }

    /// Kills the server with SIGKILL (no chance to save anything) and
    /// waits until it is gone.
    pub fn kill9(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
        let _ = std::fs::remove_file(self.socket());
    }

    /// Starts it again on the same directory (and so the same
    /// append-only file).
    pub fn restart(&mut self) {
        self.kill9();
        self.spawn();
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        self.kill9();
    }
}
