//! `swarm tasks update TASK_ID [--status S] [--assignee ID]`: what the
//! original meant to do (it always failed): move the task along its
//! workflow, record the change in its history, and persist it.

use clap::{ArgGroup, Args};

use swarm_core::a2a::{TaskStatus, TaskStore};
use swarm_core::{ExitCode, Result};

use crate::cli::a2a::a2a_view::{agent_arg, optional_text, shown, status_parser, warn_notes};
use crate::cli::actor;
use crate::cli::context::Context;

/// Who a change is recorded as when it comes from outside any agent's
/// pane and no `--agent-id` was given (the original's `find-agent` uses
/// the same name for tasks made by the command line).
const COMMAND_LINE: &str = "cli";

/// The workflow, for the help (a test keeps it equal to the one enforced).
const WORKFLOW: &str = "\
A task moves from one status to the next like this:
  pending    -> assigned, cancelled
  assigned   -> working, blocked, cancelled, pending
  working    -> review, blocked, failed, cancelled, completed
  review     -> completed, working, failed, cancelled
  blocked    -> pending, assigned, working, cancelled, failed
  failed     -> pending
  completed and cancelled are final.";

/// Arguments of `swarm tasks update`.
#[derive(Debug, Args)]
#[command(
    group(ArgGroup::new("changes").required(true).multiple(true).args(["status", "assignee"])),
    after_help = WORKFLOW
)]
pub(super) struct UpdateArgs {
    /// The task: its id, or a unique beginning of it
    #[arg(value_name = "TASK_ID")]
    task_id: String,
    /// The new status; it must follow from the current one (listed below)
    #[arg(long, value_name = "STATUS", value_parser = status_parser())]
    status: Option<TaskStatus>,
    /// Give the task to this agent (a pending task becomes assigned)
    #[arg(long, value_name = "ID")]
    assignee: Option<String>,
    /// Why, for the task's history
    #[arg(long, short, value_name = "TEXT")]
    message: Option<String>,
    /// Who makes the change, for the history [default: this pane's agent,
    /// else `cli`]
    #[arg(long = "agent", alias = "agent-id", value_name = "AGENT")]
    agent: Option<String>,
    /// Act for --agent although this pane is another agent (recorded)
    #[arg(long, requires = "agent")]
    as_other: bool,
    /// Print the task as JSON
    #[arg(long)]
    json: bool,
}

/// Applies the assignee first (so `--assignee A --status working` works
/// on a pending task), then the status change.
pub(super) fn run(ctx: &Context, args: &UpdateArgs) -> Result<ExitCode> {
    let assignee = args
        .assignee
        .as_deref()
        .map(|a| agent_arg("--assignee", a))
        .transpose()?;
    let message = optional_text("--message", args.message.as_deref())?;
    let by = match (&args.agent, actor::detect(ctx)?) {
        (None, None) => COMMAND_LINE.to_owned(),
        (explicit, _) => {
            let actor = actor::resolve_any(ctx, explicit.as_deref(), args.as_other, "--agent")?;
            actor::record_as_other(ctx, &actor, "tasks update")?;
            actor.id
        }
    };
    let mut notes = Vec::new();
    let result =
        TaskStore::new(ctx.backend()?.a2a.as_ref()).modify(&args.task_id, &mut notes, |task| {
            let before = task.status;
            if let Some(agent) = &assignee {
                task.assign(agent, &message)?;
            }
            if let Some(to) = args.status {
                // `--assignee A --status assigned` on a pending task: the
                // assignment already made it so.
                let done_by_assign = assignee.is_some() && task.status == to && before != to;
                if !done_by_assign {
                    task.transition(to, &by, &message)?;
                }
            }
            Ok(())
        });
    warn_notes(ctx, &notes);
    let (task, ()) = result?;
    if args.json {
        ctx.out.json(&task)?;
        return Ok(ExitCode::Success);
    }
    let mut s = format!(
        "Task updated: {}\n  Status: {}\n",
        shown(&task.task_id),
        task.status
    );
    if let Some(a) = &task.assigned_to {
        s.push_str(&format!("  Assignee: {}\n", shown(a)));
    }
    ctx.out.print(&s)?;
    Ok(ExitCode::Success)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_help_shows_the_enforced_workflow() {
        for status in TaskStatus::ALL {
            let next = status.next();
            if next.is_empty() {
                continue;
            }
            let line = format!(
                "  {:<10} -> {}\n",
                status.as_str(),
                next.iter()
                    .map(|s| s.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            );
            assert!(WORKFLOW.contains(&line), "{line:?}");
        }
        assert!(WORKFLOW.ends_with("completed and cancelled are final."));
    }
}
