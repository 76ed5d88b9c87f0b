//! `LockStore`: the storage seam for file locks, and what its operations
//! return. `FileLocks` (`on_files.rs`: lock files in `.agent_locks/`, the
//! Python tool's shape) is the first implementation; the Redis backend's is
//! the second.
//!
//! What every implementation guarantees:
//! * **one winner**: of racing `acquire` calls whose keys overlap (the same
//!   path, a directory and a path below it, a pattern and a path it
//!   matches), on any number of processes and hosts, at most one succeeds
//!   while the others' locks are live, unless all of them ask for shared
//!   locks, which all succeed: the conflict check against every held lock
//!   and the write are one atomic step, so the winners are exactly one
//!   exclusive taker or any number of shared ones, never both;
//! * **leases end by themselves**: a claim with a lease holds until its
//!   end and not a moment longer, whether or not any process runs; every
//!   reader treats it as gone after that (the same rules for every store:
//!   `lock_plan.rs`);
//! * **all or nothing**: an `acquire` or `release` of several keys changes
//!   all of them or none;
//! * **stale takeover is atomic and recorded**: a lock whose claims have
//!   all lapsed (older than the stale timeout, or past their lease) is
//!   replaced in the same step that checks it, and the takeover (like a
//!   forced release, an ended lease removed or a renewed one) is written
//!   to the audit record before or together with the change, never after
//!   it;
//! * **reads change nothing**: `list`, `related` and `blocking` take no
//!   lock and write nothing.

use std::time::Duration;

use super::LockEntry;
use super::conflict::Conflict;
use super::error::LockError;
use super::held_lock::HeldLock;
use super::lock_key::LockKey;
use super::lock_record::LockRecord;
use super::lock_request::LockRequest;
use crate::support::time;

/// How a lock was obtained.
#[derive(Clone, Debug, PartialEq)]
pub enum Acquired {
    /// A new lock file.
    Created,
    /// The agent already held it; its time and reason were renewed.
    Refreshed,
    /// A place in a shared lock that other agents hold too.
    Joined,
    /// The agent's claim was renewed (`--renew`): it counts from now.
    Renewed,
    /// Another agent's stale lock (or ended lease) on the same path was
    /// replaced.
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
    /// The agent's claim on a shared lock was removed; the others still
    /// hold it (as given).
    Left(HeldLock),
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
    /// Stale locks (and ended leases) removed.
    pub stale: Vec<HeldLock>,
    /// Shared locks that lost lapsed claims but still hold (as they were).
    pub pruned: Vec<HeldLock>,
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
pub fn unix_now() -> f64 {
    time::unix_seconds(time::now())
}

/// The locks of one project.
pub trait LockStore: Send + Sync {
    /// Takes locks on all of `keys` as `request` asks, or on none of
    /// them: when another agent's live lock overlaps any key (and not both
    /// it and the request are shared), nothing changes and the error
    /// lists every such lock. The agent's own locks never stand in its
    /// way; re-locking its own lock renews its claim with the request's
    /// terms (keeping its reason unless the request gives one; without a
    /// ttl the stale timeout applies again); a shared lock others hold is
    /// joined; a lock whose claims have all lapsed is taken over. New
    /// locks without a reason get the request's default reason.
    fn acquire(
        &self,
        keys: &[LockKey],
        request: &LockRequest<'_>,
    ) -> Result<Vec<AcquiredLock>, LockError>;

    /// Renews `agent`'s claims on exactly `keys`, all or none: each counts
    /// from now, for `ttl`, else for the length of its lease (a claim
    /// without either is refreshed). Refused (`LockError::NotHeld`) when
    /// the agent holds no live claim on one of them; a renewed lease is
    /// recorded.
    fn renew(
        &self,
        keys: &[LockKey],
        agent: &str,
        ttl: Option<Duration>,
    ) -> Result<Vec<AcquiredLock>, LockError>;

    /// Releases `agent`'s locks on `keys` (of a shared lock: its claim, the
    /// others keep it); another agent's (or a damaged entry) only with
    /// `force`, recorded first. Without `force`, a lock held by someone
    /// else fails the whole call and nothing is released.
    fn release(
        &self,
        keys: &[LockKey],
        agent: &str,
        force: bool,
    ) -> Result<Vec<(LockKey, Released)>, LockError>;

