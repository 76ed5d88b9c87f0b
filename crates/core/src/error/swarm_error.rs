//! The crate-wide error: every failure a command can end with, mapped to
//! the documented exit codes, with a hint saying what to do about it.

use std::path::PathBuf;

use crate::a2a::A2aError;
use crate::config::ConfigError;
use crate::domain::message::MAX_CONTENT_BYTES;
use crate::domain::{ValidationError, validate};
use crate::guard::GuardError;
use crate::locks::LockError;
use crate::store::StoreError;
use crate::support::exit_code::ExitCode;
use crate::tmux::TmuxError;
use crate::worktrees::WorktreeError;

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
    /// A worktree could not be made or removed, or a merge was refused.
    #[error(transparent)]
    Worktree(#[from] WorktreeError),
    /// The config file is invalid.
    #[error(transparent)]
    Config(ConfigError),
    /// A layer above this one failed in a way it describes itself (a
    /// server that could not start, process facts that could not be had).
    #[error("{0}")]
    Server(Box<dyn Reported>),
    /// A card, task or context is missing, or a task change is refused.
    #[error(transparent)]
    A2a(A2aError),
    /// The command line was wrong in a way clap could not see.
    #[error("{0}")]
    Usage(String),
    /// A value given by the user is not acceptable.
    #[error("{0}")]
    Invalid(String),
    /// A name, type or body failed its check.
    #[error(transparent)]
    Validation(#[from] ValidationError),
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
    /// The sender is over its message rate limit.
    #[error(
        "rate limited: {sender} may send {max} messages per {window_secs}s; the next send is allowed in {wait_secs}s (this message was saved to the inbox, not delivered)"
    )]
    RateLimited {
        /// Who.
        sender: String,
        /// Messages allowed per window.
        max: u32,
        /// The window.
        window_secs: u64,
        /// Seconds until the next send is allowed.
        wait_secs: u64,
    },
    /// No message has this id (or prefix).
    #[error("no message with id {0} in the log")]
    UnknownMessage(String),
    /// A broadcast found nobody to send to.
    #[error("{0}")]
    NoRecipients(String),
    /// A broadcast to a topic found no other active agent following it.
    #[error("no other active agent follows topic {0}")]
    NoSubscribers(String),
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
    /// `down` was not told which session to stop, and the registered
    /// agents run in several.
    #[error(
        "the registered agents run in {} tmux sessions ({}): say which one to stop",
        .0.len(),
        .0.join(", ")
    )]
    WhichSession(Vec<String>),
    /// `resume` or `sessions --forget` named a session that is not
    /// recorded (`None`: none is recorded at all).
    #[error("{}", match .0 {
        Some(name) => format!("no recorded session {name:?}"),
        None => "no session is recorded in this project".into(),
    })]
    NoRecordedSession(Option<String>),
    /// `resume` was not told which session to resume, and several are
    /// not running.
    #[error(
        "{} recorded sessions are not running ({}): say which one to resume",
        .0.len(),
        .0.join(", ")
    )]
    WhichRecordedSession(Vec<String>),
    /// `config validate` found no file to check.
    #[error("no config file found (looked for .claudeswarm.yaml and .claudeswarm.toml in {} and its parents)", root.display())]
    NoConfigFile {
        /// Where the search started.
        root: PathBuf,
    },
    /// `config edit` found no usable editor.
    #[error(
        "no editor found ($EDITOR is unset or unusable, and none of vim, vi, nano, emacs is on PATH)"
    )]
    NoEditor,
    /// The editor ran but failed.
    #[error("the editor `{editor}` exited with {status}; {} was not checked", path.display())]
    EditorFailed {
        /// The editor program.
        editor: String,
        /// How it ended.
        status: String,
        /// The file it was editing.
        path: PathBuf,
    },
    /// A refusal whose remedy depends on the case; it carries its hint.
    #[error("{message}")]
    Refused {
        /// What went wrong.
        message: String,
        /// What to do about it.
        hint: String,
    },
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

/// A failure of a layer above this one (the servers, the process seam) that knows its own
/// exit code and hint; it converts itself into [`Error::Server`].
pub trait Reported: std::error::Error + Send + Sync + 'static {
    /// The exit code this failure ends the process with.
    fn exit_code(&self) -> ExitCode;
    /// What the user can do about it.
    fn hint(&self) -> Option<String>;
}

impl From<ConfigError> for Error {
    /// A store failure keeps its own variant (and so its hint).
    fn from(e: ConfigError) -> Error {
        match e {
            ConfigError::Store(e) => Error::Store(e),
            other => Error::Config(other),
        }
    }
}

