//! Failures reading or writing state files.

use std::path::PathBuf;
use std::time::Duration;

/// A state file could not be read, written or locked. Always names the file.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// Reading failed for a reason other than "missing".
    #[error("could not read {}: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// Creating, writing or renaming failed.
    #[error("could not write {}: {source}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// Another process kept the file's lock for longer than we wait.
    #[error("timed out after {timeout:?} waiting for the lock {} (another swarm process holds it)", path.display())]
    LockTimeout {
        /// The sidecar lock file.
        path: PathBuf,
        /// How long we waited.
        timeout: Duration,
    },
    /// The lock itself could not be taken.
    #[error("could not lock {}: {source}", path.display())]
    Lock {
        /// The sidecar lock file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The file exists but its content is not what it should be.
    #[error("{} is damaged: {reason}", path.display())]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// `--root` names something that is not a directory.
    #[error("project root {} is not a directory", path.display())]
    BadRoot {
        /// As given.
        path: PathBuf,
    },
    /// A file that is only ever created, never replaced, exists already.
    #[error("{} already exists", path.display())]
    Exists {
        /// The file.
        path: PathBuf,
    },
    /// A state file could not be encoded (never expected in practice).
    #[error("could not encode {}: {source}", path.display())]
    Encode {
        /// The file.
        path: PathBuf,
        /// Why.
        source: serde_json::Error,
    },
}
