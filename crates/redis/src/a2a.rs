//! The A2A records on Redis. One string key per collection, in the shape
//! of the Python tool's file (`{"version": "1.0", "updated_at": ...,
//! "<records>": ...}`): `{swarm:NAME}:a2a:cards`, `a2a:tasks`,
//! `a2a:delegation_history`, `a2a:contexts`, `a2a:learning`,
//! `a2a:conflicts`; one per agent memory document,
//! `{swarm:NAME}:a2a:memory:<agent>`; and the coordination notes (the text
//! of `COORDINATION.md`) in `{swarm:NAME}:coordination`.
//!
//! `A2aStore::update` runs its change exactly once, so an optimistic
//! `WATCH` retry cannot be used. Each of those keys has a lock key beside
//! it, `<key>:lock`: a change takes it with `SET <lock> <token> NX PX`
//! (retrying with a short growing pause until a deadline), reads the
//! value, runs the change once and stores the result with a small script
//! that writes only while the lock still holds its token and releases it
//! in the same step. Releasing without a write is a compare-and-delete
//! script too, so a process never deletes a lock that expired and was
//! taken by another. The lock expires on its own when its holder dies.
//!
//! A damaged value is reported (`Stored::Damaged`); a change that
//! replaces it first copies it to `<key>:damaged:<unix-ms>-<random>` in
//! the same script, and the notes say where. Clearing a damaged memory
//! moves it there instead of deleting it.

use std::ops::ControlFlow;
use std::sync::LazyLock;
use std::time::{Duration, Instant};

use serde_json::Value;

use swarm_core::a2a::a2a_store::{A2aStore, Collection, Stored};
use swarm_core::a2a::{A2aError, AgentMemory, Cleared};
use swarm_core::support::json::{self, Layout};
use swarm_core::support::poll::Pauses;
use swarm_core::{AgentId, DEFAULT_LOCK_TIMEOUT, StoreError};

use super::conn::{Redis, RedisTarget};
use super::keys::Keys;

/// How long a lock lives when its holder never releases it (a process
/// killed in the middle of a change): well above any change, below the
/// time others wait for it.
const LOCK_TTL: Duration = Duration::from_secs(8);

/// How often a taken lock is tried again: from 2 ms up to 50 ms (a change
/// under a lock is a few round trips), with jitter, so that racing
/// waiters do not retry in step.
const LOCK_RETRIES: Pauses =
    Pauses::new(Duration::from_millis(2), Duration::from_millis(50)).with_jitter();

/// Writes the value (`ARGV[2]`: `set` with `ARGV[3]`, `del`, or `none`)
/// only while the lock `KEYS[1]` still holds the token `ARGV[1]`, first
/// copying the current value of `KEYS[2]` to `KEYS[3]` when `ARGV[4]` is
/// `1`, and releases the lock. Answers 1, or 0 when the lock was lost.
static STORE: LazyLock<redis::Script> = LazyLock::new(|| {
    redis::Script::new(
        r"
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
if ARGV[4] == '1' then
  local old = redis.call('GET', KEYS[2])
  if old then redis.call('SET', KEYS[3], old) end
end
if ARGV[2] == 'set' then
  redis.call('SET', KEYS[2], ARGV[3])
elseif ARGV[2] == 'del' then
  redis.call('DEL', KEYS[2])
end
redis.call('DEL', KEYS[1])
return 1
",
    )
});

/// Deletes the lock `KEYS[1]` only while it holds the token `ARGV[1]`.
static RELEASE: LazyLock<redis::Script> = LazyLock::new(|| {
    redis::Script::new(
        r"
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
",
    )
});

/// What a change under the lock leaves behind.
enum SlotChange {
    /// Nothing is written.
    Keep,
    /// The value becomes these bytes.
    Set(Vec<u8>),
    /// The value is deleted.
    Delete,
}

/// One value's key, its lock and where a damaged copy goes.
struct Slot {
    /// The value.
    key: String,
    /// Its lock.
    lock: String,
    /// Where a damaged copy is kept.
    aside: String,
}

/// The swarm's A2A records on Redis.
pub(crate) struct RedisA2a {
    target: RedisTarget,
    keys: Keys,
}

impl RedisA2a {
    /// The records of the swarm at `target`.
    pub(crate) fn new(target: RedisTarget) -> RedisA2a {
        RedisA2a {
            keys: target.keys(),
            target,
        }
    }

    /// Where `key` is, for messages.
    fn shown(&self, key: &str) -> String {
        format!(
            "{} (swarm {}) key {key}",
            self.target.shown_url(),
            self.target.name()
        )
    }

