//! Why a `git` call did not work.

use std::path::PathBuf;

/// A `git` call that did not work.
#[derive(Debug, thiserror::Error)]
pub enum GitError {
    /// `git` is not on PATH.
    #[error("`git` is not installed (not found on PATH)")]
    NotInstalled,
    /// The directory is not inside a git repository.
    #[error("{} is not inside a git repository", dir.display())]
    NotARepo {
        /// Where git ran.
        dir: PathBuf,
    },
    /// The installed git lacks something a command needs.
    #[error("{what} needs git {need} or newer; this git is {have}")]
    TooOld {
        /// What needs it (`swarm merge`).
        what: &'static str,
        /// The version it needs.
        need: String,
        /// The version found.
        have: String,
    },
    /// git answered in a form swarm does not understand.
    #[error("`git {args}` printed something unexpected: {detail}")]
    BadOutput {
        /// The arguments, joined.
        args: String,
        /// What was wrong with it.
        detail: String,
    },
    /// Any other failure, with git's own explanation.
    #[error("`git {args}` failed: {stderr}")]
    Failed {
        /// The arguments, joined.
        args: String,
        /// What git printed on stderr (or why it could not run).
        stderr: String,
    },
}
