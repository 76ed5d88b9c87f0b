//! The file locks on Redis: every lock of the swarm is one field of the
//! hash `{swarm:NAME}:locks` (field: the normalised path or pattern,
//! value: the lock as JSON with its fencing token and host), so that one
//! optimistic transaction sees every held lock, checks globs and
//! directories against all of them in Rust (the same `LockKey::overlaps`
//! as the files) and writes only if no other client changed the hash in
//! between. Of racing clients on any number of hosts exactly one commits;
//! the others run their check again on what is there now and find the
//! winner's lock.
//!
//! Time comes from the server (`TIME`), not from each host's clock, so
//! that staleness means the same on every host. Every acquisition takes
//! the next number of `{swarm:NAME}:fence`, a counter that only grows: a
//! holder that was paused past the stale timeout and lost its lock can be
//! told apart from the new holder by its smaller token. Takeovers and
//! forced releases are written to the stream `{swarm:NAME}:audit` in the
//! same transaction as the change they record.

use std::path::{Path, PathBuf};

use crate::locks::{
    Acquired, AcquiredLock, CleanReport, Conflict, HeldLock, LockEntry, LockError, LockKey,
    LockRecord, LockStore, Related, Released, lock_file_name,
};
use crate::store::StoreError;
use crate::store::audit::{AuditEvent, AuditKind};
use crate::support::json::{self, Layout};

use super::conn::{Redis, RedisTarget};

/// The swarm's locks on Redis, seen from one project checkout.
pub(crate) struct RedisLocks {
    target: RedisTarget,
    root: PathBuf,
    host: String,
    stale_after: f64,
}

impl RedisLocks {
    /// The locks of the swarm at `target`; `root` is this host's checkout
    /// (where directories are looked up), `host` this host's name.
    pub(crate) fn new(target: RedisTarget, root: &Path, host: &str, stale_after: u32) -> Self {
        RedisLocks {
            target,
            root: root.to_owned(),
            host: host.to_owned(),
            stale_after: f64::from(stale_after),
        }
    }

    fn connect(&self) -> Result<Redis, LockError> {
        Ok(self.target.connect()?)
    }

    fn overlapping<'a>(&self, all: &'a [HeldLock], key: &LockKey) -> Vec<&'a HeldLock> {
        all.iter()
            .filter(|h| {
                h.record.filepath == key.as_str()
                    || h.key.as_ref().is_some_and(|k| k.overlaps(key, &self.root))
            })
            .collect()
    }

    /// Every lock in the hash; an entry that does not parse (written by
    /// hand) is skipped: it cannot be shown as a lock, and the next
    /// acquisition of its path replaces it.
    fn read_all(&self, r: &mut Redis) -> Result<Vec<HeldLock>, StoreError> {
        let key = r.keys.locks();
        let raw: Vec<(String, Vec<u8>)> = r.query(redis::cmd("HGETALL").arg(&key))?;
        Ok(raw
            .into_iter()
            .filter_map(|(field, value)| {
                let name = lock_file_name(&field);
                let record = LockRecord::parse(&value, &name).ok()?;
                Some(HeldLock::new(name, record, &self.root))
            })
            .collect())
    }
}

