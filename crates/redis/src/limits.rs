//! The usage limits on Redis: the string `{swarm:NAME}:limits`, the whole
//! document as JSON. A change `WATCH`es it, reads it, changes it and
//! writes it in one `MULTI`/`EXEC`, so no other change comes between. A
//! value that does not parse reads as no limits (and is replaced by the
//! next change).

use swarm_core::{LimitStore, Limits, StoreError};

use super::conn::{Redis, RedisTarget};

/// The usage limits of one swarm on Redis.
pub(crate) struct RedisLimits {
    target: RedisTarget,
}

impl RedisLimits {
    /// The limits of the swarm at `target`.
    pub(crate) fn new(target: RedisTarget) -> RedisLimits {
        RedisLimits { target }
    }
}

fn decode(raw: Option<Vec<u8>>) -> Limits {
    raw.and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default()
}

impl LimitStore for RedisLimits {
    fn read(&self) -> Result<Limits, StoreError> {
        let mut r = self.target.connect()?;
        let key = r.keys.limits();
        let raw: Option<Vec<u8>> = r.query(redis::cmd("GET").arg(&key))?;
        Ok(decode(raw))
    }

    fn update(&self, change: &mut dyn FnMut(&mut Limits) -> bool) -> Result<bool, StoreError> {
        let mut r = self.target.connect()?;
        let key = r.keys.limits();
        r.transaction(std::slice::from_ref(&key), |r: &mut Redis| {
            let raw: Option<Vec<u8>> = r.query(redis::cmd("GET").arg(&key))?;
            let mut limits = decode(raw);
            if !change(&mut limits) {
                return Ok::<_, StoreError>((None, false));
            }
            let bytes = serde_json::to_vec(&limits).map_err(|source| StoreError::Encode {
                path: key.clone().into(),
                source,
            })?;
            let mut pipe = redis::pipe();
            pipe.cmd("SET").arg(&key).arg(bytes).ignore();
            Ok((Some(pipe), true))
        })
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::test_server::TestServer;
    use swarm_core::contracts::limits as contract;

    #[test]
    fn contract_keeps_what_it_is_given() {
        let server = TestServer::start();
        contract::keeps_what_it_is_given(&RedisLimits::new(server.target("p")));
    }

    #[test]
    fn contract_no_change_is_lost() {
        let server = TestServer::start();
        contract::no_change_is_lost(Arc::new(RedisLimits::new(server.target("p"))));
    }
}
