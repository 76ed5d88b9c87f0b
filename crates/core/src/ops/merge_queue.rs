//! The merge queue's verbs: running it (`merge_queue`: agents join it,
//! each merge is built and tested before the base moves, and each agent
//! whose try failed is told), its order now (`merge_queue_order`), and an
//! agent leaving it (`leave_merge_queue`). The order puts agents holding
//! a lock on a file another changed after the others, so each verb reads
//! the locks itself.

use crate::backend::Operator;
use crate::domain::message::MessageType;
use crate::domain::validate;
use crate::error::Result;
use crate::locks::LockEntry;
use crate::merge_queue::{self, MergeQueueRun, PlannedMerge, TestPlan, Tried};
use crate::messaging::{Recipients, SendRequest};
use crate::worktrees::Repository;

/// Who joins the merge queue, how each merge is tested and whether the
/// agents are told of failed tries: checked, ready to run.
#[derive(Clone, Debug)]
pub struct MergeQueuePlan {
    join: Vec<String>,
    test: Option<TestPlan>,
    tell: bool,
}

impl MergeQueuePlan {
    /// `join` joins the merge queue (each once, at its end; none: the
    /// agents in it are tried again); untested, nobody told. Refused: an
    /// agent id that is not one.
    pub fn new(join: &[String]) -> Result<MergeQueuePlan> {
        let join = join
            .iter()
            .map(|a| validate::agent_id(a))
            .collect::<std::result::Result<Vec<_>, _>>()?;
        Ok(MergeQueuePlan {
            join,
            test: None,
            tell: false,
        })
    }

    /// Each merge must pass `test` before the base moves to it.
    pub fn tested(mut self, test: Option<TestPlan>) -> MergeQueuePlan {
        self.test = test;
        self
    }

    /// Each agent whose try failed is told why, from the person, when
    /// `tell`.
    pub fn telling(mut self, tell: bool) -> MergeQueuePlan {
        self.tell = tell;
        self
    }

    /// The test each merge must pass.
    pub fn test(&self) -> Option<&TestPlan> {
        self.test.as_ref()
    }
}

/// What `merge_queue` did.
#[derive(Clone, Debug)]
pub struct MergeQueueReport {
    /// The run: the order it took and each try.
    pub run: MergeQueueRun,
    /// For each try, in order, whether its agent was told of its failure.
    pub told: Vec<bool>,
    /// What the person should know (locks not read, the file set aside,
    /// agents not told).
    pub warnings: Vec<String>,
}

impl MergeQueueReport {
    /// Whether any try failed (its agent stays in the merge queue).
    pub fn failed(&self) -> bool {
        self.run.tried.iter().any(|t| !t.outcome.done())
    }

    /// The agents still in the merge queue after the run, in its order.
    pub fn still_waiting(&self) -> Vec<&str> {
        self.run
            .tried
            .iter()
            .filter(|t| !t.outcome.done())
            .map(|t| t.agent.as_str())
            .collect()
    }
}

/// Runs the merge queue in `repo` (see `merge_queue::run`), then tells
/// each agent whose try failed, once per try, when the plan says so.
pub fn merge_queue(
    op: &Operator,
    repo: &Repository,
    plan: &MergeQueuePlan,
) -> Result<MergeQueueReport> {
    let mut warnings = Vec::new();
    let locks = lock_paths(op, &mut warnings);
    let run = merge_queue::run(repo, &op.paths, &plan.join, plan.test(), &locks)?;
    warnings.extend(run.warnings.iter().cloned());
    let told = if plan.tell {
        tell_failures(op, &run, plan.test(), &mut warnings)
    } else {
        vec![false; run.tried.len()]
    };
    Ok(MergeQueueReport {
        run,
        told,
        warnings,
    })
}