impl LockStore for RedisLocks {
    fn acquire(
        &self,
        keys: &[LockKey],
        agent: &str,
        reason: Option<&str>,
        default_reason: &str,
    ) -> Result<Vec<AcquiredLock>, LockError> {
        let mut r = self.connect()?;
        let locks = r.keys.locks();
        let fence = r.keys.fence();
        let audit = r.keys.audit();
        let watch = [locks.clone(), fence.clone()];
        r.transaction(&watch, |r| {
            let now = server_time(r)?;
            let all = self.read_all(r)?;
            let mut conflicts = Vec::new();
            let mut plans: Vec<(&LockKey, Option<HeldLock>)> = Vec::new();
            for key in dedup(keys) {
                let mut exact = None;
                for held in self.overlapping(&all, key) {
                    let mine = held.record.agent_id == agent;
                    let stale = held.record.is_stale(now, self.stale_after);
                    if !mine && !stale {
                        conflicts.push(conflict(key, held, now));
                    }
                    if held.record.filepath == key.as_str() {
                        exact = Some(held.clone());
                    }
                }
                plans.push((key, exact));
            }
            if !conflicts.is_empty() {
                return Err(LockError::Held(conflicts));
            }
            let mut next: u64 = r
                .query::<Option<u64>>(redis::cmd("GET").arg(&fence))?
                .unwrap_or(0);
            let mut pipe = redis::pipe();
            let mut out = Vec::new();
            for (key, exact) in plans {
                next += 1;
                let how = match exact {
                    None => Acquired::Created,
                    Some(old) if old.record.agent_id == agent => Acquired::Refreshed,
                    Some(old) => Acquired::TookOver(Box::new(old)),
                };
                let reason = match (&how, reason) {
                    (_, Some(reason)) => reason.to_owned(),
                    (Acquired::Refreshed, None) => all
                        .iter()
                        .find(|h| h.record.filepath == key.as_str())
                        .map(|h| h.record.reason.clone())
                        .unwrap_or_default(),
                    (_, None) => default_reason.to_owned(),
                };
                let record = LockRecord {
                    agent_id: agent.to_owned(),
                    filepath: key.as_str().to_owned(),
                    locked_at: now,
                    reason,
                    fence: Some(next),
                    host: Some(self.host.clone()),
                };
                if let Acquired::TookOver(old) = &how {
                    let e = event(AuditKind::StaleTakeover, Some(agent), old);
                    pipe.cmd("XADD")
                        .arg(&audit)
                        .arg("*")
                        .arg("event")
                        .arg(line(&e));
                }
                pipe.cmd("HSET")
                    .arg(&locks)
                    .arg(key.as_str())
                    .arg(encode(&record));
                out.push(AcquiredLock { record, how });
            }
            pipe.cmd("SET").arg(&fence).arg(next);
            Ok((Some(pipe), out))
        })
    }

    fn release(
        &self,
        keys: &[LockKey],
        agent: &str,
        force: bool,
    ) -> Result<Vec<(LockKey, Released)>, LockError> {
        let mut r = self.connect()?;
        let locks = r.keys.locks();
        let audit = r.keys.audit();
        r.transaction(std::slice::from_ref(&locks), |r| {
            let all = self.read_all(r)?;
            let mut pipe = redis::pipe();
            let mut out = Vec::new();
            let mut writes = false;
            for key in dedup(keys) {
                let held = all.iter().find(|h| h.record.filepath == key.as_str());
                let plan = match held {
                    None => Released::NotLocked,
                    Some(h) if h.record.agent_id == agent => Released::Removed(h.clone()),
                    Some(h) if force => {
                        let e = event(AuditKind::ForceUnlock, Some(agent), h);
                        pipe.cmd("XADD")
                            .arg(&audit)
                            .arg("*")
                            .arg("event")
                            .arg(line(&e));
                        Released::Forced(h.clone())
                    }
                    Some(h) => {
                        return Err(LockError::NotHolder {
                            path: key.as_str().to_owned(),
                            holder: h.record.agent_id.clone(),
                            agent: agent.to_owned(),
                        });
                    }
                };
                if held.is_some() {
                    pipe.cmd("HDEL").arg(&locks).arg(key.as_str());
                    writes = true;
                }
                out.push((key.clone(), plan));
            }
            Ok((writes.then_some(pipe), out))
        })
    }

    fn related(&self, key: &LockKey) -> Result<Related, LockError> {
        let mut r = self.connect()?;
        let all = self.read_all(&mut r)?;
        let mut related = Related::default();
        for held in self.overlapping(&all, key) {
            if held.record.filepath == key.as_str() {
                related.exact = Some(LockEntry::Held(held.clone()));
            } else {
                related.others.push(held.clone());
            }
        }
        Ok(related)
    }