    /// The lock on exactly `key` and the other locks overlapping it.
    fn related(&self, key: &LockKey) -> Result<Related, LockError>;

    /// The live locks overlapping any of `keys` that stop `agent` (anyone,
    /// when `None`) from changing those paths: every lock with another
    /// agent's claim, and shared locks (being read, by the agent too)
    /// unless the agent also holds an exclusive lock covering the key.
    fn blocking(&self, keys: &[LockKey], agent: Option<&str>) -> Result<Vec<Conflict>, LockError>;

    /// Every lock, valid ones sorted by path, then damaged entries.
    fn list(&self) -> Result<Vec<LockEntry>, LockError>;

    /// Removes every lock whose claims have all lapsed, the lapsed claims
    /// of shared locks others still hold (and damaged entries old
    /// enough), each recorded first.
    fn clean(&self, by: Option<&str>) -> Result<CleanReport, LockError>;

    /// True when `record` holds nobody at `now` (Unix seconds): stale, or
    /// past the end of its leases.
    fn is_stale(&self, record: &LockRecord, now: f64) -> bool;

    /// Where the lock of `key` is kept, for messages.
    fn location(&self, key: &LockKey) -> String;
}

#[cfg(any(test, feature = "testing"))]
pub mod contract {
    //! The guarantees above, checked through `&dyn LockStore` so that every
    //! implementation runs the same tests.

    use std::path::Path;
    use std::sync::{Arc, Barrier};
    use std::time::Instant;

    use super::*;
    use crate::locks::Acquired;

    fn key(s: &str) -> LockKey {
        LockKey::from_stored(s, Path::new("/project")).expect("key")
    }

    fn ask(agent: &str, shared: bool, ttl: Option<Duration>) -> LockRequest<'_> {
        LockRequest {
            agent,
            reason: None,
            default_reason: "w",
            shared,
            ttl,
        }
    }

    fn take(
        store: &dyn LockStore,
        k: &LockKey,
        agent: &str,
        shared: bool,
    ) -> Result<Vec<AcquiredLock>, LockError> {
        store.acquire(std::slice::from_ref(k), &ask(agent, shared, None))
    }

