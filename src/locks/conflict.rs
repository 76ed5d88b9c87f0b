//! `Conflict`: a lock that stands in the way of the one asked for.

use std::fmt;

use crate::support::sanitize;
use crate::support::time;

use super::held_lock::HeldLock;

/// A lock held by another agent that covers part of what was asked for.
#[derive(Clone, Debug, PartialEq)]
pub struct Conflict {
    /// The normalised path or pattern that was asked for.
    pub requested: String,
    /// The lock in the way.
    pub held: HeldLock,
    /// Its age in seconds when it was found.
    pub age: f64,
}

impl fmt::Display for Conflict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let r = &self.held.record;
        // Lock files are written by other processes: nothing in them
        // reaches the terminal unsanitised.
        let holder = sanitize::one_line(&r.agent_id);
        let filepath = sanitize::one_line(&r.filepath);
        if filepath == self.requested {
            write!(f, "{filepath} is locked by {holder}")?;
        } else {
            write!(
                f,
                "{} overlaps {filepath}, locked by {holder}",
                self.requested
            )?;
        }
        write!(f, " for {}", time::human_duration(self.age))?;
        let reason = sanitize::one_line(&r.reason);
        if !reason.is_empty() {
            write!(f, " (reason: {reason})")?;
        }
        Ok(())
    }
}
