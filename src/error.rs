//! The crate-wide error: every failure a command can end with, mapped to
//! the documented exit codes, with a hint saying what to do about it.

use std::path::PathBuf;

use crate::config::ConfigError;
use crate::exit_code::ExitCode;
use crate::guard::GuardError;
use crate::locks::LockError;
use crate::store::StoreError;
use crate::tmux::TmuxError;

/// Everything that can make a command fail. Messages are lowercase
/// fragments that read after "failed to ..." or "error: ".
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A tmux call failed.
    #[error(transparent)]
    Tmux(#[from] TmuxError),
    /// A state file could not be read, written or locked.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// A file lock could not be taken, released or read.
    #[error(transparent)]
    Lock(#[from] LockError),
    /// A guard command failed, or the guard refused a commit.
    #[error(transparent)]
    Guard(#[from] GuardError),
    /// The config file is invalid.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// The command line was wrong in a way clap could not see.
    #[error("{0}")]
    Usage(String),
    /// A value given by the user is not acceptable.
    #[error("{0}")]
    Invalid(String),
    /// The agent named is not in the registry.
    #[error("no agent {id} in {}", registry.display())]
    UnknownAgent {
        /// The id asked for.
        id: String,
        /// The registry looked at.
        registry: PathBuf,
        /// Known active agents, for the hint.
        known: Vec<String>,
    },
    /// The command must run inside an agent's pane, or be told who it is.
    #[error("{0}")]
    NoIdentity(String),
    /// A program swarm was asked to run is not installed.
    #[error("`{command}` is not installed (not found on PATH)")]
    NotInstalled {
        /// The program.
        command: String,
        /// What to do instead.
        hint: String,
    },
    /// `launch` would replace a session that exists.
    #[error("tmux session {0:?} already exists")]
    SessionExists(String),
    /// `down` found nothing to stop.
    #[error("tmux session {0:?} does not exist")]
    NoSession(String),
    /// A local I/O failure outside the state files (the terminal, a record
    /// file).
    #[error("could not {what}: {source}")]
    Io {
        /// What we were doing.
        what: String,
        /// Why it failed.
        source: std::io::Error,
    },
}

/// Short for `Result<T, swarm::Error>`.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// The exit code this failure ends the process with.
    pub fn exit_code(&self) -> ExitCode {
        match self {
            Error::Tmux(e) => e.exit_code(),
            Error::Lock(e) => e.exit_code(),
            Error::Guard(e) => e.exit_code(),
            Error::Usage(_) => ExitCode::Usage,
            Error::UnknownAgent { .. } | Error::NoSession(_) => ExitCode::NotFound,
            Error::Store(_)
            | Error::Config(_)
            | Error::Invalid(_)
            | Error::NoIdentity(_)
            | Error::NotInstalled { .. }
            | Error::SessionExists(_)
            | Error::Io { .. } => ExitCode::Failure,
        }
    }

    /// What the user can do about it.
    pub fn hint(&self) -> Option<String> {
        match self {
            Error::Tmux(e) => e.hint(),
            Error::Lock(e) => e.hint(),
            Error::Guard(e) => e.hint(),
            Error::Store(StoreError::LockTimeout { .. }) => Some(
                "another swarm command is stuck holding the lock; find it with `ps aux | grep swarm`"
                    .into(),
            ),
            Error::Store(StoreError::BadRoot { .. }) => {
                Some("pass an existing directory to --root".into())
            }
            Error::Config(_) => Some("fix the file, or check it with `swarm config validate`".into()),
            Error::UnknownAgent { known, .. } if known.is_empty() => {
                Some("no agents are registered: run `swarm discover` (or `swarm launch N`)".into())
            }
            Error::UnknownAgent { known, .. } => Some(format!(
                "active agents: {}; run `swarm discover` if the list is out of date",
                known.join(", ")
            )),
            Error::NoIdentity(_) => Some(
                "run it inside an agent's tmux pane, or name the agent with --agent/--from".into(),
            ),
            Error::NotInstalled { hint, .. } => Some(hint.clone()),
            Error::SessionExists(name) => Some(format!(
                "attach with `tmux attach -t {name}`, pick another name with --session, or replace it with --force"
            )),
            Error::NoSession(_) => Some("list sessions with `tmux list-sessions`".into()),
            _ => None,
        }
    }
}
