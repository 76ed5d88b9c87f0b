//! `LockStore`: the storage seam for file locks, and what its operations
//! return. `FileLocks` (`on_files.rs`: lock files in `.agent_locks/`, the
//! Python tool's shape) is the first implementation; the Redis backend's is
//! the second.
//!
//! What every implementation guarantees:
//! * **one winner**: of racing `acquire` calls whose keys overlap (the same
//!   path, a directory and a path below it, a pattern and a path it
//!   matches), on any number of processes and hosts, at most one succeeds
//!   while the others' locks are live: the conflict check against every
//!   held lock and the creation are one atomic step;
//! * **all or nothing**: an `acquire` or `release` of several keys changes
//!   all of them or none;
//! * **stale takeover is atomic and recorded**: a lock older than the stale
//!   timeout is replaced in the same step that checks its age, and the
//!   takeover (like a forced release) is written to the audit record
//!   before or together with the change, never after it;
//! * **reads change nothing**: `list`, `related` and `blocking` take no
//!   lock and write nothing.

use super::LockEntry;
use super::conflict::Conflict;
use super::error::LockError;
use super::held_lock::HeldLock;
use super::lock_key::LockKey;
use super::lock_record::LockRecord;
use crate::support::time;

/// How a lock was obtained.
#[derive(Clone, Debug, PartialEq)]
pub enum Acquired {
    /// A new lock file.
    Created,
    /// The agent already held it; its time and reason were renewed.
    Refreshed,
    /// Another agent's stale lock on the same path was replaced.
    TookOver(Box<HeldLock>),
}

/// One lock obtained by `acquire`.
#[derive(Clone, Debug, PartialEq)]
pub struct AcquiredLock {
    /// What is now in the lock file.
    pub record: LockRecord,
    /// How.
    pub how: Acquired,
}

/// What `release` did for one path.
#[derive(Clone, Debug, PartialEq)]
pub enum Released {
    /// The agent's own lock was removed.
    Removed(HeldLock),
    /// Another agent's lock was removed with `force`.
    Forced(HeldLock),
    /// A damaged lock file was removed with `force`.
    ForcedDamaged(String),
    /// There was no lock on it.
    NotLocked,
}

/// What `clean` removed.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CleanReport {
    /// Stale locks removed.
    pub stale: Vec<HeldLock>,
    /// Damaged lock files removed, with what was wrong with them.
    pub damaged: Vec<(String, String)>,
    /// Damaged files left alone because they were written moments ago.
    pub young_damaged: usize,
}

/// Locks related to one path or pattern.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Related {
    /// The lock file of exactly this key, if there is one.
    pub exact: Option<LockEntry>,
    /// Other locks that overlap it (ancestors, patterns, locks below it).
    pub others: Vec<HeldLock>,
}

/// The current time as Unix seconds (the unit of `locked_at`).
pub(crate) fn now() -> f64 {
    time::unix_seconds(time::now())
}

/// The locks of one project.
pub(crate) trait LockStore: Send + Sync {
    /// Takes locks on all of `keys` for `agent`, or on none of them: when
    /// another agent's live lock overlaps any key, nothing changes and the
    /// error lists every such lock. The agent's own locks never stand in
    /// its way; re-locking its own lock refreshes it (keeping its reason
    /// unless `reason` gives one); another agent's stale lock on the same
    /// key is taken over. New locks without a `reason` get
    /// `default_reason`.
    fn acquire(
        &self,
        keys: &[LockKey],
        agent: &str,
        reason: Option<&str>,
        default_reason: &str,
    ) -> Result<Vec<AcquiredLock>, LockError>;

    /// Releases `agent`'s locks on `keys`; another agent's (or a damaged
    /// entry) only with `force`, recorded first. Without `force`, a lock
    /// held by someone else fails the whole call and nothing is released.
    fn release(
        &self,
        keys: &[LockKey],
        agent: &str,
        force: bool,
    ) -> Result<Vec<(LockKey, Released)>, LockError>;

    /// The lock on exactly `key` and the other locks overlapping it.
    fn related(&self, key: &LockKey) -> Result<Related, LockError>;

    /// Live locks of agents other than `agent` (all agents when `None`)
    /// that overlap any of `keys`: what would stop `agent` from locking.
    fn blocking(&self, keys: &[LockKey], agent: Option<&str>) -> Result<Vec<Conflict>, LockError>;

