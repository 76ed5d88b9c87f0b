//! The words of `swarm doctor`'s report: how a check came out (`CheckStatus`),
//! one result with its fix (`CheckOutcome`), what the checks may look at
//! (`Subject`) and what a check is (`Check`).

use std::ffi::OsString;

use serde::Serialize;

use crate::agents::agent_matcher::AgentMatcher;
use crate::agents::profile::Profiles;
use crate::backend::Backend as Storage;
use crate::messaging::held::held_store::HeldStore;
use crate::store::{Paths, ProjectRoot};
use crate::tmux::Tmux;

/// How a check came out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum CheckStatus {
    /// Nothing to do.
    Ok,
    /// Works, but something deserves a look.
    Warn,
    /// Broken: swarm will not work right until it is fixed.
    Fail,
}

/// The result of one check.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CheckOutcome {
    /// What was checked (`tmux`, `config`, `ACTIVE_AGENTS.json`, ...).
    pub check: String,
    /// How it came out.
    pub status: CheckStatus,
    /// One line saying what was found.
    pub message: String,
    /// Further lines (each problem of a config file, each lost pane).
    pub details: Vec<String>,
    /// What to do about it; `None` when ok.
    pub fix: Option<String>,
}

impl CheckOutcome {
    pub(super) fn ok(check: &str, message: impl Into<String>) -> CheckOutcome {
        CheckOutcome {
            check: check.into(),
            status: CheckStatus::Ok,
            message: message.into(),
            details: Vec::new(),
            fix: None,
        }
    }

    pub(super) fn warn(
        check: &str,
        message: impl Into<String>,
        fix: impl Into<String>,
    ) -> CheckOutcome {
        CheckOutcome {
            status: CheckStatus::Warn,
            fix: Some(fix.into()),
            ..CheckOutcome::ok(check, message)
        }
    }

    pub(super) fn fail(
        check: &str,
        message: impl Into<String>,
        fix: impl Into<String>,
    ) -> CheckOutcome {
        CheckOutcome {
            status: CheckStatus::Fail,
            ..CheckOutcome::warn(check, message, fix)
        }
    }

    pub(super) fn with_details(mut self, details: Vec<String>) -> CheckOutcome {
        self.details = details;
        self
    }
}

/// What the checks look at.
pub struct Subject<'a> {
    /// The project root and how it was found.
    pub root: &'a ProjectRoot,
    /// The state-file layout.
    pub paths: &'a Paths,
    /// The project's shared state.
    pub backend: &'a Storage,
    /// The tmux server swarm would use.
    pub tmux: &'a Tmux,
    /// The `SWARM_*` environment variables (config overrides).
    pub env: &'a [(OsString, OsString)],
    /// Recognises agents in panes.
    pub matcher: &'a AgentMatcher,
    /// The agent profiles.
    pub profiles: &'a Profiles,
    /// The messages held back from panes.
    pub held: &'a dyn HeldStore,
}

/// A check: looks, never changes anything, and returns one or more
/// outcomes (none when it does not apply).
pub(crate) type Check = fn(&Subject<'_>) -> Vec<CheckOutcome>;

/// Counts of each status.
pub fn tally(outcomes: &[CheckOutcome]) -> (usize, usize, usize) {
    let n = |s| outcomes.iter().filter(|o| o.status == s).count();
    (
        n(CheckStatus::Ok),
        n(CheckStatus::Warn),
        n(CheckStatus::Fail),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outcomes_carry_fixes_unless_ok() {
        assert_eq!(CheckOutcome::ok("a", "b").fix, None);
        assert_eq!(CheckOutcome::warn("a", "b", "c").fix.as_deref(), Some("c"));
        let f = CheckOutcome::fail("a", "b", "c");
        assert_eq!((f.status, f.fix.as_deref()), (CheckStatus::Fail, Some("c")));
        assert_eq!(tally(&[CheckOutcome::ok("a", "b"), f]), (1, 0, 1));
    }
}
