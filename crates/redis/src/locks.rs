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
//! Shared locks keep every holder's claim in the lock's JSON (`shared`,
//! `sharers`), and a lease its end (`expires_at`); the same rules as the
//! files decide (`locks::lock_plan`). Time comes from the server (`TIME`),
//! not from each host's clock, so that staleness and the end of a lease
//! mean the same on every host. Every acquisition takes
//! the next number of `{swarm:NAME}:fence`, a counter that only grows: a
//! holder that was paused past the stale timeout and lost its lock can be
//! told apart from the new holder by its smaller token. Takeovers and
//! forced releases are written to the stream `{swarm:NAME}:audit` in the
//! same transaction as the change they record.

use std::path::{Path, PathBuf};
use std::time::Duration;

use swarm_core::support::json::{self, Layout};
use swarm_core::{
    Acquired, AcquiredLock, AuditEvent, AuditKind, CleanReport, Conflict, HeldLock, LockEntry,
    LockError, LockKey, LockRecord, LockRequest, LockStore, Released, StoreError, lock_file_name,
};
use swarm_core::{Pruned, Related, Release, lapse_event, lock_event, lock_plan, renew_event};

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

    fn conflict(&self, key: &LockKey, held: &HeldLock, now: f64) -> Conflict {
        Conflict::new(key.as_str(), held.clone(), now, self.stale_after)
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
        request: &LockRequest<'_>,
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
                    if lock_plan::blocks(&held.record, request, now, self.stale_after) {
                        conflicts.push(self.conflict(key, held, now));
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
                let taken =
                    lock_plan::take(key.as_str(), exact.as_ref(), request, now, self.stale_after);
                let mut record = taken.record;
                record.fence = Some(next);
                record.host = Some(self.host.clone());
                for h in &taken.dropped {
                    let e = lapse_event(
                        AuditKind::StaleTakeover,
                        Some(request.agent),
                        key.as_str(),
                        h,
                    );
                    add_event(&mut pipe, &audit, &e);
                }
                pipe.cmd("HSET")
                    .arg(&locks)
                    .arg(key.as_str())
                    .arg(encode(&record));
                out.push(AcquiredLock {
                    record,
                    how: taken.how,
                });
            }
            pipe.cmd("SET").arg(&fence).arg(next);
            Ok((Some(pipe), out))
        })
    }

    fn renew(
        &self,
        keys: &[LockKey],
        agent: &str,
        ttl: Option<Duration>,
    ) -> Result<Vec<AcquiredLock>, LockError> {
        let mut r = self.connect()?;
        let locks = r.keys.locks();
        let fence = r.keys.fence();
        let audit = r.keys.audit();
        let watch = [locks.clone(), fence.clone()];
        r.transaction(&watch, |r| {
            let now = server_time(r)?;
            let all = self.read_all(r)?;
            let mut next: u64 = r
                .query::<Option<u64>>(redis::cmd("GET").arg(&fence))?
                .unwrap_or(0);
            let mut pipe = redis::pipe();
            let mut out = Vec::new();
            for key in dedup(keys) {
                let exact = all.iter().find(|h| h.record.filepath == key.as_str());
                let (mut record, hold) =
                    lock_plan::renew(key.as_str(), exact, agent, ttl, now, self.stale_after)?;
                next += 1;
                record.fence = Some(next);
                record.host = Some(self.host.clone());
                if hold.expires_at.is_some() {
                    add_event(&mut pipe, &audit, &renew_event(key.as_str(), &hold));
                }
                pipe.cmd("HSET")
                    .arg(&locks)
                    .arg(key.as_str())
                    .arg(encode(&record));
                out.push(AcquiredLock {
                    record,
                    how: Acquired::Renewed,
                });
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
                let Some(held) = all.iter().find(|h| h.record.filepath == key.as_str()) else {
                    out.push((key.clone(), Released::NotLocked));
                    continue;
                };
                let released = match lock_plan::release(key, held, agent, force)? {
                    Release::Remove(released) => {
                        if let Released::Forced(h) = &released {
                            let e = lock_event(AuditKind::ForceUnlock, Some(agent), h);
                            add_event(&mut pipe, &audit, &e);
                        }
                        pipe.cmd("HDEL").arg(&locks).arg(key.as_str());
                        released
                    }
                    Release::Rewrite(record, released) => {
                        pipe.cmd("HSET")
                            .arg(&locks)
                            .arg(key.as_str())
                            .arg(encode(&record));
                        released
                    }
                };
                writes = true;
                out.push((key.clone(), released));
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
            let locks: Vec<HeldLock> = self.overlapping(&all, key).into_iter().cloned().collect();
            found.extend(lock_plan::edit_blockers(
                key,
                &locks,
                agent,
                now,
                self.stale_after,
            ));
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
            let mut pipe = redis::pipe();
            let mut report = CleanReport::default();
            for h in self.read_all(r)? {
                let lapsed = match lock_plan::prune(&h.record, now, self.stale_after) {
                    Pruned::Unchanged => continue,
                    Pruned::Removed(lapsed) => {
                        pipe.cmd("HDEL").arg(&locks).arg(&h.record.filepath);
                        report.stale.push(h.clone());
                        lapsed
                    }
                    Pruned::Rewritten(record, lapsed) => {
                        pipe.cmd("HSET")
                            .arg(&locks)
                            .arg(&h.record.filepath)
                            .arg(encode(&record));
                        report.pruned.push(h.clone());
                        lapsed
                    }
                };
                for hold in &lapsed {
                    let e = lapse_event(AuditKind::CleanStale, by, &h.record.filepath, hold);
                    add_event(&mut pipe, &audit, &e);
                }
            }
            let writes = !report.stale.is_empty() || !report.pruned.is_empty();
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

/// Adds `e` to the audit stream `audit` in the transaction `pipe`.
fn add_event(pipe: &mut redis::Pipeline, audit: &str, e: &AuditEvent) {
    let line = json::to_vec(e, Layout::Line).unwrap_or_default();
    pipe.cmd("XADD").arg(audit).arg("*").arg("event").arg(line);
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
    use crate::test_server::TestServer;
    use swarm_core::contracts::locks as lock_contract;

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
        lock_contract::shared_and_exclusive(&store(&server, "shared", "a", 300));
        lock_contract::leases_lapse_and_renewals_hold(&store(&server, "lease", "a", 300));
        // 32 racers split over two hosts sharing the swarm, 500 rounds.
        let hosts: [Arc<dyn LockStore>; 2] = [
            Arc::new(store(&server, "race", "host-a", 300)),
            Arc::new(store(&server, "race", "host-b", 300)),
        ];
        lock_contract::one_winner_per_round(&hosts, 32, 500);
        let hosts: [Arc<dyn LockStore>; 2] = [
            Arc::new(store(&server, "mixed", "host-a", 300)),
            Arc::new(store(&server, "mixed", "host-b", 300)),
        ];
        lock_contract::shared_and_exclusive_racers_never_mix(&hosts, 16, 200);
    }

    #[test]
    fn tokens_grow_stale_locks_are_taken_over_and_audited() {
        let server = TestServer::start();
        let a = store(&server, "t", "host-a", 60);
        let b = store(&server, "t", "host-b", 60);
        let first = a
            .acquire(
                &[key("x.py")],
                &LockRequest::exclusive("agent-1", Some("mine"), "w"),
            )
            .expect("lock");
        let again = a
            .acquire(
                &[key("x.py")],
                &LockRequest::exclusive("agent-1", None, "w"),
            )
            .expect("refresh");
        assert!(again[0].record.fence > first[0].record.fence);
        assert!(matches!(
            b.acquire(&[key("*.py")], &LockRequest::exclusive("agent-2", None, "w")),
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
            .acquire(
                &[key("x.py")],
                &LockRequest::exclusive("agent-2", None, "w"),
            )
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
        a.acquire(
            &[key("a.py")],
            &LockRequest::exclusive("agent-1", None, "w"),
        )
        .expect("replaces garbage");
        assert_eq!(a.list().expect("list").len(), 1);
    }

    #[test]
    fn an_unreachable_server_fails_with_exit_code_8() {
        let t = RedisTarget::new("redis://127.0.0.1:1", "x", Duration::from_millis(300));
        let a = RedisLocks::new(t, Path::new("/nonexistent"), "a", 60);
        let e = a
            .acquire(
                &[key("a.py")],
                &LockRequest::exclusive("agent-1", None, "w"),
            )
            .expect_err("down");
        assert_eq!(e.exit_code(), swarm_core::ExitCode::StoreUnavailable);
    }
}