    fn blocking(&self, keys: &[LockKey], agent: Option<&str>) -> Result<Vec<Conflict>, LockError> {
        let mut r = self.connect()?;
        let now = server_time(&mut r)?;
        let all = self.read_all(&mut r)?;
        let mut found = Vec::new();
        for key in dedup(keys) {
            for held in self.overlapping(&all, key) {
                if Some(held.record.agent_id.as_str()) != agent
                    && !held.record.is_stale(now, self.stale_after)
                {
                    found.push(conflict(key, held, now));
                }
            }
        }
        Ok(found)
    }

    fn list(&self) -> Result<Vec<LockEntry>, LockError> {
        let mut r = self.connect()?;
        let mut all = self.read_all(&mut r)?;
        all.sort_by(|a, b| a.record.filepath.cmp(&b.record.filepath));
        Ok(all.into_iter().map(LockEntry::Held).collect())
    }

    fn clean(&self, by: Option<&str>) -> Result<CleanReport, LockError> {
        let mut r = self.connect()?;
        let locks = r.keys.locks();
        let audit = r.keys.audit();
        r.transaction(std::slice::from_ref(&locks), |r| {
            let now = server_time(r)?;
            let stale: Vec<HeldLock> = self
                .read_all(r)?
                .into_iter()
                .filter(|h| h.record.is_stale(now, self.stale_after))
                .collect();
            let mut pipe = redis::pipe();
            for h in &stale {
                let e = event(AuditKind::CleanStale, by, h);
                pipe.cmd("XADD")
                    .arg(&audit)
                    .arg("*")
                    .arg("event")
                    .arg(line(&e));
                pipe.cmd("HDEL").arg(&locks).arg(&h.record.filepath);
            }
            let writes = !stale.is_empty();
            let report = CleanReport {
                stale,
                ..CleanReport::default()
            };
            Ok((writes.then_some(pipe), report))
        })
    }

    fn is_stale(&self, record: &LockRecord, now: f64) -> bool {
        record.is_stale(now, self.stale_after)
    }

    fn location(&self, key: &LockKey) -> String {
        format!(
            "field {:?} of {} on {}",
            key.as_str(),
            self.target.keys().locks(),
            self.target.shown_url()
        )
    }
}

/// The server's clock, Unix seconds.
fn server_time(r: &mut Redis) -> Result<f64, StoreError> {
    let (secs, micros): (u64, u64) = r.query(&redis::cmd("TIME"))?;
    Ok(secs as f64 + micros as f64 / 1e6)
}

fn conflict(key: &LockKey, held: &HeldLock, now: f64) -> Conflict {
    Conflict {
        requested: key.as_str().to_owned(),
        age: held.record.age(now),
        held: held.clone(),
    }
}

fn event(kind: AuditKind, by: Option<&str>, held: &HeldLock) -> AuditEvent {
    let mut e = AuditEvent::new(kind, by);
    e.path = Some(held.record.filepath.clone());
    e.holder = Some(held.record.agent_id.clone());
    e.locked_at = Some(held.record.locked_at);
    e.reason = Some(held.record.reason.clone());
    e
}

fn line(e: &AuditEvent) -> Vec<u8> {
    json::to_vec(e, Layout::Line).unwrap_or_default()
}

fn encode(r: &LockRecord) -> Vec<u8> {
    json::to_vec(r, Layout::Line).unwrap_or_default()
}

