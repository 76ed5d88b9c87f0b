//! Why a lock command failed.

use std::path::PathBuf;

use crate::store::StoreError;
use crate::support::exit_code::ExitCode;

use super::conflict::Conflict;
use super::lock_record::MAX_REASON_CHARS;

/// A lock operation that could not be done.
#[derive(Debug, thiserror::Error)]
pub enum LockError {
    /// The path resolves outside the project root.
    #[error("{given:?} is outside the project root {} (it resolves to {})", root.display(), resolved.display())]
    Outside {
        /// As typed.
        given: String,
        /// Where it leads.
        resolved: PathBuf,
        /// The project root.
        root: PathBuf,
    },
    /// The path is the project root itself.
    #[error("{given:?} is the project root itself; lock files, directories or patterns inside it")]
    WholeProject {
        /// As typed.
        given: String,
    },
    /// The path cannot be a lock path at all.
    #[error("invalid lock path {given:?}: {why}")]
    InvalidPath {
        /// As typed.
        given: String,
        /// What is wrong.
        why: String,
    },
    /// The glob pattern does not parse.
    #[error("invalid glob pattern {given:?}: {why}")]
    InvalidPattern {
        /// As typed.
        given: String,
        /// The parser's explanation.
        why: String,
    },
    /// `--reason` is too long.
    #[error("lock reason too long ({len} characters, at most {MAX_REASON_CHARS})")]
    ReasonTooLong {
        /// Its length in characters.
        len: usize,
    },
    /// The lock file of this path is not a valid lock.
    #[error("the lock file of {path} ({}) is damaged: {problem}", file.display())]
    Damaged {
        /// The normalised path.
        path: String,
        /// The lock file.
        file: PathBuf,
        /// What is wrong with it.
        problem: String,
    },
    /// Other agents hold locks in the way.
    #[error("{}", held_message(.0))]
    Held(Vec<Conflict>),
    /// Releasing a lock someone else holds.
    #[error("{path} is locked by {holder}, not {agent}; only the holder can release it")]
    NotHolder {
        /// The normalised path.
        path: String,
        /// Who holds it.
        holder: String,
        /// Who asked.
        agent: String,
    },
    /// Renewing a lock the agent holds no live claim on.
    #[error("cannot renew {path}: {why}")]
    NotHeld {
        /// The normalised path.
        path: String,
        /// Who asked.
        agent: String,
        /// The agents that hold it instead (none when nobody does).
        holders: Vec<String>,
        /// Why, in words.
        why: String,
    },
    /// A lock file or the index could not be read or written.
    #[error(transparent)]
    Store(#[from] StoreError),
}

fn held_message(conflicts: &[Conflict]) -> String {
    match conflicts {
        [one] => format!("lock conflict: {one}"),
        many => {
            let mut s = format!("lock conflict ({} locks in the way):", many.len());
            for c in many {
                s.push_str(&format!("\n  {c}"));
            }
            s
        }
    }
}

impl LockError {
    /// The exit code: 3 when another agent's lock is in the way (also
    /// when renewing a lock others hold).
    pub fn exit_code(&self) -> ExitCode {
        match self {
            LockError::Held(_) | LockError::NotHolder { .. } => ExitCode::LockHeld,
            LockError::NotHeld { holders, .. } if !holders.is_empty() => ExitCode::LockHeld,
            LockError::Store(e) => e.exit_code(),
            _ => ExitCode::Failure,
        }
    }

    /// What the user can do about it.
    pub fn hint(&self) -> Option<String> {
        match self {
            LockError::Outside { .. } | LockError::WholeProject { .. } => Some(
                "locks are for paths inside the project; check --root or the current directory"
                    .into(),
            ),
            LockError::Damaged { .. } => Some(
                "look at the file, then `swarm locks --clean` removes damaged lock files".into(),
            ),
            LockError::Held(conflicts) => {
                let mut holders: Vec<&str> = conflicts
                    .iter()
                    .flat_map(|c| c.holders.iter().map(String::as_str))
                    .collect();
                holders.sort_unstable();
                holders.dedup();
                Some(format!(
                    "ask {} to release it, or wait for it with `--wait SECONDS`",
                    holders.join(", ")
                ))
            }
            LockError::NotHolder { .. } => Some(
                "ask the holder, or release it anyway with --force (recorded in the project's audit log)"
                    .into(),
            ),
            LockError::NotHeld { holders, path, .. } if holders.is_empty() => Some(format!(
                "take it again with `swarm lock {path}` (add --ttl for a lease)"
            )),
            LockError::NotHeld { holders, .. } => Some(format!(
                "only a holder renews its own claim; ask {}",
                holders.join(", ")
            )),
            _ => None,
        }
    }
}