    /// The value `key` with its lock and where a damaged copy goes.
    fn slot(key: String) -> Slot {
        Slot {
            lock: Keys::lock_of(&key),
            aside: Keys::damaged(&key),
            key,
        }
    }

    /// Takes the lock of `slot`, waiting with a growing pause up to the
    /// files' lock timeout; returns the token that proves it is ours.
    fn lock(&self, r: &mut Redis, slot: &Slot) -> Result<String, StoreError> {
        let token = uuid::Uuid::new_v4().simple().to_string();
        let ttl_ms = u64::try_from(LOCK_TTL.as_millis()).unwrap_or(u64::MAX);
        let deadline = Instant::now() + DEFAULT_LOCK_TIMEOUT;
        let taken = LOCK_RETRIES.until(deadline, || {
            let set: Result<Option<String>, StoreError> = r.query(
                redis::cmd("SET")
                    .arg(&slot.lock)
                    .arg(&token)
                    .arg("NX")
                    .arg("PX")
                    .arg(ttl_ms),
            );
            match set {
                Ok(Some(_)) => ControlFlow::Break(Ok(())),
                Ok(None) => ControlFlow::Continue(()),
                Err(e) => ControlFlow::Break(Err(e)),
            }
        });
        match taken {
            Ok(Ok(())) => Ok(token),
            Ok(Err(e)) => Err(e),
            Err(()) => Err(StoreError::LockTimeout {
                path: slot.lock.clone().into(),
                timeout: DEFAULT_LOCK_TIMEOUT,
            }),
        }
    }

    /// Releases the lock of `slot` when it is still ours.
    fn release(&self, r: &mut Redis, slot: &Slot, token: &str) -> Result<(), StoreError> {
        let mut release = RELEASE.prepare_invoke();
        release.key(&slot.lock).arg(token);
        r.script::<i64>(&release)?;
        Ok(())
    }

    /// Stores `outcome` (keeping the current value aside first when
    /// `keep_aside`) and releases the lock, in one step that happens only
    /// while the lock is still ours.
    fn finish(
        &self,
        r: &mut Redis,
        slot: &Slot,
        token: &str,
        outcome: SlotChange,
        keep_aside: bool,
    ) -> Result<(), StoreError> {
        let (mode, bytes) = match outcome {
            SlotChange::Keep => ("none", Vec::new()),
            SlotChange::Set(bytes) => ("set", bytes),
            SlotChange::Delete => ("del", Vec::new()),
        };
        let mut store = STORE.prepare_invoke();
        store
            .key(&slot.lock)
            .key(&slot.key)
            .key(&slot.aside)
            .arg(token)
            .arg(mode)
            .arg(bytes)
            .arg(if keep_aside { "1" } else { "0" });
        let stored: i64 = r.script(&store)?;
        if stored == 1 {
            return Ok(());
        }
        Err(StoreError::Refused {
            url: self.target.shown_url(),
            detail: format!(
                "the lock {} expired before the change was stored (it took longer than {:?}); \
                 nothing was stored",
                slot.lock, LOCK_TTL
            ),
        })
    }

    /// Runs `body` holding the lock of `slot`: `body` reads, decides (once)
    /// and says what to store and whether to keep the old value aside.
    /// On an error nothing is stored and the lock is released.
    fn exclusive<T>(
        &self,
        key: String,
        body: impl FnOnce(&mut Redis, &Slot) -> Result<(SlotChange, bool, T), A2aError>,
    ) -> Result<T, A2aError> {
        let mut r = self.target.connect()?;
        let slot = Self::slot(key);
        let token = self.lock(&mut r, &slot)?;
        match body(&mut r, &slot) {
            Ok((outcome, keep_aside, out)) => {
                self.finish(&mut r, &slot, &token, outcome, keep_aside)?;
                Ok(out)
            }
            Err(e) => {
                // The change's error is what the caller needs; a failed
                // release only leaves the lock to expire.
                let _ = self.release(&mut r, &slot, &token);
                Err(e)
            }
        }
    }

    /// One value as stored, `None` when there is none.
    fn get(&self, key: &str) -> Result<Option<Vec<u8>>, StoreError> {
        let mut r = self.target.connect()?;
        r.query(redis::cmd("GET").arg(key))
    }
}

/// A collection's stored bytes as records, in the files' rules.
fn decode(which: Collection, raw: Option<&[u8]>) -> Stored {
    let Some(bytes) = raw else {
        return Stored::Missing;
    };
    match serde_json::from_slice::<Value>(bytes) {
        Ok(document) => which.records_of(document),
        Err(e) => Stored::Damaged(e.to_string()),
    }
}

