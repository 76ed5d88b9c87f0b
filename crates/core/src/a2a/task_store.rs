//! `TaskStore`: the tasks of a project, `TASKS.json` (docs/guide/python.md, Task coordination):
//! creating, changing, finding (by id or a unique prefix of it, as shown
//! by `tasks list`) and listing them. Every change is a read-modify-write
//! under the file's lock, so concurrent agents lose nothing.

use super::error::Result;
use crate::support::sanitize;

use super::a2a_store::{A2aStore, Collection};
use super::entries::Entries;
use super::error::A2aError;
use super::records::Records;
use super::task::{NewTask, Task, TaskStatus};

/// Which tasks `list` returns.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TaskFilter {
    /// Only this status (a final status is shown even without `all`).
    pub status: Option<TaskStatus>,
    /// Only tasks assigned to this agent.
    pub assignee: Option<String>,
    /// Include completed, failed and cancelled tasks.
    pub all: bool,
}

/// The tasks of one project.
#[derive(Clone, Debug)]
pub struct TaskStore<'a> {
    file: Records<'a>,
}

impl<'a> TaskStore<'a> {
    /// The tasks kept in `store`.
    pub fn new(store: &'a dyn A2aStore) -> TaskStore<'a> {
        TaskStore {
            file: Records::new(store, Collection::Tasks),
        }
    }

    /// Every readable task, in file order.
    pub fn all(&self, notes: &mut Vec<String>) -> Result<Vec<Task>> {
        Ok(self.file.read::<Task>(notes)?.values().cloned().collect())
    }

    /// The task whose id is `id`, or starts with it.
    pub fn get(&self, id: &str, notes: &mut Vec<String>) -> Result<Task> {
        let tasks = self.file.read::<Task>(notes)?;
        let key = resolve(&tasks, id)?;
        tasks.get(&key).cloned().ok_or_else(|| not_found(id))
    }

    /// Stores a new task and returns it.
    pub fn create(&self, spec: NewTask, notes: &mut Vec<String>) -> Result<Task> {
        let task = Task::new(spec);
        self.file.update::<Task, _>(notes, |tasks| {
            tasks.insert(task.task_id.clone(), task.clone());
            Ok(())
        })?;
        Ok(task)
    }

    /// Changes the task `id` (or the one its prefix names) with `change`,
    /// under the lock; nothing is written when `change` fails. Returns the
    /// task as stored and what `change` returned.
    pub fn modify<R>(
        &self,
        id: &str,
        notes: &mut Vec<String>,
        change: impl FnOnce(&mut Task) -> Result<R>,
    ) -> Result<(Task, R)> {
        self.file.update::<Task, _>(notes, |tasks| {
            let key = resolve(tasks, id)?;
            let task = tasks.get_mut(&key).ok_or_else(|| not_found(id))?;
            let r = change(task)?;
            Ok((task.clone(), r))
        })
    }

    /// Gives the pending task `id` to `agent` (it becomes
    /// assigned), checked and written under the file's lock, so that of
    /// any number of agents claiming one task exactly one wins. Claiming a
    /// task one already holds changes nothing.
    pub fn claim(&self, id: &str, agent: &str, notes: &mut Vec<String>) -> Result<Task> {
        let (task, ()) = self.modify(id, notes, |task| {
            if task.status == TaskStatus::Pending {
                task.assign(agent, "claimed")
            } else if task.status.is_active() && task.assigned_to.as_deref() == Some(agent) {
                Ok(())
            } else {
                Err(A2aError::TaskTaken {
                    id: task.task_id.clone(),
                    holder: task.assigned_to.clone(),
                    status: task.status,
                })
            }
        })?;
        Ok(task)
    }
}

/// The error for an id that names no readable task; what was typed is
/// cleaned before it can reach a terminal.
fn not_found(given: &str) -> A2aError {
    A2aError::NoTask(sanitize::one_line(given))
}

/// The full id `given` names: itself, or the one id it is a prefix of.
fn resolve(tasks: &Entries<Task>, given: &str) -> Result<String, A2aError> {
    let given = given.trim();
    if given.is_empty() {
        return Err(not_found(given));
    }
    if tasks.contains_key(given) {
        return Ok(given.to_owned());
    }
    // `tasks list` shows ids as `1b4e28ba...`: accept what it shows.
    let prefix = given.trim_end_matches('.');
    if prefix.is_empty() {
        return Err(not_found(given));
    }
    let mut matches = tasks.keys_starting_with(prefix);
    match matches.len() {
        1 => Ok(matches.remove(0)),
        0 => Err(not_found(given)),
        _ => Err(A2aError::AmbiguousTask {
            prefix: sanitize::one_line(given),
            matches: matches.iter().map(|m| sanitize::one_line(m)).collect(),
        }),
    }
}

/// The tasks `filter` selects, most urgent first, then oldest first (the
/// Python tool's order).
pub fn select<'a>(tasks: &'a [Task], filter: &TaskFilter) -> Vec<&'a Task> {
    let mut out: Vec<&Task> = tasks
        .iter()
        .filter(|t| filter.status.is_none_or(|s| t.status == s))
        .filter(|t| {
            filter
                .assignee
                .as_deref()
                .is_none_or(|a| t.assigned_to.as_deref() == Some(a))
        })
        // Asking for a final status shows those tasks: the original hid
        // them whatever was asked.
        .filter(|t| filter.all || filter.status.is_some() || !t.status.is_terminal())
        .collect();
    out.sort_by(|a, b| {
        a.priority
            .rank()
            .cmp(&b.priority.rank())
            .then_with(|| a.created_at.cmp(&b.created_at))
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::a2a::task::TaskPriority;

    fn task(id: &str, priority: TaskPriority, status: TaskStatus, created: &str) -> Task {
        let mut t = Task::new(NewTask {
            objective: id.into(),
            created_by: "agent-0".into(),
            priority,
            ..NewTask::default()
        });
        t.task_id = id.into();
        t.status = status;
        t.created_at = created.into();
        t
    }

    #[test]
    fn select_sorts_by_priority_then_age_and_hides_final_tasks() {
        use TaskPriority::*;
        use TaskStatus::*;
        let tasks = vec![
            task("a", Low, Pending, "2026-01-01T00:00:01+00:00"),
            task("b", Critical, Working, "2026-01-01T00:00:03+00:00"),
            task("c", Critical, Pending, "2026-01-01T00:00:02+00:00"),
            task("d", High, Completed, "2026-01-01T00:00:00+00:00"),
            task("e", Normal, Cancelled, "2026-01-01T00:00:00+00:00"),
        ];
        let ids = |f: &TaskFilter| {
            select(&tasks, f)
                .iter()
                .map(|t| t.task_id.clone())
                .collect::<Vec<_>>()
        };
        assert_eq!(ids(&TaskFilter::default()), ["c", "b", "a"]);
        assert_eq!(
            ids(&TaskFilter {
                all: true,
                ..Default::default()
            }),
            ["c", "b", "d", "e", "a"]
        );
        assert_eq!(
            ids(&TaskFilter {
                status: Some(Completed),
                ..Default::default()
            }),
            ["d"]
        );
        assert_eq!(
            ids(&TaskFilter {
                status: Some(Pending),
                ..Default::default()
            }),
            ["c", "a"]
        );
    }

    #[test]
    fn a_claim_is_won_once_and_repeats_harmlessly() {
        let dir = tempfile::tempdir().expect("tempdir");
        let files = crate::a2a::FileA2a::new(&crate::store::Paths::new(dir.path()));
        let store = TaskStore::new(&files);
        let mut notes = Vec::new();
        let t = store
            .create(
                NewTask {
                    objective: "o".into(),
                    created_by: "agent-0".into(),
                    ..NewTask::default()
                },
                &mut notes,
            )
            .expect("create");
        let won = store
            .claim(&t.task_id, "agent-1", &mut notes)
            .expect("claim");
        assert_eq!(won.status, TaskStatus::Assigned);
        assert_eq!(won.assigned_to.as_deref(), Some("agent-1"));
        store
            .claim(&t.task_id, "agent-1", &mut notes)
            .expect("own task again");
        let lost = store.claim(&t.task_id, "agent-2", &mut notes);
        assert!(
            matches!(&lost, Err(A2aError::TaskTaken { holder: Some(h), .. }) if h == "agent-1"),
            "{lost:?}"
        );
        let stored = store.get(&t.task_id, &mut notes).expect("get");
        assert_eq!(stored.assigned_to.as_deref(), Some("agent-1"));
    }

    #[test]
    fn ids_resolve_by_unique_prefix() {
        let mut e = Entries::<Task>::empty(true);
        for id in ["1b4e28ba-aaaa", "1b4e28bb-bbbb"] {
            e.insert(
                id.into(),
                task(id, TaskPriority::Normal, TaskStatus::Pending, ""),
            );
        }
        assert_eq!(
            resolve(&e, "1b4e28ba-aaaa").expect("exact"),
            "1b4e28ba-aaaa"
        );
        assert_eq!(
            resolve(&e, "1b4e28ba...").expect("as listed"),
            "1b4e28ba-aaaa"
        );
        assert!(
            matches!(resolve(&e, "1b4e"), Err(A2aError::AmbiguousTask { matches, .. }) if matches.len() == 2)
        );
        assert!(matches!(resolve(&e, "ffff"), Err(A2aError::NoTask(_))));
        assert!(matches!(resolve(&e, ""), Err(A2aError::NoTask(_))));
        assert!(matches!(resolve(&e, "..."), Err(A2aError::NoTask(_))));
    }
}
