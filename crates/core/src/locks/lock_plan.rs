//! The rules of shared locks and leases, apart from any store: whether a
//! lock stands in the way of a request or of an edit, and what taking,
//! renewing, releasing and cleaning make of one lock. `FileLocks` and the
//! Redis store both decide through these functions, inside their own
//! atomic step, so both keep the same rules.
//!
//! A lock has one claim (`Hold`) per holder; it holds while any claim
//! does. A claim lapses at the end of its lease, or without one when it
//! is older than the stale timeout. Shared locks go together with shared
//! locks; anything else of another agent's stands in the way.

use std::time::Duration;

use crate::support::time;

use super::conflict::Conflict;
use super::error::LockError;
use super::held_lock::HeldLock;
use super::hold::Hold;
use super::lock_key::LockKey;
use super::lock_record::LockRecord;
use super::lock_request::LockRequest;
use super::lock_store::{Acquired, Released};

/// True when `held`, a lock overlapping a key of `request`, stands in its
/// way at `now`: another agent's claim on it still holds, and not both it
/// and the request are shared.
pub fn blocks(held: &LockRecord, request: &LockRequest<'_>, now: f64, stale_after: f64) -> bool {
    let others = held
        .live_holds(now, stale_after)
        .iter()
        .any(|h| h.agent_id != request.agent);
    others && !(request.shared && held.shared)
}

/// What taking a key made of its own lock.
#[derive(Clone, Debug, PartialEq)]
pub struct Taken {
    /// The lock as it is now (no fencing token or host yet).
    pub record: LockRecord,
    /// How it was obtained.
    pub how: Acquired,
    /// Other agents' claims that had lapsed and are gone now (each is
    /// recorded in the audit log).
    pub dropped: Vec<Hold>,
}

/// Takes `key` for `request` at `now`, given its own lock `exact` (which
/// `blocks` found not in the way): a new lock, the agent's claim renewed
/// (with the request's terms), a place in a shared lock others hold, or a
/// lock whose claims have all lapsed taken over.
pub fn take(
    key: &str,
    exact: Option<&HeldLock>,
    request: &LockRequest<'_>,
    now: f64,
    stale_after: f64,
) -> Taken {
    let claim = |old: Option<&Hold>| Hold {
        agent_id: request.agent.to_owned(),
        locked_at: now,
        reason: match (request.reason, old) {
            (Some(reason), _) => reason.to_owned(),
            (None, Some(old)) => old.reason.clone(),
            (None, None) => request.default_reason.to_owned(),
        },
        expires_at: request.ttl.map(|ttl| now + ttl.as_secs_f64()),
    };
    let Some(old) = exact else {
        let record = LockRecord::from_holds(key, request.shared, vec![claim(None)]);
        return Taken {
            record: record.unwrap_or_default(),
            how: Acquired::Created,
            dropped: Vec::new(),
        };
    };
    let holds = old.record.holds();
    let mine = holds.iter().find(|h| h.agent_id == request.agent);
    let mut kept = Vec::new();
    let mut dropped = Vec::new();
    for h in &holds {
        if h.agent_id == request.agent {
            kept.push(claim(mine));
        } else if h.has_lapsed(now, stale_after) {
            dropped.push(h.clone());
        } else {
            kept.push(h.clone());
        }
    }
    let others_hold = kept.len() > usize::from(mine.is_some());
    if mine.is_none() {
        kept.push(claim(None));
    }
    let how = match (mine, others_hold) {
        (Some(_), _) => Acquired::Refreshed,
        (None, true) => Acquired::Joined,
        (None, false) => Acquired::TookOver(Box::new(old.clone())),
    };
    Taken {
        record: LockRecord::from_holds(key, request.shared, kept).unwrap_or_default(),
        how,
        dropped,
    }
}

