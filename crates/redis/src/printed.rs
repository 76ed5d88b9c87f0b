//! Print-to-send's claims on Redis: the hash `{swarm:NAME}:printed`, one
//! field per agent and printed line (`agent-1/<line key>`) holding when it
//! was claimed. `HSETNX` claims a line for exactly one watcher of every
//! host.

use swarm_core::support::time;
use swarm_core::{PrintedStore, StoreError};

use super::conn::RedisTarget;

/// The print-to-send claims of one swarm on Redis.
pub(crate) struct RedisPrinted {
    target: RedisTarget,
}

impl RedisPrinted {
    /// The claims of the swarm at `target`.
    pub(crate) fn new(target: RedisTarget) -> RedisPrinted {
        RedisPrinted { target }
    }
}

impl PrintedStore for RedisPrinted {
    fn claim(&self, agent: &str, key: &str) -> Result<bool, StoreError> {
        let mut r = self.target.connect()?;
        let hash = r.keys.printed();
        let now = time::unix_seconds(time::now());
        let set: i64 = r.query(
            redis::cmd("HSETNX")
                .arg(&hash)
                .arg(format!("{agent}/{key}"))
                .arg(format!("{now:.0}")),
        )?;
        Ok(set == 1)
    }

    fn forget(&self, agents: &[String]) -> Result<(), StoreError> {
        if agents.is_empty() {
            return Ok(());
        }
        let mut r = self.target.connect()?;
        let hash = r.keys.printed();
        let fields: Vec<String> = r.query(redis::cmd("HKEYS").arg(&hash))?;
        let gone: Vec<&String> = fields
            .iter()
            .filter(|f| {
                f.split_once('/')
                    .is_some_and(|(a, _)| agents.iter().any(|x| x == a))
            })
            .collect();
        if gone.is_empty() {
            return Ok(());
        }
        r.query::<()>(redis::cmd("HDEL").arg(&hash).arg(gone))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_server::TestServer;
    use swarm_core::contracts::printed as contract;

    #[test]
    fn of_racing_watchers_one_claims_each_line() {
        let server = TestServer::start();
        contract::each_line_is_claimed_once(|| Box::new(RedisPrinted::new(server.target("p"))));
        // Another swarm on the same server keeps its own claims.
        assert!(
            RedisPrinted::new(server.target("q"))
                .claim("agent-1", "k0")
                .expect("claim")
        );
    }
}
