//! `LockTerms`: what a lock file cannot say, kept beside it in
//! `.swarm/lock_terms/<lock file name>.json`: the holders of a shared lock
//! and the ends of leases (docs/FORMATS.md).
//!
//! The lock file keeps the Python tool's four keys, so that the Python
//! tool reads it and keeps out of the path: a shared lock is held there by
//! the pseudo-agent `shared-lock`, and the file's `locked_at` is set so
//! that the lock goes stale (for the Python tool, and for a swarm that
//! lost the terms) exactly when its last claim lapses. The terms name the
//! file content they belong to (`agent_id`, `locked_at`); when the file
//! says something else (the Python tool replaced it), they are ignored
//! and the file alone is the lock.

use serde::{Deserialize, Serialize};

use super::hold::Hold;
use super::lock_record::{LockRecord, MAX_REASON_CHARS};

/// The holder a lock file names for a shared lock.
pub(crate) const SHARED_HOLDER: &str = "shared-lock";

/// Bumped when the meaning of a field changes; terms of another version
/// are ignored.
const TERMS_VERSION: u32 = 1;

/// The terms of one lock file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct LockTerms {
    /// `TERMS_VERSION`.
    pub version: u32,
    /// The lock file's `agent_id` when the terms were written.
    pub agent_id: String,
    /// The lock file's `locked_at` when the terms were written.
    pub locked_at: f64,
    /// A shared lock.
    pub shared: bool,
    /// Every claim on it, in order.
    pub holders: Vec<Hold>,
}

/// The file name of the terms of the lock file `lock_file`.
pub(crate) fn terms_name(lock_file: &str) -> String {
    format!("{lock_file}.json")
}

/// The lock file content for `record` and, when the file cannot say it
/// all (a shared lock, a lease), the terms to keep beside it.
/// `stale_after` is the stale timeout the Python tool applies.
pub(crate) fn split(record: &LockRecord, stale_after: f64) -> (LockRecord, Option<LockTerms>) {
    let plain = |agent_id: &str, locked_at: f64, reason: &str| LockRecord {
        agent_id: agent_id.to_owned(),
        filepath: record.filepath.clone(),
        locked_at,
        reason: reason.to_owned(),
        ..LockRecord::default()
    };
    if !record.shared && !record.has_lease() {
        return (
            plain(&record.agent_id, record.locked_at, &record.reason),
            None,
        );
    }
    // Stale for the Python tool (`now - locked_at > stale_after`) exactly
    // when the last claim lapses.
    let locked_at = record.lapses_at(stale_after) - stale_after;
    let file = if record.shared {
        plain(SHARED_HOLDER, locked_at, &shared_reason(record))
    } else {
        plain(&record.agent_id, locked_at, &record.reason)
    };
    let terms = LockTerms {
        version: TERMS_VERSION,
        agent_id: file.agent_id.clone(),
        locked_at: file.locked_at,
        shared: record.shared,
        holders: record.holds(),
    };
    (file, Some(terms))
}

/// The lock that the file content `file` and the terms found beside it
/// describe: the terms' when they belong to this content, else the
/// file's alone.
pub(crate) fn join(file: LockRecord, terms: Option<LockTerms>) -> LockRecord {
    let Some(terms) = terms else { return file };
    let belongs = terms.version == TERMS_VERSION
        && terms.agent_id == file.agent_id
        && terms.locked_at.to_bits() == file.locked_at.to_bits()
        && (terms.shared
            || (terms.holders.len() == 1 && terms.holders[0].agent_id == file.agent_id));
    if !belongs {
        return file;
    }
    let Some(record) = LockRecord::from_holds(&file.filepath, terms.shared, terms.holders) else {
        return file;
    };
    // Checked like any stored lock: terms written by hand are no excuse
    // for an invalid holder.
    match record.check() {
        Ok(()) => record,
        Err(_) => file,
    }
}

/// What the Python tool shows as the reason of a shared lock: who holds
/// it, and the first holder's reason.
fn shared_reason(record: &LockRecord) -> String {
    let names: Vec<String> = record.holds().into_iter().map(|h| h.agent_id).collect();
    let mut text = format!("shared by {}", names.join(", "));
    if !record.reason.is_empty() {
        text.push_str(": ");
        text.push_str(&record.reason);
    }
    text.chars().take(MAX_REASON_CHARS).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hold(agent: &str, at: f64, end: Option<f64>) -> Hold {
        Hold {
            agent_id: agent.into(),
            locked_at: at,
            reason: "r".into(),
            expires_at: end,
        }
    }

    #[test]
    fn a_plain_lock_is_its_file_and_has_no_terms() {
        let r = LockRecord::from_holds("a.py", false, vec![hold("agent-1", 100.0, None)])
            .expect("held");
        let (file, terms) = split(&r, 300.0);
        assert_eq!((file.clone(), terms.clone()), (r.clone(), None));
        assert_eq!(join(file, terms), r);
    }

    #[test]
    fn a_lease_goes_stale_in_its_file_when_it_ends() {
        let r = LockRecord::from_holds("a.py", false, vec![hold("agent-1", 100.0, Some(7300.0))])
            .expect("held");
        let (file, terms) = split(&r, 300.0);
        assert_eq!(file.agent_id, "agent-1");
        assert_eq!(file.locked_at, 7000.0);
        assert!(!file.is_stale(7300.0, 300.0) && file.is_stale(7300.5, 300.0));
        assert_eq!(join(file.clone(), terms.clone()), r);
        // The Python tool refreshed the file: the terms no longer apply.
        let refreshed = LockRecord {
            locked_at: 9000.0,
            ..file
        };
        assert_eq!(join(refreshed.clone(), terms), refreshed);
    }

    #[test]
    fn a_shared_lock_is_held_by_the_pseudo_agent_in_its_file() {
        let r = LockRecord::from_holds(
            "a.py",
            true,
            vec![
                hold("agent-1", 100.0, Some(200.0)),
                hold("agent-2", 150.0, None),
            ],
        )
        .expect("held");
        let (file, terms) = split(&r, 300.0);
        assert_eq!(file.agent_id, SHARED_HOLDER);
        assert_eq!(file.reason, "shared by agent-1, agent-2: r");
        assert_eq!(file.locked_at, 150.0, "stale when agent-2's claim is");
        assert_eq!(join(file.clone(), terms.clone()), r);
        let mut bad = terms.expect("terms");
        bad.holders[1].agent_id = "bad id".into();
        assert_eq!(join(file.clone(), Some(bad)), file);
    }
}