/// The document of `records` in the Python tool's shape.
fn encode(which: Collection, records: Value, key: &str) -> Result<Vec<u8>, StoreError> {
    json::to_vec(&which.document(records), Layout::Indent2).map_err(|source| StoreError::Encode {
        path: key.into(),
        source,
    })
}

/// A memory document's stored bytes.
fn decode_memory(raw: Option<&[u8]>) -> Stored {
    match raw {
        None => Stored::Missing,
        Some(bytes) => match serde_json::from_slice::<Value>(bytes) {
            Ok(v) => Stored::Records(v),
            Err(e) => Stored::Damaged(e.to_string()),
        },
    }
}

impl A2aStore for RedisA2a {
    fn read(&self, which: Collection) -> Result<Stored, A2aError> {
        // One GET: a value is replaced whole, so it is one version.
        Ok(decode(which, self.get(&self.keys.a2a(which))?.as_deref()))
    }

    fn update(
        &self,
        which: Collection,
        notes: &mut Vec<String>,
        change: &mut dyn FnMut(Stored) -> Result<Option<Value>, A2aError>,
    ) -> Result<(), A2aError> {
        let location = self.location(which);
        self.exclusive(self.keys.a2a(which), |r, slot| {
            let raw: Option<Vec<u8>> = r.query(redis::cmd("GET").arg(&slot.key))?;
            let stored = decode(which, raw.as_deref());
            let damaged = match &stored {
                Stored::Damaged(why) => Some(why.clone()),
                _ => None,
            };
            let records = match change(stored) {
                Ok(Some(records)) => records,
                Ok(None) => return Ok((SlotChange::Keep, false, ())),
                Err(e) => {
                    if let Some(why) = damaged {
                        notes.push(format!(
                            "{location} is damaged ({why}); it was left as it is"
                        ));
                    }
                    return Err(e);
                }
            };
            if let Some(why) = &damaged {
                notes.push(format!(
                    "{location} was damaged ({why}); kept it as {} and started a new one",
                    slot.aside
                ));
            }
            let bytes = encode(which, records, &slot.key)?;
            Ok((SlotChange::Set(bytes), damaged.is_some(), ()))
        })
    }

    fn location(&self, which: Collection) -> String {
        self.shown(&self.keys.a2a(which))
    }

    fn read_memory(&self, agent: &AgentId) -> Result<Stored, A2aError> {
        Ok(decode_memory(
            self.get(&self.keys.memory(agent))?.as_deref(),
        ))
    }

    fn clear_memory(&self, agent: &AgentId) -> Result<Cleared, A2aError> {
        self.exclusive(self.keys.memory(agent), |r, slot| {
            let raw: Option<Vec<u8>> = r.query(redis::cmd("GET").arg(&slot.key))?;
            Ok(match raw {
                None => (SlotChange::Keep, false, Cleared::Nothing),
                Some(bytes) => match serde_json::from_slice::<AgentMemory>(&bytes) {
                    Ok(_) => (SlotChange::Delete, false, Cleared::Removed),
                    Err(_) => (
                        SlotChange::Delete,
                        true,
                        Cleared::MovedAside(slot.aside.clone()),
                    ),
                },
            })
        })
    }

    fn memory_location(&self, agent: &AgentId) -> String {
        self.shown(&self.keys.memory(agent))
    }

    fn read_coordination(&self) -> Result<Option<String>, A2aError> {
        Ok(self
            .get(&self.keys.coordination())?
            .map(|b| String::from_utf8_lossy(&b).into_owned()))
    }

    fn update_coordination(
        &self,
        change: &mut dyn FnMut(Option<String>) -> Result<Option<String>, A2aError>,
    ) -> Result<(), A2aError> {
        self.exclusive(self.keys.coordination(), |r, slot| {
            // Read under the lock: nobody writes between this read and
            // the write, so no entry is ever lost.
            let raw: Option<Vec<u8>> = r.query(redis::cmd("GET").arg(&slot.key))?;
            let current = raw.map(|b| String::from_utf8_lossy(&b).into_owned());
            Ok(match change(current)? {
                Some(text) => (SlotChange::Set(text.into_bytes()), false, ()),
                None => (SlotChange::Keep, false, ()),
            })
        })
    }