    /// Every lock, valid ones sorted by path, then damaged entries.
    fn list(&self) -> Result<Vec<LockEntry>, LockError>;

    /// Removes every stale lock (and damaged entries old enough), each
    /// recorded first.
    fn clean(&self, by: Option<&str>) -> Result<CleanReport, LockError>;

    /// True when `record` is stale at `now` (Unix seconds).
    fn is_stale(&self, record: &LockRecord, now: f64) -> bool;

    /// Where the lock of `key` is kept, for messages.
    fn location(&self, key: &LockKey) -> String;
}

#[cfg(test)]
pub(crate) mod contract {
    //! The guarantees above, checked through `&dyn LockStore` so that every
    //! implementation runs the same tests.

    use std::path::Path;
    use std::sync::{Arc, Barrier};

    use super::*;
    use crate::locks::Acquired;

    fn key(s: &str) -> LockKey {
        LockKey::from_stored(s, Path::new("/project")).expect("key")
    }

    /// Acquire, refresh, conflict through a pattern, all-or-nothing,
    /// release by the holder only.
    pub(crate) fn basic_rules(store: &dyn LockStore) {
        let a = key("src/a.py");
        let got = store
            .acquire(std::slice::from_ref(&a), "agent-1", Some("mine"), "w")
            .expect("lock");
        assert_eq!(got[0].how, Acquired::Created);
        let again = store
            .acquire(std::slice::from_ref(&a), "agent-1", None, "w")
            .expect("refresh");
        assert_eq!(again[0].how, Acquired::Refreshed);
        assert_eq!(again[0].record.reason, "mine");
        let pattern = key("src/*.py");
        let other = key("docs/x.md");
        match store.acquire(&[other.clone(), pattern.clone()], "agent-2", None, "w") {
            Err(LockError::Held(c)) => assert_eq!(c.len(), 1),
            other => panic!("expected a conflict, got {other:?}"),
        }
        assert!(
            store.related(&other).expect("related").exact.is_none(),
            "all or nothing: docs/x.md was not locked"
        );
        assert_eq!(
            store
                .blocking(std::slice::from_ref(&pattern), Some("agent-2"))
                .expect("b")
                .len(),
            1
        );
        assert!(
            store
                .blocking(&[pattern], Some("agent-1"))
                .expect("b")
                .is_empty()
        );
        assert!(matches!(
            store.release(std::slice::from_ref(&a), "agent-2", false),
            Err(LockError::NotHolder { .. })
        ));
        let released = store
            .release(std::slice::from_ref(&a), "agent-1", false)
            .expect("release");
        assert!(matches!(released[0].1, Released::Removed(_)));
        assert!(store.list().expect("list").is_empty());
    }

    /// `racers` threads race for one key per round, half of them through
    /// a pattern covering it, racer `i` through `stores[i % len]` (several
    /// hosts sharing one store): exactly one wins each round.
    pub(crate) fn one_winner_per_round(
        stores: &[Arc<dyn LockStore>],
        racers: usize,
        rounds: usize,
    ) {
        let barrier = Arc::new(Barrier::new(racers));
        let handles: Vec<_> = (0..racers)
            .map(|i| {
                let store = Arc::clone(&stores[i % stores.len()]);
                let barrier = Arc::clone(&barrier);
                std::thread::spawn(move || {
                    let agent = format!("agent-{i}");
                    let mut won = Vec::new();
                    for round in 0..rounds {
                        let text = if i % 2 == 0 {
                            format!("r{round}/a.py")
                        } else {
                            format!("r{round}/*.py")
                        };
                        let k = LockKey::from_stored(&text, Path::new("/project")).expect("key");
                        barrier.wait();
                        let got = store
                            .acquire(std::slice::from_ref(&k), &agent, None, "race")
                            .is_ok();
                        // Everyone has tried before the winner lets go,
                        // so the store stays small and every round is a
                        // fresh race.
                        barrier.wait();
                        if got {
                            won.push(round);
                            store.release(&[k], &agent, false).expect("release");
                        }
                    }
                    won
                })
            })
            .collect();
        let mut wins: Vec<usize> = handles
            .into_iter()
            .flat_map(|h| h.join().expect("racer"))
            .collect();
        wins.sort_unstable();
        assert_eq!(
            wins,
            (0..rounds).collect::<Vec<_>>(),
            "one winner per round"
        );
    }
}