/// The merge queue's order now.
#[derive(Clone, Debug)]
pub struct MergeQueueOrder {
    /// Each agent waiting, in the order the next run takes them, with why.
    pub order: Vec<PlannedMerge>,
    /// What the person should know (locks not read, a damaged file).
    pub warnings: Vec<String>,
}

/// The merge queue's order now, without running anything.
pub fn merge_queue_order(op: &Operator, repo: &Repository) -> Result<MergeQueueOrder> {
    let mut warnings = Vec::new();
    let locks = lock_paths(op, &mut warnings);
    let (order, note) = merge_queue::order(repo, &op.paths, &locks)?;
    warnings.extend(note);
    Ok(MergeQueueOrder { order, warnings })
}

/// What `leave_merge_queue` did.
#[derive(Clone, Debug)]
pub struct LeaveReport {
    /// The agent.
    pub agent: String,
    /// False when it was not in the merge queue.
    pub removed: bool,
    /// What the person should know (the file set aside).
    pub warnings: Vec<String>,
}

/// Takes `agent` out of the merge queue. Refused: an agent id that is
/// not one, or a run holding the queue.
pub fn leave_merge_queue(op: &Operator, agent: &str) -> Result<LeaveReport> {
    let agent = validate::agent_id(agent)?;
    let (removed, warnings) = merge_queue::leave(&op.paths, &agent)?;
    Ok(LeaveReport {
        agent,
        removed,
        warnings,
    })
}

/// Every lock as (holder, path or directory), for the order.
fn lock_paths(op: &Operator, warnings: &mut Vec<String>) -> Vec<(String, String)> {
    match op.backend.locks.list() {
        Ok(entries) => entries
            .into_iter()
            .filter_map(|e| match e {
                LockEntry::Held(h) => {
                    let path = h
                        .key
                        .as_ref()
                        .map_or(h.record.filepath.clone(), |k| k.as_str().to_owned());
                    Some((h.record.agent_id, path))
                }
                _ => None,
            })
            .collect(),
        Err(e) => {
            warnings.push(format!("could not read the locks for the order: {e}"));
            Vec::new()
        }
    }
}

/// Tells each agent whose try failed, once per try; whether each was told.
fn tell_failures(
    op: &Operator,
    run: &MergeQueueRun,
    test: Option<&TestPlan>,
    warnings: &mut Vec<String>,
) -> Vec<bool> {
    let registry = match op.registry() {
        Ok((registry, notes)) => {
            warnings.extend(notes);
            registry
        }
        Err(e) => {
            warnings.push(format!("could not tell the agents: {e}"));
            return vec![false; run.tried.len()];
        }
    };
    let command = test.map(|t| t.command.as_str());
    let tell = |t: &Tried, warnings: &mut Vec<String>| {
        let Some(text) = merge_queue::failure_text(&t.agent, &run.into, &t.outcome, command) else {
            return false;
        };
        if !registry.active().any(|r| r.id.as_str() == t.agent) {
            return false;
        }
        let mut req = SendRequest::new(
            op.messaging.person_id.clone(),
            Recipients::One(t.agent.clone()),
            MessageType::builtin("CONFLICT"),
            text,
        );
        req.system = true;
        match op.send(&registry, req) {
            Ok(report) => {
                warnings.extend(report.warnings);
                true
            }
            Err(e) => {
                warnings.push(format!("could not tell {}: {e}", t.agent));
                false
            }
        }
    };
    run.tried.iter().map(|t| tell(t, warnings)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Error;

    #[test]
    fn a_plan_takes_only_agent_ids() {
        let plan = MergeQueuePlan::new(&["agent-0".into(), " agent-1".into()]).expect("a plan");
        assert_eq!(plan.join, ["agent-0", "agent-1"]);
        assert!(plan.test().is_none() && !plan.tell);
        assert!(MergeQueuePlan::new(&[]).expect("none").join.is_empty());
        assert!(matches!(
            MergeQueuePlan::new(&["agent-0".into(), "../etc".into()]),
            Err(Error::Validation(_))
        ));
    }
}
