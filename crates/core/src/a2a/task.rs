//! `Task`: a unit of work with a status workflow and a history (docs/guide/python.md, Task coordination,
//! docs/FORMATS.md). The Python tool builds a task with `Task(**data)`, so
//! the keys written here are exactly its keys, in its order.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::support::time;

use super::entries::Record;
use super::error::A2aError;

/// Where a task is in its workflow.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TaskStatus {
    /// Created, not assigned.
    #[default]
    Pending,
    /// Assigned to an agent.
    Assigned,
    /// Being worked on.
    Working,
    /// Done, waiting for review.
    Review,
    /// Finished (final).
    Completed,
    /// Waiting on something else.
    Blocked,
    /// Failed (can be retried: back to pending).
    Failed,
    /// Called off (final).
    Cancelled,
}

impl TaskStatus {
    /// Every status, in the Python tool's order.
    pub const ALL: [TaskStatus; 8] = [
        TaskStatus::Pending,
        TaskStatus::Assigned,
        TaskStatus::Working,
        TaskStatus::Review,
        TaskStatus::Completed,
        TaskStatus::Blocked,
        TaskStatus::Failed,
        TaskStatus::Cancelled,
    ];

    /// The word used in the file and in listings.
    pub fn as_str(self) -> &'static str {
        match self {
            TaskStatus::Pending => "pending",
            TaskStatus::Assigned => "assigned",
            TaskStatus::Working => "working",
            TaskStatus::Review => "review",
            TaskStatus::Completed => "completed",
            TaskStatus::Blocked => "blocked",
            TaskStatus::Failed => "failed",
            TaskStatus::Cancelled => "cancelled",
        }
    }

    /// The statuses a task may move to from this one (docs/guide/python.md, Task coordination).
    pub fn next(self) -> &'static [TaskStatus] {
        use TaskStatus::*;
        match self {
            Pending => &[Assigned, Cancelled],
            Assigned => &[Working, Blocked, Cancelled, Pending],
            Working => &[Review, Blocked, Failed, Cancelled, Completed],
            Review => &[Completed, Working, Failed, Cancelled],
            Blocked => &[Pending, Assigned, Working, Cancelled, Failed],
            Completed | Cancelled => &[],
            Failed => &[Pending],
        }
    }

    /// True for the statuses a task ends in: completed, failed, cancelled.
    pub fn is_terminal(self) -> bool {
        matches!(
            self,
            TaskStatus::Completed | TaskStatus::Failed | TaskStatus::Cancelled
        )
    }

    /// True while an agent has the task: assigned, working, review.
    pub fn is_active(self) -> bool {
        matches!(
            self,
            TaskStatus::Assigned | TaskStatus::Working | TaskStatus::Review
        )
    }
}

impl FromStr for TaskStatus {
    type Err = String;

    fn from_str(s: &str) -> Result<TaskStatus, String> {
        TaskStatus::ALL
            .into_iter()
            .find(|t| t.as_str() == s)
            .ok_or_else(|| format!("unknown task status {s:?}"))
    }
}

impl fmt::Display for TaskStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How urgent a task is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TaskPriority {
    /// Whenever.
    Low,
    /// The default.
    #[default]
    Normal,
    /// Soon.
    High,
    /// Now.
    Critical,
}

impl TaskPriority {
    /// Every priority, lowest first.
    pub const ALL: [TaskPriority; 4] = [
        TaskPriority::Low,
        TaskPriority::Normal,
        TaskPriority::High,
        TaskPriority::Critical,
    ];

    /// The word used in the file and in listings.
    pub fn as_str(self) -> &'static str {
        match self {
            TaskPriority::Low => "low",
            TaskPriority::Normal => "normal",
            TaskPriority::High => "high",
            TaskPriority::Critical => "critical",
        }
    }

    /// Sort rank: critical 0, high 1, normal 2, low 3.
    pub(crate) fn rank(self) -> u8 {
        match self {
            TaskPriority::Critical => 0,
            TaskPriority::High => 1,
            TaskPriority::Normal => 2,
            TaskPriority::Low => 3,
        }
    }
}

impl FromStr for TaskPriority {
    type Err = String;

    fn from_str(s: &str) -> Result<TaskPriority, String> {
        TaskPriority::ALL
            .into_iter()
            .find(|p| p.as_str() == s)
            .ok_or_else(|| format!("unknown task priority {s:?}"))
    }
}

