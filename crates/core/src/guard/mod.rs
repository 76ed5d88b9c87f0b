//! Enforcing locks where edits happen: a git pre-commit hook that refuses
//! commits touching files other agents have locked, and the reading of
//! Claude Code's `PreToolUse` hook input, so an edit to such a file is
//! stopped before it is made.

mod edit_request;
mod error;
mod pre_commit;

pub use edit_request::EditRequest;
pub use error::GuardError;
pub(crate) use pre_commit::installed_swarm;
pub use pre_commit::{Installed, PreCommitHook, Uninstalled};