fn dedup(keys: &[LockKey]) -> Vec<&LockKey> {
    let mut seen = std::collections::BTreeSet::new();
    keys.iter()
        .filter(|k| seen.insert(k.as_str().to_owned()))
        .collect()
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::backend::on_redis::test_server::TestServer;
    use crate::locks::lock_contract;

    fn store(server: &TestServer, name: &str, host: &str, stale: u32) -> RedisLocks {
        RedisLocks::new(server.target(name), Path::new("/nonexistent"), host, stale)
    }

    fn key(s: &str) -> LockKey {
        LockKey::from_stored(s, Path::new("/nonexistent")).expect("key")
    }

    #[test]
    fn redis_locks_keep_the_contract() {
        let server = TestServer::start();
        lock_contract::basic_rules(&store(&server, "basic", "a", 300));
        // 32 racers split over two hosts sharing the swarm, 500 rounds.
        let hosts: [Arc<dyn LockStore>; 2] = [
            Arc::new(store(&server, "race", "host-a", 300)),
            Arc::new(store(&server, "race", "host-b", 300)),
        ];
        lock_contract::one_winner_per_round(&hosts, 32, 500);
    }

    #[test]
    fn tokens_grow_stale_locks_are_taken_over_and_audited() {
        let server = TestServer::start();
        let a = store(&server, "t", "host-a", 60);
        let b = store(&server, "t", "host-b", 60);
        let first = a
            .acquire(&[key("x.py")], "agent-1", Some("mine"), "w")
            .expect("lock");
        let again = a
            .acquire(&[key("x.py")], "agent-1", None, "w")
            .expect("refresh");
        assert!(again[0].record.fence > first[0].record.fence);
        assert!(matches!(
            b.acquire(&[key("*.py")], "agent-2", None, "w"),
            Err(LockError::Held(c)) if c.len() == 1
        ));
        // Age the lock past the stale timeout by rewriting its time.
        let mut r = server.target("t").connect().expect("connect");
        let locks = r.keys.locks();
        let raw: Vec<u8> = r
            .query(redis::cmd("HGET").arg(&locks).arg("x.py"))
            .expect("hget");
        let mut old = LockRecord::parse(&raw, &lock_file_name("x.py")).expect("record");
        old.locked_at -= 120.0;
        r.query::<()>(redis::cmd("HSET").arg(&locks).arg("x.py").arg(encode(&old)))
            .expect("hset");
        let took = b
            .acquire(&[key("x.py")], "agent-2", None, "w")
            .expect("takeover");
        assert!(matches!(&took[0].how, Acquired::TookOver(h) if h.record.agent_id == "agent-1"));
        assert_eq!(took[0].record.host.as_deref(), Some("host-b"));
        let audit: usize = r
            .query(redis::cmd("XLEN").arg(r.keys.audit()))
            .expect("xlen");
        assert_eq!(audit, 1);
    }

    #[test]
    fn hand_written_garbage_in_the_hash_is_skipped_and_replaced() {
        let server = TestServer::start();
        let a = store(&server, "g", "a", 60);
        let mut r = server.target("g").connect().expect("connect");
        let locks = r.keys.locks();
        for (f, v) in [
            ("a.py", "not json"),
            (
                "b.py",
                r#"{"agent_id":"bad id","filepath":"b.py","locked_at":1,"reason":""}"#,
            ),
        ] {
            r.query::<()>(redis::cmd("HSET").arg(&locks).arg(f).arg(v))
                .expect("hset");
        }
        assert!(a.list().expect("list").is_empty());
        a.acquire(&[key("a.py")], "agent-1", None, "w")
            .expect("replaces garbage");
        assert_eq!(a.list().expect("list").len(), 1);
    }

    #[test]
    fn an_unreachable_server_fails_with_exit_code_8() {
        let t = RedisTarget::new(
            "redis://127.0.0.1:1",
            "x",
            std::time::Duration::from_millis(300),
        );
        let a = RedisLocks::new(t, Path::new("/nonexistent"), "a", 60);
        let e = a
            .acquire(&[key("a.py")], "agent-1", None, "w")
            .expect_err("down");
        assert_eq!(
            e.exit_code(),
            crate::support::exit_code::ExitCode::StoreUnavailable
        );
    }
}