/// Renews `agent`'s claim on `key` (its own lock `exact`) at `now`: the
/// claim counts from now, for `ttl`, else for the length of its lease
/// (without either it is a plain refresh). Refused when the agent holds
/// no live claim on it. Returns the lock and the renewed claim.
pub fn renew(
    key: &str,
    exact: Option<&HeldLock>,
    agent: &str,
    ttl: Option<Duration>,
    now: f64,
    stale_after: f64,
) -> Result<(LockRecord, Hold), LockError> {
    let refused = |holders: Vec<String>, why: String| LockError::NotHeld {
        path: key.to_owned(),
        agent: agent.to_owned(),
        holders,
        why,
    };
    let Some(old) = exact else {
        return Err(refused(Vec::new(), format!("{agent} holds no lock on it")));
    };
    let holds = old.record.holds();
    let Some(mine) = holds.iter().find(|h| h.agent_id == agent) else {
        let live: Vec<String> = old
            .record
            .live_holds(now, stale_after)
            .into_iter()
            .map(|h| h.agent_id)
            .collect();
        let why = if live.is_empty() {
            format!("{agent} holds no lock on it")
        } else {
            format!("it is held by {}, not {agent}", live.join(", "))
        };
        return Err(refused(live, why));
    };
    if mine.has_lapsed(now, stale_after) {
        let ended = mine.lapses_at(stale_after);
        let what = if mine.expires_at.is_some() {
            "lease ended"
        } else {
            "lock went stale"
        };
        return Err(refused(
            Vec::new(),
            format!(
                "{agent}'s {what} {} ago; lock it again",
                time::human_duration(now - ended)
            ),
        ));
    }
    let ttl = ttl.map(|t| t.as_secs_f64()).or(mine.ttl());
    let renewed = Hold {
        agent_id: agent.to_owned(),
        locked_at: now,
        reason: mine.reason.clone(),
        expires_at: ttl.map(|t| now + t),
    };
    let holds = holds
        .into_iter()
        .map(|h| {
            if h.agent_id == agent {
                renewed.clone()
            } else {
                h
            }
        })
        .collect();
    let record = LockRecord::from_holds(key, old.record.shared, holds).unwrap_or_default();
    Ok((record, renewed))
}

/// What releasing one lock does.
#[derive(Clone, Debug, PartialEq)]
pub enum Release {
    /// The lock goes.
    Remove(Released),
    /// The lock stays with its other holders, as given.
    Rewrite(LockRecord, Released),
}

/// Releases `agent`'s claim on the lock `exact` of `key`: the lock goes
/// with its last claim; another agent's lock only with `force` (all of
/// it).
pub fn release(
    key: &LockKey,
    exact: &HeldLock,
    agent: &str,
    force: bool,
) -> Result<Release, LockError> {
    let holds = exact.record.holds();
    if !holds.iter().any(|h| h.agent_id == agent) {
        if force {
            return Ok(Release::Remove(Released::Forced(exact.clone())));
        }
        return Err(LockError::NotHolder {
            path: key.as_str().to_owned(),
            holder: holds
                .iter()
                .map(|h| h.agent_id.as_str())
                .collect::<Vec<_>>()
                .join(", "),
            agent: agent.to_owned(),
        });
    }
    let others: Vec<Hold> = holds.into_iter().filter(|h| h.agent_id != agent).collect();
    match LockRecord::from_holds(&exact.record.filepath, exact.record.shared, others) {
        None => Ok(Release::Remove(Released::Removed(exact.clone()))),
        Some(mut rest) => {
            rest.fence = exact.record.fence;
            rest.host.clone_from(&exact.record.host);
            let left = HeldLock {
                record: rest.clone(),
                ..exact.clone()
            };
            Ok(Release::Rewrite(rest, Released::Left(left)))
        }
    }
}

/// What cleaning makes of one lock.
#[derive(Clone, Debug, PartialEq)]
pub enum Pruned {
    /// Every claim still holds.
    Unchanged,
    /// Every claim has lapsed (given): the lock goes.
    Removed(Vec<Hold>),
    /// Some claims have lapsed (given): the lock stays with the others.
    Rewritten(LockRecord, Vec<Hold>),
}

/// Drops the lapsed claims of `record` at `now`.
pub fn prune(record: &LockRecord, now: f64, stale_after: f64) -> Pruned {
    let (lapsed, live): (Vec<Hold>, Vec<Hold>) = record
        .holds()
        .into_iter()
        .partition(|h| h.has_lapsed(now, stale_after));
    if lapsed.is_empty() {
        return Pruned::Unchanged;
    }
    match LockRecord::from_holds(&record.filepath, record.shared, live) {
        None => Pruned::Removed(lapsed),
        Some(mut rest) => {
            rest.fence = record.fence;
            rest.host.clone_from(&record.host);
            Pruned::Rewritten(rest, lapsed)
        }
    }
}

