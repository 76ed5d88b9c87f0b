//! The senders' rate-limit windows on Redis: one key per sender,
//! `{swarm:NAME}:rate:<sender>`, holding the Unix times of its recent sends
//! as a JSON array, and expiring a window after its last send. A check
//! reads the window under `WATCH`, applies the shared sliding-window rule
//! (`RateLimit::admit`) and writes the window back in `MULTI`/`EXEC`; when
//! another client's send changed it meanwhile, the check runs again on the
//! new window. So of racing sends by one sender, from any host, no more are
//! allowed than the limit has room for.

use swarm_core::{AgentId, RateDecision, RateLimit, RateStore, StoreError, Timestamp};

use super::conn::RedisTarget;

/// The rate windows of one swarm on Redis.
pub(crate) struct RedisRates {
    target: RedisTarget,
}

impl RedisRates {
    /// The windows of the swarm at `target`.
    pub(crate) fn new(target: RedisTarget) -> RedisRates {
        RedisRates { target }
    }
}

impl RateStore for RedisRates {
    fn check_and_record(
        &self,
        sender: &AgentId,
        limit: RateLimit,
        now: Timestamp,
    ) -> Result<(RateDecision, Option<String>), StoreError> {
        let mut r = self.target.connect()?;
        let key = r.keys.rate(sender);
        let now = now.unix_seconds();
        // The window outlives its last send by its own length, then goes.
        let ttl_ms = u64::try_from(limit.window.as_millis())
            .unwrap_or(u64::MAX)
            .max(1);
        r.transaction(std::slice::from_ref(&key), |r| {
            let raw: Option<Vec<u8>> = r.query(redis::cmd("GET").arg(&key))?;
            // A window that does not parse (written by hand) starts empty,
            // with a note; refusing every send for it would be worse.
            let (mut times, note) = match raw {
                None => (Vec::new(), None),
                Some(bytes) => match serde_json::from_slice::<Vec<f64>>(&bytes) {
                    Ok(times) => (times, None),
                    Err(e) => (
                        Vec::new(),
                        Some(format!(
                            "the rate window of {sender} on the store was damaged ({e}); it starts empty"
                        )),
                    ),
                },
            };
            let verdict = limit.admit(&mut times, now);
            if verdict != RateDecision::Allowed && note.is_none() {
                return Ok((None, (verdict, note)));
            }
            let body = serde_json::to_vec(&times).map_err(|source| StoreError::Encode {
                path: key.clone().into(),
                source,
            })?;
            let mut pipe = redis::pipe();
            pipe.cmd("SET")
                .arg(&key)
                .arg(body)
                .arg("PX")
                .arg(ttl_ms)
                .ignore();
            Ok::<_, StoreError>((Some(pipe), (verdict, note)))
        })
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::test_server::TestServer;
    use swarm_core::contracts::rates as contract;

    #[test]
    fn redis_rates_keep_the_contract() {
        let server = TestServer::start();
        contract::limits_each_sender_in_a_sliding_window(&RedisRates::new(server.target("one")));
        contract::racing_sends_never_exceed_the_limit(Arc::new(RedisRates::new(
            server.target("race"),
        )));
    }

    #[test]
    fn a_damaged_window_starts_empty_with_a_note() {
        let server = TestServer::start();
        let target = server.target("damaged");
        let mut r = target.connect().expect("connect");
        let key = r.keys.rate(&AgentId::numbered(1));
        r.query::<()>(redis::cmd("SET").arg(&key).arg("not json"))
            .expect("set");
        let store = RedisRates::new(target);
        let limit = RateLimit {
            max: 2,
            window: std::time::Duration::from_secs(60),
        };
        let agent = AgentId::parse("agent-1").expect("id");
        let (verdict, note) = store
            .check_and_record(&agent, limit, Timestamp::now())
            .expect("check");
        assert_eq!(verdict, RateDecision::Allowed);
        assert!(note.is_some_and(|n| n.contains("damaged")));
        let (_, note) = store
            .check_and_record(&agent, limit, Timestamp::now())
            .expect("check");
        assert!(note.is_none(), "the window was rewritten");
    }
}