impl From<A2aError> for Error {
    /// Store and input failures keep their own variants (and so their
    /// hints); the rest are the A2A commands' own.
    fn from(e: A2aError) -> Error {
        match e {
            A2aError::Store(e) => Error::Store(e),
            A2aError::Invalid(why) => Error::Invalid(why),
            A2aError::Validation(e) => Error::Validation(e),
            other => Error::A2a(other),
        }
    }
}

/// Short for `Result<T, swarm::Error>`.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// What to do about a message over the size limit: there is no way to
/// send more in one message, so the hint says where the limit lies and
/// how to pass more text.
fn long_message_hint() -> String {
    format!(
        "the limit is {MAX_CONTENT_BYTES} bytes per message (one over \
         messaging.max_inline_bytes, 4096 by default, reaches the agent as a file with a \
         one-line pointer); for more, write the text to a file in the project and send its \
         path (`swarm msg ID TYPE \"read notes/plan.md\"`)"
    )
}

/// The known agent id that `id` is a slip of: the same but for case and
/// `_` typed for `-` (`agent_1`, `Agent-1` for `agent-1`).
fn near_agent_id<'k>(id: &str, known: &'k [String]) -> Option<&'k str> {
    let plain = |s: &str| s.to_lowercase().replace('_', "-");
    let wanted = plain(id);
    known
        .iter()
        .find(|k| k.as_str() != id && plain(k) == wanted)
        .map(String::as_str)
}

/// What to do about an unknown message type: the valid type it is a typo
/// of, else where the valid types are and how to add one.
fn message_type_hint(input: &str, valid: &str) -> String {
    let wire = input.trim().to_uppercase().replace('_', "-");
    if wire.is_empty() {
        return "give one of the valid types listed, such as INFO".into();
    }
    let near = valid
        .split(", ")
        .map(|t| (crate::config::schema::edit_distance(&wire, t), t))
        .filter(|(d, t)| *d <= (t.len() / 3).max(1))
        .min();
    match near {
        Some((_, t)) => format!("did you mean `{t}`?"),
        None if validate::message_type_name(&wire).is_ok() => format!(
            "use one of the valid types listed, or declare {wire} in messaging.custom_types \
             (.claudeswarm.toml)"
        ),
        None => "use one of the valid types listed".into(),
    }
}

/// How to give a message's text, for a text that came out empty.
const EMPTY_TEXT_HINT: &str = "give the text after the type, in quotes when it has spaces \
    (\"ready?\"), `-` to read it from stdin, or --file FILE";

impl Error {
    /// A message read from `source` (a file, stdin) that is over the size
    /// limit, found before all of it was read.
    pub fn message_too_long(read: u64, source: &str) -> Error {
        Error::Refused {
            message: format!("message too long: more than {read} bytes read from {source}"),
            hint: long_message_hint(),
        }
    }

    /// True when the shared store did not answer (an outage that a
    /// long-running command waits out, telling it once).
    pub fn is_store_outage(&self) -> bool {
        self.exit_code() == ExitCode::StoreUnavailable
    }

    /// The exit code this failure ends the process with.
    pub fn exit_code(&self) -> ExitCode {
        match self {
            Error::Tmux(e) => e.exit_code(),
            Error::Lock(e) => e.exit_code(),
            Error::Guard(e) => e.exit_code(),
            Error::Worktree(e) => e.exit_code(),
            Error::Server(e) => e.exit_code(),
            Error::A2a(e) => e.exit_code(),
            Error::Usage(_) | Error::WhichSession(_) | Error::WhichRecordedSession(_) => {
                ExitCode::Usage
            }
            Error::UnknownAgent { .. }
            | Error::NoSession(_)
            | Error::NoRecordedSession(_)
            | Error::NoRecipients(_)
            | Error::NoSubscribers(_)
            | Error::UnknownMessage(_) => ExitCode::NotFound,
            Error::RateLimited { .. } => ExitCode::RateLimited,
            Error::Store(e) => e.exit_code(),
            Error::Config(_)
            | Error::Invalid(_)
            | Error::Validation(_)
            | Error::NoIdentity(_)
            | Error::NotInstalled { .. }
            | Error::SessionExists(_)
            | Error::NoConfigFile { .. }
            | Error::NoEditor
            | Error::EditorFailed { .. }
            | Error::Refused { .. }
            | Error::Io { .. } => ExitCode::Failure,
        }
    }