/// The live locks among `locks` (all overlapping `key`) that stop `agent`
/// (anyone, when `None`) from changing the paths of `key`: a lock with a
/// claim of another agent, and a shared lock (being read, its own holder
/// included), unless the agent holds a live exclusive lock covering `key`.
pub fn edit_blockers(
    key: &LockKey,
    locks: &[HeldLock],
    agent: Option<&str>,
    now: f64,
    stale_after: f64,
) -> Vec<Conflict> {
    let live: Vec<&HeldLock> = locks
        .iter()
        .filter(|h| !h.record.is_stale(now, stale_after))
        .collect();
    let mine_alone = |h: &HeldLock| {
        h.record
            .live_holds(now, stale_after)
            .iter()
            .all(|c| Some(c.agent_id.as_str()) == agent)
    };
    let exclusive_mine = live.iter().any(|h| {
        !h.record.shared && mine_alone(h) && h.key.as_ref().is_some_and(|k| k.covers(key))
    });
    live.into_iter()
        .filter(|h| !mine_alone(h) || (h.record.shared && !exclusive_mine))
        .map(|h| Conflict::new(key.as_str(), h.clone(), now, stale_after))
        .collect()
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    const STALE: f64 = 300.0;

    fn key(s: &str) -> LockKey {
        LockKey::from_stored(s, Path::new("/nonexistent")).expect("key")
    }

    fn held(path: &str, shared: bool, holds: &[(&str, f64, Option<f64>)]) -> HeldLock {
        let holds = holds
            .iter()
            .map(|(a, at, end)| Hold {
                agent_id: (*a).into(),
                locked_at: *at,
                reason: format!("{a}'s"),
                expires_at: *end,
            })
            .collect();
        let record = LockRecord::from_holds(path, shared, holds).expect("held");
        HeldLock::new(
            super::super::lock_file_name(path),
            record,
            Path::new("/nonexistent"),
        )
    }

    fn ask(agent: &str, shared: bool, ttl: Option<u64>) -> LockRequest<'_> {
        LockRequest {
            agent,
            reason: None,
            default_reason: "default",
            shared,
            ttl: ttl.map(Duration::from_secs),
        }
    }

    #[test]
    fn readers_share_and_anything_else_of_another_agent_is_in_the_way() {
        let reading = held("a.py", true, &[("agent-1", 1000.0, None)]);
        let writing = held("a.py", false, &[("agent-1", 1000.0, None)]);
        let now = 1010.0;
        assert!(!blocks(
            &reading.record,
            &ask("agent-2", true, None),
            now,
            STALE
        ));
        assert!(blocks(
            &reading.record,
            &ask("agent-2", false, None),
            now,
            STALE
        ));
        assert!(blocks(
            &writing.record,
            &ask("agent-2", true, None),
            now,
            STALE
        ));
        assert!(!blocks(
            &writing.record,
            &ask("agent-1", true, None),
            now,
            STALE
        ));
        // Lapsed claims stand in nobody's way.
        assert!(!blocks(
            &writing.record,
            &ask("agent-2", false, None),
            1400.0,
            STALE
        ));
        let lease = held("a.py", false, &[("agent-1", 1000.0, Some(2000.0))]);
        assert!(blocks(
            &lease.record,
            &ask("agent-2", false, None),
            1999.0,
            STALE
        ));
        assert!(!blocks(
            &lease.record,
            &ask("agent-2", false, None),
            2000.5,
            STALE
        ));
    }

    #[test]
    fn taking_creates_joins_refreshes_and_takes_over() {
        let got = take("a.py", None, &ask("agent-1", true, Some(60)), 100.0, STALE);
        assert_eq!(got.how, Acquired::Created);
        assert_eq!(got.record.expires_at, Some(160.0));
        assert_eq!(got.record.reason, "default");
        let first = held("a.py", true, &[("agent-1", 100.0, Some(160.0))]);
        let joined = take(
            "a.py",
            Some(&first),
            &ask("agent-2", true, None),
            110.0,
            STALE,
        );
        assert_eq!(joined.how, Acquired::Joined);
        let ids: Vec<String> = joined
            .record
            .holds()
            .into_iter()
            .map(|h| h.agent_id)
            .collect();
        assert_eq!(ids, ["agent-1", "agent-2"]);
        // agent-1's lease has ended: agent-2 refreshing drops it.
        let both = HeldLock {
            record: joined.record,
            ..first.clone()
        };
        let again = take(
            "a.py",
            Some(&both),
            &ask("agent-2", true, None),
            170.0,
            STALE,
        );
        assert_eq!(again.how, Acquired::Refreshed);
        assert_eq!(again.record.agent_id, "agent-2");
        assert_eq!(
            again.record.reason, "default",
            "the reason it joined with is kept"
        );
        assert_eq!(again.dropped.len(), 1);
        // Everything lapsed: taken over.
        let over = take(
            "a.py",
            Some(&first),
            &ask("agent-3", false, None),
            170.0,
            STALE,
        );
        assert!(matches!(over.how, Acquired::TookOver(_)));
        assert!(!over.record.shared && over.record.sharers.is_empty());
    }

    #[test]
    fn renewing_needs_a_live_claim_and_keeps_the_lease_length() {
        let lease = held("a.py", false, &[("agent-1", 100.0, Some(160.0))]);
        let (record, hold) =
            renew("a.py", Some(&lease), "agent-1", None, 150.0, STALE).expect("renew");
        assert_eq!(hold.expires_at, Some(210.0));
        assert_eq!(record.expires_at, Some(210.0));
        let (_, longer) = renew(
            "a.py",
            Some(&lease),
            "agent-1",
            Some(Duration::from_secs(600)),
            150.0,
            STALE,
        )
        .expect("renew");
        assert_eq!(longer.expires_at, Some(750.0));
        let theirs =
            renew("a.py", Some(&lease), "agent-2", None, 150.0, STALE).expect_err("not mine");
        assert!(matches!(&theirs, LockError::NotHeld { holders, .. } if holders == &["agent-1"]));
        assert_eq!(
            theirs.exit_code(),
            crate::support::exit_code::ExitCode::LockHeld
        );
        let late = renew("a.py", Some(&lease), "agent-1", None, 161.0, STALE).expect_err("lapsed");
        assert!(late.to_string().contains("lease ended"), "{late}");
        assert_eq!(
            late.exit_code(),
            crate::support::exit_code::ExitCode::Failure
        );
        assert!(renew("a.py", None, "agent-1", None, 1.0, STALE).is_err());
    }

    #[test]
    fn releasing_a_shared_lock_leaves_it_to_the_others() {
        let both = held(
            "a.py",
            true,
            &[("agent-1", 1.0, None), ("agent-2", 2.0, None)],
        );
        match release(&key("a.py"), &both, "agent-1", false) {
            Ok(Release::Rewrite(rest, Released::Left(_))) => {
                assert_eq!(rest.agent_id, "agent-2");
                assert!(rest.shared && rest.sharers.is_empty());
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            release(&key("a.py"), &both, "agent-3", false),
            Err(LockError::NotHolder { .. })
        ));
        assert!(matches!(
            release(&key("a.py"), &both, "agent-3", true),
            Ok(Release::Remove(Released::Forced(_)))
        ));
    }

    #[test]
    fn pruning_drops_lapsed_claims_only() {
        let both = held(
            "a.py",
            true,
            &[("agent-1", 100.0, Some(110.0)), ("agent-2", 100.0, None)],
        );
        assert_eq!(prune(&both.record, 105.0, STALE), Pruned::Unchanged);
        assert!(
            matches!(prune(&both.record, 120.0, STALE), Pruned::Rewritten(r, d) if r.agent_id == "agent-2" && d.len() == 1)
        );
        assert!(matches!(prune(&both.record, 500.0, STALE), Pruned::Removed(d) if d.len() == 2));
    }

    #[test]
    fn an_edit_needs_the_path_free_of_readers_and_of_other_writers() {
        let k = key("src/a.py");
        let now = 10.0;
        let reading = held("src/a.py", true, &[("agent-1", 1.0, None)]);
        let ids =
            |c: Vec<Conflict>| -> Vec<Vec<String>> { c.into_iter().map(|c| c.holders).collect() };
        // Someone else reads it, or the editor itself does: no edit.
        assert_eq!(
            ids(edit_blockers(
                &k,
                std::slice::from_ref(&reading),
                Some("agent-2"),
                now,
                STALE
            ))
            .len(),
            1
        );
        assert_eq!(
            ids(edit_blockers(
                &k,
                std::slice::from_ref(&reading),
                Some("agent-1"),
                now,
                STALE
            ))
            .len(),
            1
        );
        // ...unless it also holds the path exclusively.
        let dir = held("src", false, &[("agent-1", 1.0, None)]);
        assert!(
            edit_blockers(
                &k,
                &[reading.clone(), dir.clone()],
                Some("agent-1"),
                now,
                STALE
            )
            .is_empty()
        );
        assert_eq!(
            edit_blockers(&k, std::slice::from_ref(&dir), Some("agent-2"), now, STALE).len(),
            1
        );
        assert_eq!(edit_blockers(&k, &[dir], None, now, STALE).len(), 1);
        // Lapsed locks stop nobody.
        assert!(edit_blockers(&k, &[reading], Some("agent-2"), 400.0, STALE).is_empty());
    }
}