    /// Waits (up to a deadline, never a fixed time) until `check` holds.
    fn wait_until(what: &str, mut check: impl FnMut() -> bool) {
        let started = Instant::now();
        while !check() {
            assert!(
                started.elapsed() < Duration::from_secs(60),
                "timed out waiting until {what}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Acquire, refresh, conflict through a pattern, all-or-nothing,
    /// release by the holder only.
    pub fn basic_rules(store: &dyn LockStore) {
        let a = key("src/a.py");
        let got = store
            .acquire(
                std::slice::from_ref(&a),
                &LockRequest::exclusive("agent-1", Some("mine"), "w"),
            )
            .expect("lock");
        assert_eq!(got[0].how, Acquired::Created);
        let again = take(store, &a, "agent-1", false).expect("refresh");
        assert_eq!(again[0].how, Acquired::Refreshed);
        assert_eq!(again[0].record.reason, "mine");
        let pattern = key("src/*.py");
        let other = key("docs/x.md");
        match store.acquire(
            &[other.clone(), pattern.clone()],
            &ask("agent-2", false, None),
        ) {
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
    pub fn one_winner_per_round(stores: &[Arc<dyn LockStore>], racers: usize, rounds: usize) {
        let mut wins: Vec<usize> = race(stores, racers, rounds, "r", |i| (i % 2 == 1, false))
            .into_iter()
            .map(|(round, _)| round)
            .collect();
        wins.sort_unstable();
        assert_eq!(
            wins,
            (0..rounds).collect::<Vec<_>>(),
            "one winner per round"
        );
    }

    /// `racers` threads race for a key `<prefix><round>/a.py` per round,
    /// racer `i` through `stores[i % len]`, as `how(i)` says (through the
    /// pattern `<prefix><round>/*.py`, for a shared lock); each winner lets
    /// go once everyone has tried, so every round is a fresh race. Returns
    /// each win as (round, shared).
    fn race(
        stores: &[Arc<dyn LockStore>],
        racers: usize,
        rounds: usize,
        prefix: &'static str,
        how: fn(usize) -> (bool, bool),
    ) -> Vec<(usize, bool)> {
        let barrier = Arc::new(Barrier::new(racers));
        let handles: Vec<_> = (0..racers)
            .map(|i| {
                let store = Arc::clone(&stores[i % stores.len()]);
                let barrier = Arc::clone(&barrier);
                std::thread::spawn(move || {
                    let agent = format!("agent-{i}");
                    let (through_pattern, shared) = how(i);
                    let mut won = Vec::new();
                    for round in 0..rounds {
                        let text = if through_pattern {
                            format!("{prefix}{round}/*.py")
                        } else {
                            format!("{prefix}{round}/a.py")
                        };
                        let k = LockKey::from_stored(&text, Path::new("/project")).expect("key");
                        barrier.wait();
                        let got = take(&*store, &k, &agent, shared).is_ok();
                        barrier.wait();
                        if got {
                            won.push((round, shared));
                            store.release(&[k], &agent, false).expect("release");
                        }
                    }
                    won
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("racer"))
            .collect()
    }

    /// Shared locks go together and exclusive ones do not, through
    /// patterns and directories too; holders are named; a holder leaves a
    /// shared lock to the others; an edit needs the path free of readers;
    /// only a holder renews its claim.
    pub fn shared_and_exclusive(store: &dyn LockStore) {
        let a = key("s/a.py");
        assert_eq!(
            take(store, &a, "agent-1", true).expect("first reader")[0].how,
            Acquired::Created
        );
        assert_eq!(
            take(store, &a, "agent-2", true).expect("second reader")[0].how,
            Acquired::Joined
        );
        match take(store, &a, "agent-3", false) {
            Err(LockError::Held(c)) => {
                assert_eq!(c.len(), 1);
                assert_eq!(c[0].holders, ["agent-1", "agent-2"]);
                assert!(c[0].to_string().contains("shared"), "{}", c[0]);
            }
            other => panic!("an exclusive lock under readers: {other:?}"),
        }
        // Overlaps: an exclusive pattern or directory is refused, a
        // shared pattern reads along.
        assert!(matches!(
            take(store, &key("s/*.py"), "agent-3", false),
            Err(LockError::Held(_))
        ));
        assert!(matches!(
            take(store, &key("s"), "agent-3", false),
            Err(LockError::Held(_))
        ));
        take(store, &key("s/*.py"), "agent-3", true).expect("a shared pattern");
        // No agent edits under readers, its own reading included; nor
        // upgrades while others read.
        assert!(
            !store
                .blocking(std::slice::from_ref(&a), Some("agent-1"))
                .expect("b")
                .is_empty()
        );
        assert!(
            !store
                .blocking(std::slice::from_ref(&a), Some("agent-4"))
                .expect("b")
                .is_empty()
        );
        assert!(matches!(
            take(store, &a, "agent-1", false),
            Err(LockError::Held(_))
        ));
        // Renewing is for holders.
        match store.renew(std::slice::from_ref(&a), "agent-4", None) {
            Err(e @ LockError::NotHeld { .. }) => {
                assert_eq!(e.exit_code(), crate::support::exit_code::ExitCode::LockHeld);
                assert!(e.to_string().contains("agent-1"), "{e}");
            }
            other => panic!("renewing someone else's lock: {other:?}"),
        }
        assert!(matches!(
            store.renew(std::slice::from_ref(&key("s/none.py")), "agent-1", None),
            Err(LockError::NotHeld { .. })
        ));
        // Leaving.
        let left = store
            .release(std::slice::from_ref(&a), "agent-1", false)
            .expect("leave");
        assert!(matches!(&left[0].1, Released::Left(h) if h.record.agent_id == "agent-2"));
        store
            .release(&[key("s/*.py")], "agent-3", false)
            .expect("release");
        // agent-2 reads alone now: it may upgrade, and then edit.
        assert_eq!(
            take(store, &a, "agent-2", false).expect("upgrade")[0].how,
            Acquired::Refreshed
        );
        assert!(
            store
                .blocking(std::slice::from_ref(&a), Some("agent-2"))
                .expect("b")
                .is_empty()
        );
        // An exclusive lock refuses readers.
        match take(store, &key("s/*"), "agent-1", true) {
            Err(LockError::Held(c)) => assert_eq!(c[0].holders, ["agent-2"]),
            other => panic!("a reader under a writer: {other:?}"),
        }
        store
            .release(std::slice::from_ref(&a), "agent-2", false)
            .expect("release");
        assert!(store.list().expect("list").is_empty());
    }

    /// A lease lapses by itself at its end: readers find the path free
    /// and `clean` removes it (recorded); a renewed lease outlives its
    /// first end. Nothing here waits a fixed time: each step waits, with a
    /// deadline, for what it can observe.
    pub fn leases_lapse_and_renewals_hold(store: &dyn LockStore) {
        let short = Some(Duration::from_secs(2));
        let (lapsing, renewed, witness) = (
            key("l/lapsing.py"),
            key("l/renewed.py"),
            key("l/witness.py"),
        );
        store
            .acquire(
                std::slice::from_ref(&lapsing),
                &ask("agent-1", false, short),
            )
            .expect("lease");
        store
            .acquire(
                std::slice::from_ref(&renewed),
                &ask("agent-1", false, short),
            )
            .expect("lease");
        // Taken after `renewed`, so it ends after `renewed` would have.
        store
            .acquire(
                std::slice::from_ref(&witness),
                &ask("agent-1", false, short),
            )
            .expect("lease");
        let got = store
            .renew(
                std::slice::from_ref(&renewed),
                "agent-1",
                Some(Duration::from_secs(3600)),
            )
            .expect("renew");
        assert_eq!(got[0].how, Acquired::Renewed);
        assert!(got[0].record.expires_at.is_some());
        wait_until("the witness lease lapses", || {
            store
                .blocking(std::slice::from_ref(&witness), Some("agent-2"))
                .expect("b")
                .is_empty()
        });
        assert!(
            store
                .blocking(std::slice::from_ref(&lapsing), Some("agent-2"))
                .expect("b")
                .is_empty(),
            "a lease ended earlier than the witness's has lapsed too"
        );
        assert_eq!(
            store
                .blocking(std::slice::from_ref(&renewed), Some("agent-2"))
                .expect("b")
                .len(),
            1,
            "the renewed lease still holds"
        );
        assert!(matches!(
            store.renew(std::slice::from_ref(&lapsing), "agent-1", None),
            Err(LockError::NotHeld { .. })
        ));
        // Another agent takes the lapsed path; clean removes the other.
        let over = take(store, &lapsing, "agent-2", false).expect("take over");
        assert!(matches!(over[0].how, Acquired::TookOver(_)));
        let report = store.clean(Some("agent-9")).expect("clean");
        assert_eq!(report.stale.len(), 1);
        assert_eq!(report.stale[0].record.filepath, "l/witness.py");
        store
            .release(&[lapsing], "agent-2", false)
            .expect("release");
        store
            .release(&[renewed], "agent-1", false)
            .expect("release");
        assert!(store.list().expect("list").is_empty());
    }

    /// `racers` threads race each round for one key, through a pattern or
    /// the path, half of them for shared locks: the winners of a round are
    /// exactly one exclusive taker, or any number of shared ones (at least
    /// one), never both.
    pub fn shared_and_exclusive_racers_never_mix(
        stores: &[Arc<dyn LockStore>],
        racers: usize,
        rounds: usize,
    ) {
        let mut per_round = vec![(0usize, 0usize); rounds];
        for (round, shared) in race(stores, racers, rounds, "m", |i| (i % 4 >= 2, i % 2 == 1)) {
            if shared {
                per_round[round].1 += 1;
            } else {
                per_round[round].0 += 1;
            }
        }
        for (round, (exclusive, shared)) in per_round.into_iter().enumerate() {
            assert!(
                (exclusive == 1 && shared == 0) || (exclusive == 0 && shared >= 1),
                "round {round}: {exclusive} exclusive and {shared} shared winners"
            );
        }
    }
}
