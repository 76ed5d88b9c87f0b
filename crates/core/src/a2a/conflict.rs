//! Lock conflicts and their advisory resolution (docs/guide/python.md, Task coordination):
//! when an agent needs a path another agent has locked, decide who
//! should have it (by task priority, else the holder keeps it) and
//! record the decision in `CONFLICT_LOG.json`. Nothing here touches a
//! lock: the agents act on the advice.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::error::Result;
use crate::support::time;

use super::a2a_store::{A2aStore, Collection};
use super::entries::Record;
use super::records::Records;
use super::task::Task;

/// Conflicts kept in the log (the oldest go first).
pub(crate) const LOG_CAP: usize = 500;

/// How a conflict was decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strategy {
    /// The agent with the more urgent task wins.
    Priority,
    /// The holder was there first and keeps it.
    Seniority,
}

impl Strategy {
    /// The word used in the log.
    pub fn as_str(self) -> &'static str {
        match self {
            Strategy::Priority => "priority",
            Strategy::Seniority => "seniority",
        }
    }
}

/// The decision on a conflict.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Resolution {
    /// The conflict.
    pub conflict_id: String,
    /// `priority`, `seniority`, ...
    pub strategy_used: String,
    /// Who should have the resource.
    pub winner: String,
    /// What the other agent should do: `yield` or `wait`.
    pub loser_action: String,
    /// When (aware UTC ISO).
    #[serde(default = "now_iso")]
    pub resolved_at: String,
    /// Why, in words.
    #[serde(default)]
    pub reason: String,
    /// Decided without a person.
    #[serde(default = "yes")]
    pub automatic: bool,
    /// Anything else.
    #[serde(default)]
    pub metadata: Map<String, Value>,
}

fn yes() -> bool {
    true
}

/// A conflict between agents over a resource.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Conflict {
    /// UUID4.
    pub conflict_id: String,
    /// `file_lock` (swarm records no other kind).
    pub conflict_type: String,
    /// `[requester, holder]`.
    pub agents_involved: Vec<String>,
    /// The contested path.
    pub resource: String,
    /// When (aware UTC ISO).
    #[serde(default = "now_iso")]
    pub detected_at: String,
    /// `pending`, `resolved`, ...
    #[serde(default = "pending")]
    pub status: String,
    /// For file locks: `locked_at` (aware UTC ISO) and `lock_reason`.
    #[serde(default)]
    pub metadata: Map<String, Value>,
    /// The decision, once there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resolution: Option<Resolution>,
    /// Negotiation messages (written by the Python library only).
    #[serde(default)]
    pub negotiations: Vec<Value>,
    /// Keys written by another version of either tool, kept as they are.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

fn now_iso() -> String {
    time::utc_iso(time::now())
}

fn pending() -> String {
    "pending".into()
}

impl Record for Conflict {}

/// The lock in the way, as a conflict needs it.
#[derive(Clone, Debug, PartialEq)]
pub struct HeldBy {
    /// The holder.
    pub agent: String,
    /// The path or pattern locked (may differ from the resource: a
    /// directory or pattern covering it).
    pub locked_path: String,
    /// When it was locked, Unix seconds.
    pub locked_at: f64,
    /// The holder's reason.
    pub reason: String,
}

impl Conflict {
    /// A pending file-lock conflict: `requester` needs `resource`, which
    /// `held` covers.
    pub fn file_lock(requester: &str, resource: &str, held: &HeldBy) -> Conflict {
        let mut metadata = Map::new();
        let locked_at = time::from_unix_seconds(held.locked_at)
            .map(time::utc_iso)
            .unwrap_or_default();
        metadata.insert("locked_at".into(), locked_at.into());
        metadata.insert("lock_reason".into(), held.reason.clone().into());
        if held.locked_path != resource {
            metadata.insert("locked_path".into(), held.locked_path.clone().into());
        }
        Conflict {
            conflict_id: uuid::Uuid::new_v4().to_string(),
            conflict_type: "file_lock".into(),
            agents_involved: vec![requester.to_owned(), held.agent.clone()],
            resource: resource.to_owned(),
            detected_at: now_iso(),
            status: pending(),
            metadata,
            resolution: None,
            negotiations: Vec::new(),
            extra: Map::new(),
        }
    }

    /// Decides the conflict with the default strategies: the agent whose
    /// task is more urgent wins (both need an active task); otherwise the
    /// holder keeps it. Marks the conflict resolved and returns the
    /// strategy used.
    pub fn resolve(
        &mut self,
        requester_task: Option<&Task>,
        holder_task: Option<&Task>,
    ) -> Strategy {
        let requester = self.agents_involved.first().cloned().unwrap_or_default();
        let holder = self.agents_involved.get(1).cloned().unwrap_or_default();
        let by_priority = match (requester_task, holder_task) {
            (Some(r), Some(h)) if r.priority.rank() < h.priority.rank() => Some((
                requester,
                "yield",
                format!("Task priority: {} > {}", r.priority, h.priority),
            )),
            (Some(r), Some(h)) if h.priority.rank() < r.priority.rank() => Some((
                holder.clone(),
                "wait",
                format!("Task priority: {} > {}", h.priority, r.priority),
            )),
            _ => None,
        };
        let (strategy, (winner, loser_action, reason)) = match by_priority {
            Some(decided) => (Strategy::Priority, decided),
            None => (
                Strategy::Seniority,
                (
                    holder,
                    "wait",
                    "Current holder has seniority (was working first)".to_owned(),
                ),
            ),
        };
        self.resolution = Some(Resolution {
            conflict_id: self.conflict_id.clone(),
            strategy_used: strategy.as_str().into(),
            winner,
            loser_action: loser_action.into(),
            resolved_at: now_iso(),
            reason,
            automatic: true,
            metadata: Map::new(),
        });
        self.status = "resolved".into();
        strategy
    }
}

