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

use serde::{Deserialize, Serialize};

use crate::locks::{Conflict, HeldLock, LockError, LockKey, LockRecord};
use crate::store::StoreError;
use crate::store::audit::{AuditEvent, AuditKind};
use crate::support::json::{self, Layout};

use super::conn::{Redis, RedisTarget};

/// One lock as stored in the hash.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct StoredLock {
    /// The holder.
    pub agent_id: String,
    /// The normalised path or pattern.
    pub filepath: String,
    /// When it was taken or refreshed, Unix seconds, server time.
    pub locked_at: f64,
    /// Why.
    pub reason: String,
    /// The fencing token of this acquisition.
    pub fence: u64,
    /// The host whose command took it.
    pub host: String,
}

impl StoredLock {
    fn record(&self) -> LockRecord {
        LockRecord {
            agent_id: self.agent_id.clone(),
            filepath: self.filepath.clone(),
            locked_at: self.locked_at,
            reason: self.reason.clone(),
        }
    }
}

/// A lock read back, with what it covers.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct RedisHeld {
    /// The lock as the files would show it.
    pub held: HeldLock,
    /// Its fencing token.
    pub fence: u64,
    /// Where it was taken.
    pub host: String,
}

/// How `acquire` got one lock.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum RedisAcquired {
    /// A new lock.
    Created,
    /// The agent's own lock, renewed (with a new token).
    Refreshed,
    /// Another agent's stale lock, replaced.
    TookOver(Box<RedisHeld>),
}

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

    /// Takes locks on all of `keys` for `agent`, or none: the same rules
    /// as the files (own locks refresh, another agent's stale lock on the
    /// same key is taken over, any other overlapping live lock refuses
    /// the whole call and is listed). Returns each lock with its token.
    pub(crate) fn acquire(
        &self,
        keys: &[LockKey],
        agent: &str,
        reason: Option<&str>,
        default_reason: &str,
    ) -> Result<Vec<(StoredLock, RedisAcquired)>, LockError> {
        let mut r = self.connect()?;
        let locks = r.keys.key("locks");
        let fence = r.keys.key("fence");
        let audit = r.keys.key("audit");
        let watch = [locks.clone(), fence.clone()];
        r.transaction(&watch, |r| {
            let now = server_time(r)?;
            let all = self.read_all(r)?;
            let mut conflicts = Vec::new();
            let mut plans: Vec<(&LockKey, Option<RedisHeld>)> = Vec::new();
            for key in dedup(keys) {
                let mut exact = None;
                for held in &all {
                    let same = held.held.record.filepath == key.as_str();
                    let overlaps = same
                        || held
                            .held
                            .key
                            .as_ref()
                            .is_some_and(|k| k.overlaps(key, &self.root));
                    if !overlaps {
                        continue;
                    }
                    let mine = held.held.record.agent_id == agent;
                    let stale = held.held.record.is_stale(now, self.stale_after);
                    if same {
                        if !mine && !stale {
                            conflicts.push(conflict(key, held, now));
                        }
                        exact = Some(held.clone());
                    } else if !mine && !stale {
                        conflicts.push(conflict(key, held, now));
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
                    None => RedisAcquired::Created,
                    Some(old) if old.held.record.agent_id == agent => RedisAcquired::Refreshed,
                    Some(old) => RedisAcquired::TookOver(Box::new(old)),
                };
                let reason = match (&how, reason) {
                    (_, Some(reason)) => reason.to_owned(),
                    (RedisAcquired::Refreshed, None) => all
                        .iter()
                        .find(|h| h.held.record.filepath == key.as_str())
                        .map(|h| h.held.record.reason.clone())
                        .unwrap_or_default(),
                    (_, None) => default_reason.to_owned(),
                };
                let stored = StoredLock {
                    agent_id: agent.to_owned(),
                    filepath: key.as_str().to_owned(),
                    locked_at: now,
                    reason,
                    fence: next,
                    host: self.host.clone(),
                };
                if let RedisAcquired::TookOver(old) = &how {
                    let e = event(AuditKind::StaleTakeover, Some(agent), &old.held);
                    pipe.cmd("XADD")
                        .arg(&audit)
                        .arg("*")
                        .arg("event")
                        .arg(line(&e));
                }
                pipe.cmd("HSET")
                    .arg(&locks)
                    .arg(key.as_str())
                    .arg(encode(&stored));
                out.push((stored, how));
            }
            pipe.cmd("SET").arg(&fence).arg(next);
            Ok((Some(pipe), out))
        })
    }

    /// Releases `agent`'s locks on `keys`; another agent's only with
    /// `force`, recorded in the audit stream in the same transaction.
    /// Returns, per key, the lock removed (if there was one).
    pub(crate) fn release(
        &self,
        keys: &[LockKey],
        agent: &str,
        force: bool,
    ) -> Result<Vec<(LockKey, Option<RedisHeld>)>, LockError> {
        let mut r = self.connect()?;
        let locks = r.keys.key("locks");
        let audit = r.keys.key("audit");
        r.transaction(&[locks.clone()], |r| {
            let all = self.read_all(r)?;
            let mut pipe = redis::pipe();
            let mut out = Vec::new();
            let mut writes = false;
            for key in dedup(keys) {
                let held = all
                    .iter()
                    .find(|h| h.held.record.filepath == key.as_str())
                    .cloned();
                if let Some(h) = &held {
                    if h.held.record.agent_id != agent {
                        if !force {
                            return Err(LockError::NotHolder {
                                path: key.as_str().to_owned(),
                                holder: h.held.record.agent_id.clone(),
                                agent: agent.to_owned(),
                            });
                        }
                        let e = event(AuditKind::ForceUnlock, Some(agent), &h.held);
                        pipe.cmd("XADD")
                            .arg(&audit)
                            .arg("*")
                            .arg("event")
                            .arg(line(&e));
                    }
                    pipe.cmd("HDEL").arg(&locks).arg(key.as_str());
                    writes = true;
                }
                out.push((key.clone(), held));
            }
            Ok((writes.then_some(pipe), out))
        })
    }

    /// Every lock, sorted by path (read-only).
    pub(crate) fn list(&self) -> Result<Vec<RedisHeld>, LockError> {
        let mut r = self.connect()?;
        let mut all = self.read_all(&mut r)?;
        all.sort_by(|a, b| a.held.record.filepath.cmp(&b.held.record.filepath));
        Ok(all)
    }

    /// Live locks of agents other than `agent` overlapping any of `keys`
    /// (read-only).
    pub(crate) fn blocking(
        &self,
        keys: &[LockKey],
        agent: Option<&str>,
    ) -> Result<Vec<Conflict>, LockError> {
        let mut r = self.connect()?;
        let now = server_time(&mut r)?;
        let all = self.read_all(&mut r)?;
        let mut found = Vec::new();
        for key in dedup(keys) {
            for held in &all {
                let rec = &held.held.record;
                let overlaps = rec.filepath == key.as_str()
                    || held
                        .held
                        .key
                        .as_ref()
                        .is_some_and(|k| k.overlaps(key, &self.root));
                if overlaps
                    && Some(rec.agent_id.as_str()) != agent
                    && !rec.is_stale(now, self.stale_after)
                {
                    found.push(conflict(key, held, now));
                }
            }
        }
        Ok(found)
    }

    /// Removes every stale lock (each recorded in the audit stream).
    pub(crate) fn clean(&self, by: Option<&str>) -> Result<Vec<RedisHeld>, LockError> {
        let mut r = self.connect()?;
        let locks = r.keys.key("locks");
        let audit = r.keys.key("audit");
        r.transaction(&[locks.clone()], |r| {
            let now = server_time(r)?;
            let stale: Vec<RedisHeld> = self
                .read_all(r)?
                .into_iter()
                .filter(|h| h.held.record.is_stale(now, self.stale_after))
                .collect();
            if stale.is_empty() {
                return Ok((None, stale));
            }
            let mut pipe = redis::pipe();
            for h in &stale {
                let e = event(AuditKind::CleanStale, by, &h.held);
                pipe.cmd("XADD")
                    .arg(&audit)
                    .arg("*")
                    .arg("event")
                    .arg(line(&e));
                pipe.cmd("HDEL").arg(&locks).arg(&h.held.record.filepath);
            }
            Ok((Some(pipe), stale))
        })
    }

    /// Every lock in the hash; an entry that does not parse (written by
    /// hand) is skipped: it cannot be shown as a lock, and the next
    /// acquisition of its path replaces it.
    fn read_all(&self, r: &mut Redis) -> Result<Vec<RedisHeld>, StoreError> {
        let key = r.keys.key("locks");
        let raw: Vec<(String, String)> = r.query(redis::cmd("HGETALL").arg(&key))?;
        Ok(raw
            .into_iter()
            .filter_map(|(field, value)| {
                let stored: StoredLock = serde_json::from_str(&value).ok()?;
                (stored.filepath == field && stored.locked_at.is_finite()).then_some(())?;
                crate::domain::validate::agent_id(&stored.agent_id).ok()?;
                let record = stored.record();
                let name = crate::locks::lock_file_name(&record.filepath);
                Some(RedisHeld {
                    held: HeldLock::new(name, record, &self.root),
                    fence: stored.fence,
                    host: stored.host,
                })
            })
            .collect())
    }
}

