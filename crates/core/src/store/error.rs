//! Failures reading or writing state files.

use std::path::PathBuf;
use std::time::Duration;

use crate::support::exit_code::ExitCode;

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
    /// An append-only log is something other than a regular file (a
    /// FIFO, a socket, a device, a directory, a symbolic link): writing to
    /// it could block forever or land elsewhere, so nothing is written.
    #[error(
        "{} is {kind}, not a regular file: swarm appends only to regular files (move it away and run the command again)",
        path.display()
    )]
    NotRegular {
        /// The log.
        path: PathBuf,
        /// What it is instead ("a FIFO").
        kind: &'static str,
    },
    /// `--root` names something that is not a directory.
    #[error("project root {} is not a directory", path.display())]
    BadRoot {
        /// As given.
        path: PathBuf,
    },
    /// The project's `.swarm` is a symlink that leads out of the project:
    /// state files written through it would land elsewhere.
    #[error(
        "{} is a symlink to {}, outside the project {}: swarm keeps its state inside the project (replace the link with a directory, or point it inside)",
        link.display(),
        target.display(),
        root.display()
    )]
    StateDirOutside {
        /// The link (`<root>/.swarm`).
        link: PathBuf,
        /// Where it leads.
        target: PathBuf,
        /// The project root.
        root: PathBuf,
    },
    /// A file that is only ever created, never replaced, exists already.
    #[error("{} already exists", path.display())]
    Exists {
        /// The file.
        path: PathBuf,
    },
    /// The shared store's server could not be reached or did not answer
    /// within the timeout. Nothing was changed.
    #[error("the store at {url} is unreachable: {detail}")]
    Unreachable {
        /// The server, with any password replaced.
        url: String,
        /// What the connection reported.
        detail: String,
    },
    /// The shared store's server answered with an error (out of memory,
    /// read-only replica, a script error).
    #[error("the store at {url} refused the operation: {detail}")]
    Refused {
        /// The server, with any password replaced.
        url: String,
        /// The server's answer.
        detail: String,
    },
    /// A database swarm keeps beside its state files (the message index)
    /// could not be opened, read or written.
    #[error("could not use the database {}: {detail}", path.display())]
    Database {
        /// The database file.
        path: PathBuf,
        /// What SQLite reported.
        detail: String,
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

impl StoreError {
    /// 8 when the shared store could not be reached; 1 otherwise.
    pub fn exit_code(&self) -> ExitCode {
        match self {
            StoreError::Unreachable { .. } => ExitCode::StoreUnavailable,
            _ => ExitCode::Failure,
        }
    }
}