/// The task an agent is on for conflict purposes: its first active task
/// (assigned, working or review) in list order (most urgent, then
/// oldest).
pub fn current_task<'a>(tasks: &[&'a Task], agent: &str) -> Option<&'a Task> {
    tasks
        .iter()
        .copied()
        .find(|t| t.assigned_to.as_deref() == Some(agent) && t.status.is_active())
}

/// The conflict log of one project.
#[derive(Clone, Debug)]
pub struct ConflictLog<'a> {
    file: Records<'a>,
}

impl<'a> ConflictLog<'a> {
    /// The log kept in `store`.
    pub fn new(store: &'a dyn A2aStore) -> ConflictLog<'a> {
        ConflictLog {
            file: Records::new(store, Collection::Conflicts),
        }
    }

    /// Appends `conflicts`, keeping the newest `LOG_CAP`.
    pub fn record(&self, conflicts: &[Conflict], notes: &mut Vec<String>) -> Result<()> {
        self.file.update::<Conflict, _>(notes, |log| {
            for c in conflicts {
                log.push(c.clone());
            }
            log.keep_last(LOG_CAP);
            Ok(())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::a2a::task::{NewTask, TaskPriority, TaskStatus};

    fn task(agent: &str, priority: TaskPriority, status: TaskStatus) -> Task {
        let mut t = Task::new(NewTask {
            objective: "o".into(),
            created_by: agent.into(),
            priority,
            ..NewTask::default()
        });
        t.assigned_to = Some(agent.into());
        t.status = status;
        t
    }

    fn conflict() -> Conflict {
        Conflict::file_lock(
            "agent-1",
            "src/a.py",
            &HeldBy {
                agent: "agent-2".into(),
                locked_path: "src/*.py".into(),
                locked_at: 1_795_267_578.5,
                reason: "refactor".into(),
            },
        )
    }

    #[test]
    fn priority_then_seniority() {
        use TaskPriority::*;
        let req = task("agent-1", Critical, TaskStatus::Working);
        let hold = task("agent-2", Normal, TaskStatus::Working);
        let mut c = conflict();
        assert_eq!(c.resolve(Some(&req), Some(&hold)), Strategy::Priority);
        let r = c.resolution.clone().expect("resolved");
        assert_eq!(
            (r.winner.as_str(), r.loser_action.as_str()),
            ("agent-1", "yield")
        );
        assert_eq!(r.reason, "Task priority: critical > normal");
        assert_eq!(c.status, "resolved");
        let mut c = conflict();
        c.resolve(Some(&hold), Some(&req));
        let r = c.resolution.clone().expect("resolved");
        assert_eq!(
            (r.winner.as_str(), r.loser_action.as_str()),
            ("agent-2", "wait")
        );
        assert_eq!(r.reason, "Task priority: critical > normal");
        for (a, b) in [
            (Some(&req), None),
            (None, Some(&hold)),
            (Some(&hold), Some(&hold)),
        ] {
            let mut c = conflict();
            assert_eq!(c.resolve(a, b), Strategy::Seniority);
            let r = c.resolution.clone().expect("resolved");
            assert_eq!(
                (r.winner.as_str(), r.loser_action.as_str()),
                ("agent-2", "wait")
            );
            assert_eq!(r.reason, "Current holder has seniority (was working first)");
        }
    }

    #[test]
    fn the_record_has_the_python_shape() {
        let mut c = conflict();
        assert_eq!(c.metadata["locked_at"], "2026-11-21T13:26:18.500000+00:00");
        assert_eq!(c.metadata["lock_reason"], "refactor");
        assert_eq!(c.metadata["locked_path"], "src/*.py");
        let keys = |v: &Value| {
            v.as_object()
                .expect("object")
                .keys()
                .cloned()
                .collect::<Vec<_>>()
        };
        let v = serde_json::to_value(&c).expect("value");
        assert_eq!(
            keys(&v),
            [
                "conflict_id",
                "conflict_type",
                "agents_involved",
                "resource",
                "detected_at",
                "status",
                "metadata",
                "negotiations"
            ]
        );
        c.resolve(None, None);
        let v = serde_json::to_value(&c).expect("value");
        assert_eq!(
            keys(&v),
            [
                "conflict_id",
                "conflict_type",
                "agents_involved",
                "resource",
                "detected_at",
                "status",
                "metadata",
                "resolution",
                "negotiations"
            ]
        );
        assert_eq!(
            keys(&v["resolution"]),
            [
                "conflict_id",
                "strategy_used",
                "winner",
                "loser_action",
                "resolved_at",
                "reason",
                "automatic",
                "metadata"
            ]
        );
    }

    #[test]
    fn the_current_task_is_the_first_active_one() {
        let done = task("agent-1", TaskPriority::Critical, TaskStatus::Completed);
        let pending = task("agent-1", TaskPriority::Critical, TaskStatus::Pending);
        let working = task("agent-1", TaskPriority::Low, TaskStatus::Working);
        let other = task("agent-2", TaskPriority::High, TaskStatus::Review);
        let all = [&done, &pending, &other, &working];
        assert_eq!(current_task(&all, "agent-1"), Some(&working));
        assert_eq!(current_task(&all, "agent-2"), Some(&other));
        assert_eq!(current_task(&all, "agent-3"), None);
    }
}
