//! `swarm tasks claim TASK_ID [--agent-id ID]`: take a pending task for the
//! acting agent. Checked and written under the task file's lock, so of any
//! number of agents claiming one task exactly one wins (the MCP tool
//! `claim_task` does the same).

use clap::Args;

use swarm_core::a2a::TaskStore;
use swarm_core::{ExitCode, Result};

use crate::cli::a2a::a2a_view::{acting_agent, shown, warn_notes};
use crate::cli::context::Context;

/// Arguments of `swarm tasks claim`.
#[derive(Debug, Args)]
pub(super) struct ClaimArgs {
    /// The task: its id, or a unique beginning of it
    #[arg(value_name = "TASK_ID")]
    task_id: String,
    /// Who claims it [default: this pane's agent]
    #[arg(long = "agent", alias = "agent-id", value_name = "AGENT")]
    agent: Option<String>,
    /// Act for --agent although this pane is another agent (recorded)
    #[arg(long, requires = "agent")]
    as_other: bool,
    /// Print the task as JSON
    #[arg(long)]
    json: bool,
}

/// Claims the task; exit 1 when it is not pending (the error names who has
/// it), 4 when there is no such task.
pub(super) fn run(ctx: &Context, args: &ClaimArgs) -> Result<ExitCode> {
    let agent = acting_agent(
        ctx,
        args.agent.as_deref(),
        args.as_other,
        "--agent",
        "tasks claim",
    )?;
    let mut notes = Vec::new();
    let task = TaskStore::new(ctx.backend()?.a2a.as_ref()).claim(&args.task_id, &agent, &mut notes);
    warn_notes(ctx, &notes);
    let task = task?;
    if args.json {
        ctx.out.json(&task)?;
        return Ok(ExitCode::Success);
    }
    ctx.out.print(&format!(
        "Task claimed: {}\n  Status: {}\n  Assignee: {agent}\n",
        shown(&task.task_id),
        task.status
    ))?;
    Ok(ExitCode::Success)
}
