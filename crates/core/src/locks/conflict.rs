//! `Conflict`: a lock that stands in the way of the one asked for (or of
//! an edit).

use std::fmt;

use crate::support::sanitize;
use crate::support::time;

use super::held_lock::HeldLock;

/// A lock held by others (or shared) that covers part of what was asked
/// for.
#[derive(Clone, Debug, PartialEq)]
pub struct Conflict {
    /// The normalised path or pattern that was asked for.
    pub requested: String,
    /// The lock in the way.
    pub held: HeldLock,
    /// Its age in seconds when it was found.
    pub age: f64,
    /// The agents whose claims on it still held when it was found (one
    /// for an exclusive lock, any number for a shared one).
    pub holders: Vec<String>,
    /// Seconds until it ends by itself, when every claim on it is a lease.
    pub lease_left: Option<f64>,
}

impl Conflict {
    /// `held` standing in the way of `requested` at `now`, under a stale
    /// timeout of `stale_after` seconds.
    pub fn new(requested: &str, held: HeldLock, now: f64, stale_after: f64) -> Conflict {
        let live = held.record.live_holds(now, stale_after);
        let lease_left = live
            .iter()
            .map(|h| h.expires_at.map(|end| (end - now).max(0.0)))
            .try_fold(0.0_f64, |max, left| left.map(|l| max.max(l)));
        Conflict {
            requested: requested.to_owned(),
            age: held.record.age(now),
            holders: live.into_iter().map(|h| h.agent_id).collect(),
            lease_left: lease_left.filter(|_| held.record.has_lease()),
            held,
        }
    }

    /// The holders, each once, safe to print.
    pub fn shown_holders(&self) -> String {
        if self.holders.is_empty() {
            return sanitize::one_line(&self.held.record.agent_id);
        }
        self.holders
            .iter()
            .map(|h| sanitize::one_line(h))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

impl fmt::Display for Conflict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let r = &self.held.record;
        // Lock files are written by other processes: nothing in them
        // reaches the terminal unsanitised.
        let holders = self.shown_holders();
        let how = if r.shared {
            "locked (shared) by"
        } else {
            "locked by"
        };
        let filepath = sanitize::one_line(&r.filepath);
        if filepath == self.requested {
            write!(f, "{filepath} is {how} {holders}")?;
        } else {
            write!(f, "{} overlaps {filepath}, {how} {holders}", self.requested)?;
        }
        write!(f, " for {}", time::human_duration(self.age))?;
        if let Some(left) = self.lease_left {
            write!(f, ", lease ends in {}", time::human_duration(left))?;
        }
        let reason = sanitize::one_line(&r.reason);
        if !reason.is_empty() {
            write!(f, " (reason: {reason})")?;
        }
        Ok(())
    }
}