impl fmt::Display for TaskPriority {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One change in a task's life.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HistoryEntry {
    /// When (aware UTC ISO).
    pub timestamp: String,
    /// The status before; `None` for the creation.
    pub from_status: Option<String>,
    /// The status after.
    pub to_status: String,
    /// Who made the change.
    pub agent_id: String,
    /// Why.
    #[serde(default)]
    pub message: String,
    /// Anything else about the change.
    #[serde(default)]
    pub metadata: Map<String, Value>,
}

/// A task.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Task {
    /// UUID4.
    pub task_id: String,
    /// What it should achieve.
    pub objective: String,
    /// Where it is in the workflow.
    #[serde(default)]
    pub status: TaskStatus,
    /// How urgent.
    #[serde(default)]
    pub priority: TaskPriority,
    /// Who created it.
    #[serde(default)]
    pub created_by: String,
    /// Who has it.
    #[serde(default)]
    pub assigned_to: Option<String>,
    /// The shared context it belongs to.
    #[serde(default)]
    pub context_id: Option<String>,
    /// Conditions the work must meet.
    #[serde(default)]
    pub constraints: Vec<String>,
    /// Files concerned.
    #[serde(default)]
    pub files: Vec<String>,
    /// Tasks it waits for.
    #[serde(default)]
    pub blocked_by: Vec<String>,
    /// Tasks waiting for it.
    #[serde(default)]
    pub blocks: Vec<String>,
    /// What it produced.
    #[serde(default)]
    pub result: Option<Value>,
    /// Why it failed.
    #[serde(default)]
    pub error: Option<String>,
    /// Every change, oldest first.
    #[serde(default)]
    pub history: Vec<HistoryEntry>,
    /// Anything else.
    #[serde(default)]
    pub metadata: Map<String, Value>,
    /// Created (aware UTC ISO).
    #[serde(default = "now_iso")]
    pub created_at: String,
    /// Last changed (aware UTC ISO).
    #[serde(default = "now_iso")]
    pub updated_at: String,
    /// The task this is a part of.
    #[serde(default)]
    pub parent_task_id: Option<String>,
    /// Keys written by another version of either tool, kept as they are.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

fn now_iso() -> String {
    time::utc_iso(time::now())
}

impl Record for Task {}

/// What a new task is made of.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct NewTask {
    /// What it should achieve.
    pub objective: String,
    /// Who creates it.
    pub created_by: String,
    /// How urgent.
    pub priority: TaskPriority,
    /// Conditions the work must meet.
    pub constraints: Vec<String>,
    /// Files concerned.
    pub files: Vec<String>,
    /// The shared context it belongs to.
    pub context_id: Option<String>,
}

impl Task {
    /// A pending task with a fresh UUID4 and its creation in the history.
    pub fn new(spec: NewTask) -> Task {
        let created_at = now_iso();
        Task {
            task_id: uuid::Uuid::new_v4().to_string(),
            objective: spec.objective,
            status: TaskStatus::Pending,
            priority: spec.priority,
            created_by: spec.created_by.clone(),
            assigned_to: None,
            context_id: spec.context_id,
            constraints: spec.constraints,
            files: spec.files,
            blocked_by: Vec::new(),
            blocks: Vec::new(),
            result: None,
            error: None,
            history: vec![HistoryEntry {
                timestamp: created_at.clone(),
                from_status: None,
                to_status: TaskStatus::Pending.as_str().into(),
                agent_id: spec.created_by,
                message: "Task created".into(),
                metadata: Map::new(),
            }],
            metadata: Map::new(),
            created_at: created_at.clone(),
            updated_at: created_at,
            parent_task_id: None,
            extra: Map::new(),
        }
    }

    /// Moves to `to` if the workflow allows it, recording who did it.
    pub fn transition(
        &mut self,
        to: TaskStatus,
        agent: &str,
        message: &str,
    ) -> Result<(), A2aError> {
        if !self.status.next().contains(&to) {
            return Err(A2aError::InvalidTransition {
                from: self.status,
                to,
            });
        }
        let now = now_iso();
        self.history.push(HistoryEntry {
            timestamp: now.clone(),
            from_status: Some(self.status.as_str().into()),
            to_status: to.as_str().into(),
            agent_id: agent.into(),
            message: message.into(),
            metadata: Map::new(),
        });
        self.status = to;
        self.updated_at = now;
        Ok(())
    }

