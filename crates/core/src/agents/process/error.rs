//! Failures of the process seam.

use crate::error::{Error, Reported};
use crate::support::exit_code::ExitCode;

/// Why process facts could not be had. Reads after "failed to ...".
#[derive(Debug, thiserror::Error)]
pub enum ProcessError {
    /// `SWARM_PROCESS_BACKEND` names no backend.
    #[error("invalid SWARM_PROCESS_BACKEND {value:?}: expected auto, proc or portable")]
    BadBackend {
        /// The value found (made printable).
        value: String,
    },
    /// The `proc` backend was asked for where it does not exist.
    #[error("the proc process backend {why}")]
    ProcUnavailable {
        /// Why (not Linux, or nothing mounted).
        why: &'static str,
    },
    /// The portable backend needs `ps`, and there is none.
    #[error("list processes: `ps` is not installed (not found on PATH)")]
    PsNotInstalled,
    /// `ps` ran and failed.
    #[error("list processes with `ps`: {detail}")]
    PsFailed {
        /// Its status and what it printed.
        detail: String,
    },
}

impl From<ProcessError> for Error {
    fn from(e: ProcessError) -> Error {
        Error::Server(Box::new(e))
    }
}

impl Reported for ProcessError {
    fn exit_code(&self) -> ExitCode {
        ExitCode::Failure
    }

    fn hint(&self) -> Option<String> {
        Some(match self {
            ProcessError::BadBackend { .. } | ProcessError::ProcUnavailable { .. } => {
                "unset SWARM_PROCESS_BACKEND (auto picks the right backend), or set it to \
                 `portable`"
                    .into()
            }
            ProcessError::PsNotInstalled => {
                "install ps (Debian/Ubuntu: `apt-get install procps`; macOS and the BSDs ship it)"
                    .into()
            }
            ProcessError::PsFailed { .. } => "check that `ps -A` works in this shell".into(),
        })
    }
}