    fn coordination_location(&self) -> String {
        self.shown(&self.keys.coordination())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_server::TestServer;
    use swarm_core::contracts::a2a as contract;

    #[test]
    fn redis_a2a_keeps_the_contract() {
        let server = TestServer::start();
        contract::basics(&RedisA2a::new(server.target("basics")));
        contract::racing_updates(&RedisA2a::new(server.target("race")));
    }

    fn aside_values(r: &mut Redis, pattern: &str) -> Vec<String> {
        let keys: Vec<String> = r.query(redis::cmd("KEYS").arg(pattern)).expect("keys");
        keys.iter()
            .map(|k| r.query::<String>(redis::cmd("GET").arg(k)).expect("get"))
            .collect()
    }

    #[test]
    fn damaged_values_are_reported_kept_aside_and_replaced() {
        let server = TestServer::start();
        let target = server.target("damaged");
        let store = RedisA2a::new(target.clone());
        let mut r = target.connect().expect("connect");
        let cards = r.keys.a2a(Collection::Cards);
        r.query::<()>(redis::cmd("SET").arg(&cards).arg("{\"cards\": [1, 2]}"))
            .expect("set");
        assert!(matches!(
            store.read(Collection::Cards).expect("read"),
            Stored::Damaged(_)
        ));

        // A failed change leaves the damaged value where it is.
        let mut notes = Vec::new();
        let failed = store.update(Collection::Cards, &mut notes, &mut |_| {
            Err(A2aError::Invalid("no".into()))
        });
        assert!(failed.is_err());
        assert!(notes[0].contains("left as it is"), "{notes:?}");
        let now: String = r.query(redis::cmd("GET").arg(&cards)).expect("get");
        assert_eq!(now, "{\"cards\": [1, 2]}");

        let mut notes = Vec::new();
        store
            .update(Collection::Cards, &mut notes, &mut |stored| {
                assert!(matches!(stored, Stored::Damaged(_)));
                Ok(Some(serde_json::json!({"a": {"name": "x"}})))
            })
            .expect("update");
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(
            notes[0].contains("was damaged") && notes[0].contains(":a2a:cards:damaged:"),
            "{notes:?}"
        );
        assert_eq!(
            store.read(Collection::Cards).expect("read"),
            Stored::Records(serde_json::json!({"a": {"name": "x"}}))
        );
        assert_eq!(
            aside_values(&mut r, &format!("{cards}:damaged:*")),
            ["{\"cards\": [1, 2]}"]
        );

        // A damaged memory is moved aside, not deleted.
        let agent = AgentId::numbered(1);
        let memory = r.keys.memory(&agent);
        r.query::<()>(redis::cmd("SET").arg(&memory).arg("{"))
            .expect("set");
        assert!(matches!(
            store.read_memory(&agent).expect("read"),
            Stored::Damaged(_)
        ));
        let cleared = store.clear_memory(&agent).expect("clear");
        assert!(
            matches!(&cleared, Cleared::MovedAside(k) if k.contains(":a2a:memory:agent-1:damaged:")),
            "{cleared:?}"
        );
        assert_eq!(store.read_memory(&agent).expect("read"), Stored::Missing);
        assert_eq!(aside_values(&mut r, &format!("{memory}:damaged:*")), ["{"]);
        let locks: Vec<String> = r
            .query(redis::cmd("KEYS").arg(r.keys.pattern("*:lock")))
            .expect("keys");
        assert!(locks.is_empty(), "every lock was released: {locks:?}");
    }

    #[test]
    fn a_lock_held_by_someone_else_is_waited_for_and_never_deleted() {
        let server = TestServer::start();
        let target = server.target("held");
        let store = RedisA2a::new(target.clone());
        let mut r = target.connect().expect("connect");
        let lock = Keys::lock_of(&r.keys.coordination());
        // Another process holds the lock for 300 ms.
        r.query::<()>(
            redis::cmd("SET")
                .arg(&lock)
                .arg("theirs")
                .arg("PX")
                .arg(300),
        )
        .expect("set");
        // The update waits until the lock expires, then stores.
        store
            .update_coordination(&mut |_| Ok(Some("# Notes\n".into())))
            .expect("update");
        assert_eq!(
            store.read_coordination().expect("read").as_deref(),
            Some("# Notes\n")
        );
        // A release with a token that is not the lock's deletes nothing.
        r.query::<()>(redis::cmd("SET").arg(&lock).arg("theirs"))
            .expect("set");
        let slot = RedisA2a::slot(r.keys.coordination());
        store.release(&mut r, &slot, "mine").expect("release");
        let still: Option<String> = r.query(redis::cmd("GET").arg(&lock)).expect("get");
        assert_eq!(still.as_deref(), Some("theirs"));
    }
}