    /// Gives the task to `agent`; a pending task becomes assigned, with
    /// the assignee as the history's agent (as the Python tool records
    /// it).
    pub fn assign(&mut self, agent: &str, message: &str) -> Result<(), A2aError> {
        self.assigned_to = Some(agent.to_owned());
        if self.status == TaskStatus::Pending {
            self.transition(TaskStatus::Assigned, agent, message)?;
        }
        self.updated_at = now_iso();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Spec 15.2, row by row: what may follow each status.
    const TABLE: [(TaskStatus, &[TaskStatus]); 8] = {
        use TaskStatus::*;
        [
            (Pending, &[Assigned, Cancelled]),
            (Assigned, &[Working, Blocked, Cancelled, Pending]),
            (Working, &[Review, Blocked, Failed, Cancelled, Completed]),
            (Review, &[Completed, Working, Failed, Cancelled]),
            (Completed, &[]),
            (Blocked, &[Pending, Assigned, Working, Cancelled, Failed]),
            (Failed, &[Pending]),
            (Cancelled, &[]),
        ]
    };

    fn task() -> Task {
        Task::new(NewTask {
            objective: "o".into(),
            created_by: "agent-0".into(),
            ..NewTask::default()
        })
    }

    #[test]
    fn every_pair_of_statuses_follows_the_table() {
        for (from, allowed) in TABLE {
            for to in TaskStatus::ALL {
                let mut t = task();
                t.status = from;
                let before = t.history.len();
                let result = t.transition(to, "agent-1", "why");
                if allowed.contains(&to) {
                    result.unwrap_or_else(|e| panic!("{from} -> {to}: {e}"));
                    assert_eq!(t.status, to);
                    let h = &t.history[before];
                    assert_eq!(h.from_status.as_deref(), Some(from.as_str()));
                    assert_eq!(
                        (h.to_status.as_str(), h.agent_id.as_str()),
                        (to.as_str(), "agent-1")
                    );
                    assert_eq!(h.message, "why");
                } else {
                    let err = result.expect_err(&format!("{from} -> {to}"));
                    assert_eq!(
                        err.to_string(),
                        format!("invalid transition: cannot transition from {from} to {to}")
                    );
                    assert_eq!((t.status, t.history.len()), (from, before));
                }
            }
        }
    }

    #[test]
    fn terminal_and_active_statuses() {
        let terminal: Vec<_> = TaskStatus::ALL
            .into_iter()
            .filter(|s| s.is_terminal())
            .collect();
        assert_eq!(
            terminal,
            [
                TaskStatus::Completed,
                TaskStatus::Failed,
                TaskStatus::Cancelled
            ]
        );
        let active: Vec<_> = TaskStatus::ALL
            .into_iter()
            .filter(|s| s.is_active())
            .collect();
        assert_eq!(
            active,
            [
                TaskStatus::Assigned,
                TaskStatus::Working,
                TaskStatus::Review
            ]
        );
    }

    #[test]
    fn a_new_task_records_its_creation_and_assign_moves_pending_only() {
        let mut t = task();
        assert_eq!(t.history.len(), 1);
        assert_eq!(t.history[0].from_status, None);
        assert_eq!(t.history[0].message, "Task created");
        assert_eq!(t.history[0].timestamp, t.created_at);
        assert_eq!(
            uuid::Uuid::parse_str(&t.task_id).map(|u| u.get_version_num()),
            Ok(4)
        );
        t.assign("agent-2", "picked").expect("assign");
        assert_eq!(
            (t.status, t.assigned_to.as_deref()),
            (TaskStatus::Assigned, Some("agent-2"))
        );
        assert_eq!(t.history[1].agent_id, "agent-2");
        t.transition(TaskStatus::Working, "agent-2", "")
            .expect("work");
        t.assign("agent-3", "").expect("reassign");
        assert_eq!((t.status, t.history.len()), (TaskStatus::Working, 3));
    }

    #[test]
    fn the_python_key_order() {
        let t = task();
        let v = serde_json::to_value(&t).expect("value");
        let keys: Vec<&str> = v
            .as_object()
            .expect("object")
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(
            keys,
            [
                "task_id",
                "objective",
                "status",
                "priority",
                "created_by",
                "assigned_to",
                "context_id",
                "constraints",
                "files",
                "blocked_by",
                "blocks",
                "result",
                "error",
                "history",
                "metadata",
                "created_at",
                "updated_at",
                "parent_task_id"
            ]
        );
        let h: Vec<&str> = v["history"][0]
            .as_object()
            .expect("object")
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(
            h,
            [
                "timestamp",
                "from_status",
                "to_status",
                "agent_id",
                "message",
                "metadata"
            ]
        );
    }
}
