//! The messages held back from panes, on Redis: the string key
//! `{swarm:NAME}:held` holds the queue as JSON (`{"version": 1, "held":
//! [...], "notified": [...]}`, the entries in the shape of
//! `.swarm/held.json`), and `{swarm:NAME}:held:seq` the last order number
//! handed out (a counter that only grows, so a number is never reused and
//! a late `release` of a delivered message can never take a newer one).
//! The queue key exists only while something is held: `any` is one
//! `EXISTS`.
//!
//! Every change `WATCH`es both keys, reads the queue, changes it and
//! writes it back (or deletes it when it is empty) in one
//! `MULTI`/`EXEC`; when another client changed them in between, `EXEC`
//! fails and the step runs again on what is there now. So racing holds get
//! distinct, growing numbers and exactly one of them sees the first
//! notice, and of racing releases of one message exactly one takes it.
//!
//! A queue that does not parse reads as empty (`HeldStore::list`); the
//! change that replaces it keeps the damaged bytes under
//! `{swarm:NAME}:held:damaged:<unix-ms>-<random>` in the same transaction.

use serde::{Deserialize, Serialize};

use swarm_core::{
    AgentId, HeldMessage, HeldQueue, HeldStore, Holding, StoreError, Timestamp, ToHold,
};

use super::conn::{Redis, RedisTarget};
use super::keys::Keys;

/// Version of the queue's shape.
const VERSION: u32 = 1;

/// The queue as stored.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
struct HeldDoc {
    /// Version of the shape.
    version: u32,
    /// The queue (`held`, `notified`).
    #[serde(flatten)]
    queue: HeldQueue,
}

/// The swarm's held messages on Redis.
pub(crate) struct RedisHeld {
    target: RedisTarget,
}

/// The queue's bytes as read: the queue, or why it cannot be used.
fn parse(raw: Option<&[u8]>) -> Result<HeldDoc, String> {
    match raw {
        None => Ok(HeldDoc {
            version: VERSION,
            ..HeldDoc::default()
        }),
        Some(bytes) => serde_json::from_slice(bytes).map_err(|e| e.to_string()),
    }
}

impl RedisHeld {
    /// The held messages of the swarm at `target`.
    pub(crate) fn new(target: RedisTarget) -> RedisHeld {
        RedisHeld { target }
    }

    /// Runs one change of the queue as a transaction: `step` gets the
    /// queue and the last order number handed out, and says whether it
    /// changed the queue and how many numbers it took.
    fn change<T>(
        &self,
        mut step: impl FnMut(&mut HeldDoc, u64) -> (T, bool, u64),
    ) -> Result<T, StoreError> {
        let mut r = self.target.connect()?;
        let key = r.keys.held();
        let seq_key = r.keys.held_seq();
        let watch = [key.clone(), seq_key.clone()];
        r.transaction(&watch, |r: &mut Redis| {
            let (raw, last): (Option<Vec<u8>>, Option<u64>) =
                r.query(redis::cmd("MGET").arg(&key).arg(&seq_key))?;
            let mut pipe = redis::pipe();
            let (mut doc, damaged) = match parse(raw.as_deref()) {
                Ok(doc) => (doc, false),
                Err(_) => {
                    let aside = Keys::damaged(&r.keys.held());
                    pipe.cmd("SET")
                        .arg(&aside)
                        .arg(raw.unwrap_or_default())
                        .ignore();
                    let fresh = HeldDoc {
                        version: VERSION,
                        ..HeldDoc::default()
                    };
                    (fresh, true)
                }
            };
            let last = last.unwrap_or(0);
            let (out, changed, taken) = step(&mut doc, last);
            if !changed && !damaged {
                return Ok::<_, StoreError>((None, out));
            }
            if taken > 0 {
                pipe.cmd("SET").arg(&seq_key).arg(last + taken).ignore();
            }
            if doc.queue.held.is_empty() {
                pipe.cmd("DEL").arg(&key).ignore();
            } else {
                let bytes = serde_json::to_vec(&doc).map_err(|source| StoreError::Encode {
                    path: key.clone().into(),
                    source,
                })?;
                pipe.cmd("SET").arg(&key).arg(bytes).ignore();
            }
            Ok((Some(pipe), out))
        })
    }
}

