//! A private three-node Redis Cluster per test: three redis-server
//! processes in cluster mode on free loopback ports (their cluster bus
//! ports, 10000 above, free too), the 16384 hash slots spread over them,
//! joined and waited for until every node says `cluster_state:ok`. Every
//! node asks for a password; nothing is saved; all are killed when
//! dropped. Nothing here touches a Redis server the test did not start.

use std::net::TcpListener;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use super::wait_for;

/// The password of every node: it must never appear in what swarm prints.
pub const PASSWORD: &str = "Cluster-Hunter2";

/// The number of hash slots of a Redis Cluster.
const SLOTS: u16 = 16384;

/// How many nodes a test cluster has.
const NODES: u16 = 3;

/// A running cluster.
pub struct RedisCluster {
    dir: tempfile::TempDir,
    children: Vec<Child>,
    ports: Vec<u16>,
}

impl RedisCluster {
    /// Starts one and waits until every node serves the cluster.
    pub fn start() -> RedisCluster {
        let mut cluster = RedisCluster {
            dir: tempfile::tempdir().expect("tempdir"),
            children: Vec::new(),
            ports: Vec::new(),
        };
        for n in 0..NODES {
            let (child, port) = cluster.start_node(n);
            cluster.children.push(child);
            cluster.ports.push(port);
        }
        // Each master its own configuration epoch before they meet, as
        // cluster creation tools do (equal epochs are settled by bumping
        // over the next seconds, which can undo a slot moved meanwhile).
        for n in 0..cluster.ports.len() {
            cluster.admin::<()>(n, redis::cmd("CLUSTER").arg("SET-CONFIG-EPOCH").arg(n + 1));
        }
        for n in 0..NODES {
            let slots: Vec<u16> = slot_range(n).collect();
            cluster.admin::<()>(
                usize::from(n),
                redis::cmd("CLUSTER").arg("ADDSLOTS").arg(slots),
            );
        }
        for n in 1..cluster.ports.len() {
            let port = cluster.ports[n];
            cluster.admin::<()>(
                0,
                redis::cmd("CLUSTER").arg("MEET").arg("127.0.0.1").arg(port),
            );
        }
        wait_for("every cluster node to say cluster_state:ok", || {
            (0..cluster.ports.len())
                .all(|n| {
                    cluster
                        .admin::<String>(n, redis::cmd("CLUSTER").arg("INFO"))
                        .lines()
                        .any(|l| l.trim() == "cluster_state:ok")
                })
                .then_some(())
        });
        cluster
    }

    fn start_node(&self, n: u16) -> (Child, u16) {
        loop {
            let port = free_port_pair();
            let mut child = Command::new("redis-server")
                .args(["--bind", "127.0.0.1", "--port"])
                .arg(port.to_string())
                .args(["--cluster-enabled", "yes", "--cluster-config-file"])
                .arg(self.dir.path().join(format!("nodes-{n}.conf")))
                .args([
                    "--save",
                    "",
                    "--appendonly",
                    "no",
                    "--requirepass",
                    PASSWORD,
                ])
                .arg("--dir")
                .arg(self.dir.path())
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .expect("redis-server (`scripts/setup redis-server` installs it)");
            let url = node_url(port);
            // Up, or gone because the port was taken in between.
            let up = wait_for("a cluster node to answer PING or exit", || {
                if let Ok(Some(_)) = child.try_wait() {
                    return Some(false);
                }
                let client = redis::Client::open(url.as_str()).ok()?;
                let mut conn = client
                    .get_connection_with_timeout(Duration::from_secs(1))
                    .ok()?;
                redis::cmd("PING")
                    .query::<String>(&mut conn)
                    .ok()
                    .map(|_| true)
            });
            if up {
                return (child, port);
            }
            let _ = child.wait();
        }
    }

    /// The URL of node `n`, with the password (what a host is given).
    pub fn url(&self, n: usize) -> String {
        node_url(self.ports[n])
    }

    /// Runs `cmd` on node `n` itself (no redirection followed).
    pub fn admin<T: redis::FromRedisValue>(&self, n: usize, cmd: &redis::Cmd) -> T {
        let mut conn = redis::Client::open(self.url(n).as_str())
            .expect("url")
            .get_connection_with_timeout(Duration::from_secs(5))
            .expect("connect to a cluster node");
        cmd.query(&mut conn).expect("cluster admin command")
    }

    /// The hash slot of the swarm `name`'s keys, and the node that
    /// serves it.
    pub fn home_of(&self, name: &str) -> (u16, usize) {
        let slot: u16 = self.admin(
            0,
            redis::cmd("CLUSTER")
                .arg("KEYSLOT")
                .arg(format!("{{swarm:{name}}}:locks")),
        );
        let owner = (0..NODES)
            .position(|n| slot_range(n).contains(&slot))
            .expect("every slot has a node");
        (slot, owner)
    }

    /// A swarm name (`<stem>-<n>`) that node `seed` does not serve.
    pub fn name_away_from(&self, seed: usize, stem: &str) -> String {
        (0..)
            .map(|n| format!("{stem}-{n}"))
            .find(|name| self.home_of(name).1 != seed)
            .expect("some name lands on another node")
    }

    /// The environment that makes swarm keep its state in this cluster as
    /// the swarm `name`, reached through node `seed`.
    pub fn store_env(&self, seed: usize, name: &str) -> Vec<(&'static str, String)> {
        vec![
            ("SWARM_STORE_BACKEND", "redis".to_owned()),
            ("SWARM_STORE_URL", self.url(seed)),
            ("SWARM_STORE_NAME", name.to_owned()),
        ]
    }
}

impl Drop for RedisCluster {
    fn drop(&mut self) {
        for child in &mut self.children {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

fn node_url(port: u16) -> String {
    format!("redis://:{PASSWORD}@127.0.0.1:{port}")
}

/// The slots of node `n`: three nearly equal ranges.
fn slot_range(n: u16) -> std::ops::Range<u16> {
    let per = SLOTS.div_ceil(NODES);
    n * per..((n + 1) * per).min(SLOTS)
}

/// A loopback port that is free now, with its cluster bus port free too.
fn free_port_pair() -> u16 {
    loop {
        let probe = TcpListener::bind("127.0.0.1:0").expect("bind a probe");
        let port = probe.local_addr().expect("probe address").port();
        let Some(bus) = port.checked_add(10000) else {
            continue;
        };
        if TcpListener::bind(("127.0.0.1", bus)).is_ok() {
            return port;
        }
    }
}
