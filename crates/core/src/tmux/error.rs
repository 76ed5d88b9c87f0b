//! Typed tmux failures, classified from tmux's exit status and stderr.

use std::time::Duration;

use crate::support::exit_code::ExitCode;

/// A tmux call that did not do what was asked. The text reads after
/// "failed to ...", and keeps tmux's own words where it said something.
#[derive(Debug, thiserror::Error)]
pub enum TmuxError {
    /// The `tmux` executable is not on `PATH`.
    #[error("tmux is not installed (no `tmux` on PATH)")]
    NotInstalled,
    /// No server listens on the socket we were pointed at.
    #[error("no tmux server is running on {server}: {stderr}")]
    NoServer {
        /// Which server was asked (socket name or path).
        server: String,
        /// What tmux printed.
        stderr: String,
    },
    /// A pane, window or session target does not exist on the server.
    #[error("tmux target {target} does not exist: {stderr}")]
    TargetNotFound {
        /// The target as given (`%3`, `swarm:0.1`, a session name).
        target: String,
        /// What tmux printed.
        stderr: String,
    },
    /// tmux did not finish in time; the client was killed.
    #[error("`tmux {command}` did not finish within {timeout:?}; the tmux server may be hung")]
    Timeout {
        /// The tmux command name (`list-panes`, ...).
        command: String,
        /// How long we waited.
        timeout: Duration,
    },
    /// tmux ran and reported a failure we do not classify further.
    #[error("`tmux {command}` failed (exit {status}): {stderr}")]
    Failed {
        /// The tmux command name.
        command: String,
        /// The exit status, or -1 when killed by a signal.
        status: i32,
        /// What tmux printed.
        stderr: String,
    },
    /// tmux answered with output we could not understand.
    #[error("unexpected output from `tmux {command}`: {detail}")]
    BadOutput {
        /// The tmux command name.
        command: String,
        /// What was wrong with it.
        detail: String,
    },
    /// The process could not be started or talked to.
    #[error("could not run tmux: {0}")]
    Io(#[from] std::io::Error),
}

impl TmuxError {
    /// The documented exit code for this failure.
    pub fn exit_code(&self) -> ExitCode {
        match self {
            TmuxError::TargetNotFound { .. } => ExitCode::NotFound,
            TmuxError::NotInstalled | TmuxError::NoServer { .. } | TmuxError::Timeout { .. } => {
                ExitCode::TmuxUnavailable
            }
            TmuxError::Failed { .. } | TmuxError::BadOutput { .. } | TmuxError::Io(_) => {
                ExitCode::Failure
            }
        }
    }

    /// What the user can do about it, when there is something to say.
    pub fn hint(&self) -> Option<String> {
        match self {
            TmuxError::NotInstalled => Some(
                "install tmux (Debian/Ubuntu: `apt-get install tmux`, macOS: `brew install tmux`), \
                 or run scripts/setup"
                    .into(),
            ),
            TmuxError::NoServer { .. } => Some(
                "start one with `swarm launch N` or `tmux`, or point swarm at another server \
                 with --tmux-socket NAME|PATH"
                    .into(),
            ),
            TmuxError::TargetNotFound { .. } => {
                Some("run `swarm discover` to refresh the agent registry".into())
            }
            TmuxError::Timeout { .. } => {
                Some("check that the tmux server responds: `tmux list-sessions`".into())
            }
            _ => None,
        }
    }

    /// Classifies a failed tmux run from its stderr (tmux's messages are
    /// stable across 2.x-3.x: "no server running on", "error connecting to",
    /// "can't find pane|window|session").
    pub(crate) fn classify(command: &str, status: i32, stderr: &str, server: String) -> TmuxError {
        let text = stderr.trim().to_owned();
        let lower = text.to_lowercase();
        if lower.contains("no server running")
            || lower.contains("error connecting to")
            || lower.contains("server exited unexpectedly")
        {
            return TmuxError::NoServer {
                server,
                stderr: text,
            };
        }
        for what in ["can't find pane", "can't find window", "can't find session"] {
            if let Some(at) = lower.find(what) {
                let target = text[at + what.len()..]
                    .trim_start_matches(':')
                    .trim()
                    .to_owned();
                return TmuxError::TargetNotFound {
                    target,
                    stderr: text,
                };
            }
        }
        TmuxError::Failed {
            command: command.to_owned(),
            status,
            stderr: text,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifies_missing_server() {
        let e = TmuxError::classify(
            "list-panes",
            1,
            "error connecting to /tmp/tmux-0/nope (No such file or directory)\n",
            "-L nope".into(),
        );
        assert!(matches!(e, TmuxError::NoServer { .. }), "{e:?}");
        assert_eq!(e.exit_code(), ExitCode::TmuxUnavailable);
    }

    #[test]
    fn classifies_missing_pane_and_keeps_target() {
        let e = TmuxError::classify("send-keys", 1, "can't find pane: %99\n", "default".into());
        match e {
            TmuxError::TargetNotFound { ref target, .. } => assert_eq!(target, "%99"),
            other => panic!("unexpected {other:?}"),
        }
        assert_eq!(e.exit_code(), ExitCode::NotFound);
    }

    #[test]
    fn other_failures_keep_stderr() {
        let e = TmuxError::classify("select-layout", 1, "invalid layout: zz", "default".into());
        assert_eq!(
            e.to_string(),
            "`tmux select-layout` failed (exit 1): invalid layout: zz"
        );
    }
}