    /// What the user can do about it.
    pub fn hint(&self) -> Option<String> {
        match self {
            Error::Tmux(e) => e.hint(),
            Error::Lock(e) => e.hint(),
            Error::Guard(e) => e.hint(),
            Error::Worktree(e) => e.hint(),
            Error::Server(e) => e.hint(),
            Error::A2a(e) => e.hint(),
            Error::Store(StoreError::LockTimeout { .. }) => Some(
                "another swarm command is stuck holding the lock; find it with `ps aux | grep swarm`"
                    .into(),
            ),
            Error::Store(StoreError::BadRoot { .. }) => {
                Some("pass an existing directory to --root".into())
            }
            Error::Store(StoreError::Exists { .. }) => Some("add --force to replace it".into()),
            Error::Store(StoreError::Unreachable { .. }) => Some(
                "check that the Redis server runs and that [store] url (or SWARM_STORE_URL) \
                 names it; `swarm doctor` tests the connection"
                    .into(),
            ),
            Error::Config(ConfigError::Invalid { .. }) => Some(
                "fix each problem listed (file and line, or environment variable), then check \
                 again with `swarm config validate`"
                    .into(),
            ),
            Error::Config(ConfigError::Format { .. }) => {
                Some("name the file with .toml, .yaml or .yml".into())
            }
            Error::Config(ConfigError::NotFound { .. }) => Some(
                "check the path, or create the file with `swarm config init -o FILE`".into(),
            ),
            Error::Config(ConfigError::TooLarge { .. }) => {
                Some("a config file is a few kilobytes: check that this is the right file".into())
            }
            Error::Config(ConfigError::Read { path, .. }) => Some(format!(
                "check the file's owner and permissions (`ls -l {}`)",
                path.display()
            )),
            Error::UnknownAgent { known, .. } if known.is_empty() => {
                Some("no agents are registered: run `swarm discover` (or `swarm launch N`)".into())
            }
            Error::UnknownAgent { id, known, .. } => {
                let near = near_agent_id(id, known)
                    .map(|k| format!("did you mean `{k}`? "))
                    .unwrap_or_default();
                Some(format!(
                    "{near}active agents: {}; run `swarm discover` if the list is out of date",
                    known.join(", ")
                ))
            }
            Error::NoIdentity(_) => Some(
                "run it inside an agent's tmux pane, or name the agent with --agent/--from".into(),
            ),
            Error::NotInstalled { hint, .. } | Error::Refused { hint, .. } => Some(hint.clone()),
            Error::SessionExists(name) => Some(format!(
                "attach with `tmux attach -t {name}`, pick another name with --session, or replace it with --force"
            )),
            Error::NoSession(_) => Some(
                "`swarm sessions` lists the sessions swarm started (`tmux list-sessions` every \
                 session of the server)"
                    .into(),
            ),
            Error::NoRecordedSession(Some(_)) => {
                Some("`swarm sessions` lists the recorded sessions".into())
            }
            Error::NoRecordedSession(None) => {
                Some("`swarm launch` records each session it starts".into())
            }
            Error::WhichRecordedSession(sessions) => Some(format!(
                "name it: `swarm resume {}`",
                sessions.first().map_or("NAME", String::as_str)
            )),
            Error::WhichSession(sessions) => Some(format!(
                "name it: `swarm down --session {}`",
                sessions.first().map_or("NAME", String::as_str)
            )),
            Error::RateLimited { wait_secs, .. } => Some(format!(
                "wait {wait_secs}s, then deliver it with `swarm redeliver --all-queued`; \
                 the limits are rate_limiting.messages_per_minute (an agent's) and \
                 rate_limiting.operator_per_minute (yours) in .claudeswarm.toml"
            )),
            Error::NoRecipients(_) => {
                Some("run `swarm discover` if agents are running but not registered".into())
            }
            Error::NoSubscribers(topic) => Some(format!(
                "an agent follows it with `swarm subscribe {topic} --agent ID`; `swarm topics` \
                 lists who follows what"
            )),
            Error::Validation(ValidationError::ContentTooLong(_)) => Some(long_message_hint()),
            Error::Validation(ValidationError::MessageType { input, valid }) => {
                Some(message_type_hint(input, valid))
            }
            Error::Validation(ValidationError::ContentEmpty | ValidationError::ContentOnlyControls) => {
                Some(EMPTY_TEXT_HINT.into())
            }
            Error::NoConfigFile { .. } => Some(
                "create one with `swarm config init` (or check another file with --file)".into(),
            ),
            Error::NoEditor => Some("set EDITOR (e.g. `export EDITOR=nano`) or install vim or nano".into()),
            Error::EditorFailed { .. } => {
                Some("check the file with `swarm config validate` after editing it".into())
            }
            _ => None,
        }
    }
}
