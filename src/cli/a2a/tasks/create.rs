//! `swarm tasks create OBJECTIVE [--creator ID] [--priority P]
//! [--constraints CSV] [--files CSV] [--context-id ID]`.

use clap::Args;

use swarm_core::a2a::{NewTask, TaskPriority, TaskStore};
use swarm_core::{ExitCode, Result};

use crate::cli::a2a::a2a_view::{acting_agent, csv, priority_parser, shown, text, warn_notes};
use crate::cli::context::Context;

/// Arguments of `swarm tasks create`.
#[derive(Debug, Args)]
pub(super) struct CreateArgs {
    /// What the task should achieve
    #[arg(value_name = "OBJECTIVE")]
    objective: String,
    /// Who creates it [default: this pane's agent]
    #[arg(long = "agent", alias = "creator", value_name = "AGENT")]
    creator: Option<String>,
    /// Act for --agent although this pane is another agent (recorded)
    #[arg(long, requires = "creator")]
    as_other: bool,
    /// How urgent
    #[arg(long, value_name = "PRIORITY", value_parser = priority_parser(),
          default_value = "normal")]
    priority: TaskPriority,
    /// Conditions the work must meet, comma-separated
    #[arg(long, value_name = "CSV")]
    constraints: Option<String>,
    /// Files concerned, comma-separated (their extensions suggest skills
    /// to `delegate`)
    #[arg(long, value_name = "CSV")]
    files: Option<String>,
    /// The shared context it belongs to
    #[arg(long, value_name = "ID")]
    context_id: Option<String>,
    /// Print the task as JSON
    #[arg(long)]
    json: bool,
}

/// Creates the task (a new UUID4 id) as pending.
pub(super) fn run(ctx: &Context, args: &CreateArgs) -> Result<ExitCode> {
    let objective = text("the objective", &args.objective)?;
    let context_id = args
        .context_id
        .as_deref()
        .map(|c| text("--context-id", c))
        .transpose()?;
    let creator = acting_agent(
        ctx,
        args.creator.as_deref(),
        args.as_other,
        "--agent",
        "tasks create",
    )?;
    let spec = NewTask {
        objective,
        created_by: creator,
        priority: args.priority,
        constraints: args.constraints.as_deref().map(csv).unwrap_or_default(),
        files: args.files.as_deref().map(csv).unwrap_or_default(),
        context_id,
    };
    let mut notes = Vec::new();
    let task = TaskStore::new(ctx.backend()?.a2a.as_ref()).create(spec, &mut notes);
    warn_notes(ctx, &notes);
    let task = task?;
    if args.json {
        ctx.out.json(&task)?;
        return Ok(ExitCode::Success);
    }
    ctx.out.print(&format!(
        "Task created: {}\n  Objective: {}\n  Priority: {}\n  Creator: {}\n",
        task.task_id,
        shown(&task.objective),
        task.priority,
        task.created_by
    ))?;
    Ok(ExitCode::Success)
}
