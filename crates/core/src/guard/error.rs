//! Why a guard command failed.

use std::path::PathBuf;

use crate::git::GitError;
use crate::locks::Conflict;
use crate::support::exit_code::ExitCode;

/// A guard operation that could not be done, or a commit it refuses.
#[derive(Debug, thiserror::Error)]
pub enum GuardError {
    /// git could not tell where the hooks are or what is staged.
    #[error(transparent)]
    Git(#[from] GitError),
    /// The existing pre-commit hook is not a shell script, so swarm cannot
    /// add its lines to it without clobbering it.
    #[error("{} is not a shell script ({first_line:?}), so swarm will not edit it", path.display())]
    ForeignHook {
        /// The hook file.
        path: PathBuf,
        /// Its first line.
        first_line: String,
    },
    /// Reading or writing the hook file failed.
    #[error("could not {what} {}: {source}", path.display())]
    Io {
        /// What we were doing.
        what: &'static str,
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The commit touches paths other agents hold locks on.
    #[error("{}", blocked_message(.0))]
    CommitBlocked(Vec<Conflict>),
}

fn blocked_message(conflicts: &[Conflict]) -> String {
    let mut s = String::from("commit refused: it touches files locked by other agents:");
    for c in conflicts {
        s.push_str(&format!("\n  {c}"));
    }
    s
}

impl GuardError {
    /// The exit code: 3 for a refused commit (a lock is in the way).
    pub fn exit_code(&self) -> ExitCode {
        match self {
            GuardError::CommitBlocked(_) => ExitCode::LockHeld,
            _ => ExitCode::Failure,
        }
    }

    /// What the user can do about it.
    pub fn hint(&self) -> Option<String> {
        match self {
            GuardError::ForeignHook { .. } => Some(
                "add the line `swarm guard check-commit || exit 1` to the hook yourself (run it before anything else)"
                    .into(),
            ),
            GuardError::CommitBlocked(_) => Some(
                "wait until the holders release them (`swarm who PATH`), unstage those files, \
                 or commit anyway with SWARM_GUARD=off git commit ..."
                    .into(),
            ),
            GuardError::Git(GitError::NotARepo { .. }) => {
                Some("run it inside the project's git repository".into())
            }
            _ => None,
        }
    }
}