/// The server's clock, Unix seconds.
fn server_time(r: &mut Redis) -> Result<f64, StoreError> {
    let (secs, micros): (u64, u64) = r.query(&redis::cmd("TIME"))?;
    Ok(secs as f64 + micros as f64 / 1e6)
}

fn conflict(key: &LockKey, held: &RedisHeld, now: f64) -> Conflict {
    Conflict {
        requested: key.as_str().to_owned(),
        age: held.held.record.age(now),
        held: held.held.clone(),
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

fn encode(s: &StoredLock) -> Vec<u8> {
    json::to_vec(s, Layout::Line).unwrap_or_default()
}

fn dedup(keys: &[LockKey]) -> Vec<&LockKey> {
    let mut seen = std::collections::BTreeSet::new();
    keys.iter()
        .filter(|k| seen.insert(k.as_str().to_owned()))
        .collect()
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Barrier};

    use super::*;
    use crate::backend::on_redis::test_server::TestServer;

    fn key(s: &str) -> LockKey {
        LockKey::from_stored(s, Path::new("/nonexistent")).expect("key")
    }

    #[test]
    fn one_winner_per_round_across_two_hosts() {
        let server = TestServer::start();
        let rounds = 40;
        let racers = 16;
        let barrier = Arc::new(Barrier::new(racers));
        let handles: Vec<_> = (0..racers)
            .map(|i| {
                let host = if i % 2 == 0 { "host-a" } else { "host-b" };
                let locks =
                    RedisLocks::new(server.target("race"), Path::new("/nonexistent"), host, 300);
                let barrier = Arc::clone(&barrier);
                std::thread::spawn(move || {
                    let agent = format!("agent-{i}");
                    let mut won = Vec::new();
                    for round in 0..rounds {
                        // Half race for a path, half for a pattern over it.
                        let k = if i % 4 < 2 {
                            key(&format!("src/r{round}/a.py"))
                        } else {
                            key(&format!("src/r{round}/*.py"))
                        };
                        barrier.wait();
                        if let Ok(got) = locks.acquire(&[k], &agent, None, "race") {
                            won.push((round, got[0].0.fence));
                        }
                    }
                    won
                })
            })
            .collect();
        let mut wins: Vec<(usize, u64)> = handles
            .into_iter()
            .flat_map(|h| h.join().expect("racer"))
            .collect();
        wins.sort();
        let rounds_won: Vec<usize> = wins.iter().map(|(r, _)| *r).collect();
        assert_eq!(
            rounds_won,
            (0..rounds).collect::<Vec<_>>(),
            "one winner per round"
        );
        let mut fences: Vec<u64> = wins.iter().map(|(_, f)| *f).collect();
        fences.dedup();
        assert_eq!(fences.len(), rounds, "every acquisition has its own token");
    }

    #[test]
    fn tokens_grow_stale_locks_are_taken_over_and_audited() {
        let server = TestServer::start();
        let a = RedisLocks::new(server.target("t"), Path::new("/nonexistent"), "a", 60);
        let first = a
            .acquire(&[key("x.py")], "agent-1", Some("mine"), "w")
            .expect("lock");
        let again = a
            .acquire(&[key("x.py")], "agent-1", None, "w")
            .expect("refresh");
        assert_eq!(again[0].1, RedisAcquired::Refreshed);
        assert_eq!(again[0].0.reason, "mine");
        assert!(again[0].0.fence > first[0].0.fence);
        assert!(matches!(
            a.acquire(&[key("*.py")], "agent-2", None, "w"),
            Err(LockError::Held(c)) if c.len() == 1
        ));
        // Age the lock past the stale timeout by rewriting its time.
        let mut r = server.target("t").connect().expect("connect");
        let locks = r.keys.key("locks");
        let mut old: StoredLock = serde_json::from_str(
            &r.query::<String>(redis::cmd("HGET").arg(&locks).arg("x.py"))
                .expect("hget"),
        )
        .expect("json");
        old.locked_at -= 120.0;
        r.query::<()>(redis::cmd("HSET").arg(&locks).arg("x.py").arg(encode(&old)))
            .expect("hset");
        let took = a
            .acquire(&[key("x.py")], "agent-2", None, "w")
            .expect("takeover");
        assert!(
            matches!(&took[0].1, RedisAcquired::TookOver(h) if h.held.record.agent_id == "agent-1")
        );
        let audit: usize = r
            .query(redis::cmd("XLEN").arg(r.keys.key("audit")))
            .expect("xlen");
        assert_eq!(audit, 1);
        assert!(matches!(
            a.release(&[key("x.py")], "agent-1", false),
            Err(LockError::NotHolder { .. })
        ));
        let released = a
            .release(&[key("x.py")], "agent-2", false)
            .expect("release");
        assert!(released[0].1.is_some());
        assert!(a.list().expect("list").is_empty());
    }

    #[test]
    fn hand_written_garbage_in_the_hash_is_skipped() {
        let server = TestServer::start();
        let a = RedisLocks::new(server.target("g"), Path::new("/nonexistent"), "a", 60);
        let mut r = server.target("g").connect().expect("connect");
        let locks = r.keys.key("locks");
        for (f, v) in [
            ("a.py", "not json"),
            (
                "b.py",
                r#"{"agent_id":"bad id","filepath":"b.py","locked_at":1,"reason":"","fence":1,"host":"h"}"#,
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
}
