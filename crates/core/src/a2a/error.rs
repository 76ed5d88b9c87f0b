//! Failures of the A2A commands (cards, tasks, delegation, contexts,
//! conflicts), each with its exit code and a hint.

use crate::store::StoreError;
use crate::support::exit_code::ExitCode;

use super::task::TaskStatus;

/// Short for `Result<T, A2aError>`.
pub(super) type Result<T, E = A2aError> = std::result::Result<T, E>;

/// What can go wrong with the A2A stores and `COORDINATION.md`.
#[derive(Debug, thiserror::Error)]
pub enum A2aError {
    /// A store file could not be read, written or locked.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// A value given by the user is not acceptable.
    #[error("{0}")]
    Invalid(String),
    /// A name failed its check.
    #[error(transparent)]
    Validation(#[from] crate::domain::ValidationError),
    /// No agent card for this agent.
    #[error("no card found for agent: {0}")]
    NoCard(String),
    /// No task with this id (or id prefix).
    #[error("task not found: {0}")]
    NoTask(String),
    /// A task id prefix that matches several tasks.
    #[error("task id {prefix:?} matches {} tasks", matches.len())]
    AmbiguousTask {
        /// What was given.
        prefix: String,
        /// The full ids it matches.
        matches: Vec<String>,
    },
    /// No shared context with this id.
    #[error("context not found: {0}")]
    NoContext(String),
    /// `context create` for an id that exists, without `--force`.
    #[error("context {0} already exists")]
    ContextExists(String),
    /// A status change the task workflow does not allow.
    #[error("invalid transition: cannot transition from {} to {}", from.as_str(), to.as_str())]
    InvalidTransition {
        /// The task's status.
        from: TaskStatus,
        /// The status asked for.
        to: TaskStatus,
    },
    /// Delegating a task that is finished.
    #[error("task {id} is {}: only open tasks can be delegated", status.as_str())]
    TaskClosed {
        /// The task.
        id: String,
        /// Its terminal status.
        status: TaskStatus,
    },
    /// A claim on a task that is not pending and free.
    #[error("task {id} is {} and {}: it cannot be claimed", status.as_str(), match holder { Some(h) => format!("held by {h}"), None => "unassigned".to_owned() })]
    TaskTaken {
        /// The task.
        id: String,
        /// Who has it, if anyone.
        holder: Option<String>,
        /// Its status.
        status: TaskStatus,
    },
    /// No active agent card scores above zero for the task.
    #[error("no suitable agent found for this task")]
    NoSuitableAgent,
    /// The task could not be assigned after an agent was chosen.
    #[error("failed to assign task: {0}")]
    AssignFailed(String),
}

impl A2aError {
    /// The exit code this failure ends the process with.
    pub fn exit_code(&self) -> ExitCode {
        match self {
            A2aError::NoCard(_) | A2aError::NoTask(_) | A2aError::NoContext(_) => {
                ExitCode::NotFound
            }
            A2aError::Store(e) => e.exit_code(),
            _ => ExitCode::Failure,
        }
    }

    /// What the user can do about it.
    pub fn hint(&self) -> Option<String> {
        Some(match self {
            A2aError::Store(_) | A2aError::Invalid(_) | A2aError::Validation(_) => return None,
            A2aError::NoCard(_) => {
                "list the cards with `swarm cards list`; an agent registers with `swarm cards register --skills ...`".into()
            }
            A2aError::NoTask(_) => "list open tasks with `swarm tasks list --all`".into(),
            A2aError::AmbiguousTask { matches, .. } => {
                format!("give more of the id: {}", matches.join(", "))
            }
            A2aError::NoContext(_) => "list contexts with `swarm context list`".into(),
            A2aError::ContextExists(_) => "add --force to replace it".into(),
            A2aError::InvalidTransition { from, .. } => match from.next() {
                [] => format!("{} is final: nothing follows it", from.as_str()),
                next => format!(
                    "from {} a task can go to: {}",
                    from.as_str(),
                    next.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ")
                ),
            },
            A2aError::TaskClosed { id, status } if *status == TaskStatus::Failed => {
                format!("reopen it first: `swarm tasks update {id} --status pending`")
            }
            A2aError::TaskClosed { .. } => "create a new task for further work".into(),
            A2aError::TaskTaken { holder: Some(h), .. } => format!(
                "another agent was first: ask {h} (or pick another task from the pending ones)"
            ),
            A2aError::TaskTaken { .. } => {
                "only pending tasks can be claimed; pick another from the pending ones".into()
            }
            A2aError::NoSuitableAgent => {
                "only active agent cards are considered: register one with `swarm cards register --skills ...`, \
                 or set one active with `swarm cards update --availability active`"
                    .into()
            }
            A2aError::AssignFailed(_) => "look at the task with `swarm tasks get`".into(),
        })
    }
}