impl HeldStore for RedisHeld {
    fn list(&self) -> Result<Vec<HeldMessage>, StoreError> {
        let mut r = self.target.connect()?;
        let key = r.keys.held();
        // One GET: the value is replaced whole, so it is one version.
        let raw: Option<Vec<u8>> = r.query(redis::cmd("GET").arg(&key))?;
        Ok(parse(raw.as_deref())
            .map(|d| d.queue.held)
            .unwrap_or_default())
    }

    fn any(&self) -> bool {
        let Ok(mut r) = self.target.connect() else {
            return false;
        };
        let key = r.keys.held();
        r.query::<bool>(redis::cmd("EXISTS").arg(&key))
            .unwrap_or(false)
    }

    fn hold(&self, msg: ToHold<'_>) -> Result<Holding, StoreError> {
        let since = Timestamp::now();
        self.change(|doc, last| (doc.queue.hold(last + 1, msg, since), true, 1))
    }

    fn set_reason(&self, agent: &AgentId, reason: &str) -> Result<(), StoreError> {
        self.change(|doc, _| ((), doc.queue.set_reason(agent, reason), 0))
    }

    fn release(&self, seq: u64) -> Result<bool, StoreError> {
        self.change(|doc, _| {
            let removed = doc.queue.release(seq);
            (removed, removed, 0)
        })
    }

    fn release_all(&self, agent: &AgentId) -> Result<Vec<HeldMessage>, StoreError> {
        self.change(|doc, _| {
            let gone = doc.queue.release_all(agent);
            let changed = !gone.is_empty();
            (gone, changed, 0)
        })
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use swarm_core::MessageId;
    use swarm_core::contracts::held as contract;

    use crate::test_server::TestServer;

    #[test]
    fn redis_held_keeps_the_contract() {
        let server = TestServer::start();
        contract::holds_in_order_and_releases_once(&RedisHeld::new(server.target("order")));
        contract::racing_releases_have_one_winner(Arc::new(RedisHeld::new(server.target("race"))));
    }

    #[test]
    fn a_damaged_queue_is_kept_aside_and_replaced() {
        let server = TestServer::start();
        let target = server.target("damaged");
        let store = RedisHeld::new(target.clone());
        let mut r = target.connect().expect("connect");
        let key = r.keys.held();
        r.query::<()>(redis::cmd("SET").arg(&key).arg("{\"held\": \"x\"}"))
            .expect("set");
        assert!(store.any(), "something is there: a look at it will tell");
        assert!(
            store.list().expect("list").is_empty(),
            "damage reads as empty"
        );

        let agent = AgentId::parse("agent-1").expect("id");
        let holding = store
            .hold(ToHold {
                msg_id: &MessageId::from_stored("m1"),
                agent: &agent,
                text: "one",
                marker: "[h]",
                reason: "typing",
                urgency: swarm_core::Urgency::Normal,
            })
            .expect("hold");
        assert_eq!(
            holding,
            Holding {
                count: 1,
                first_notice: true
            }
        );
        let held = store.list().expect("list");
        assert_eq!(held.len(), 1);
        let aside: Vec<String> = r
            .query(redis::cmd("KEYS").arg(format!("{}:damaged:*", r.keys.held())))
            .expect("keys");
        assert_eq!(aside.len(), 1, "the damaged queue is kept: {aside:?}");
        let kept: String = r.query(redis::cmd("GET").arg(&aside[0])).expect("get");
        assert_eq!(kept, "{\"held\": \"x\"}");

        assert!(store.release(held[0].seq).expect("release"));
        assert!(!store.any(), "an empty queue leaves no key");
        let next = store
            .hold(ToHold {
                msg_id: &MessageId::from_stored("m2"),
                agent: &agent,
                text: "two",
                marker: "[h]",
                reason: "typing",
                urgency: swarm_core::Urgency::Normal,
            })
            .expect("hold");
        assert!(next.first_notice);
        let again = store.list().expect("list");
        assert!(again[0].seq > held[0].seq, "a number is never reused");
    }
}
