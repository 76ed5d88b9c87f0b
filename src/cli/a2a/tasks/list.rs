//! `swarm tasks list [--status S] [--assignee ID] [--all] [--json]`.

use clap::Args;

use swarm_core::a2a::{TaskFilter, TaskPriority, TaskStatus, TaskStore, select};
use swarm_core::{ExitCode, Result};

use crate::cli::a2a::a2a_view::{agent_arg, head, shown, status_parser, warn_notes};
use crate::cli::context::Context;

/// Arguments of `swarm tasks list`.
#[derive(Debug, Args)]
pub(super) struct ListArgs {
    /// Only tasks with this status (completed, failed and cancelled ones
    /// too)
    #[arg(long, value_name = "STATUS", value_parser = status_parser())]
    status: Option<TaskStatus>,
    /// Only tasks assigned to this agent
    #[arg(long, value_name = "ID")]
    assignee: Option<String>,
    /// Include completed, failed and cancelled tasks
    #[arg(long)]
    all: bool,
    /// Print the tasks as a JSON array
    #[arg(long)]
    json: bool,
}

/// Lists the tasks, most urgent first, then oldest first.
pub(super) fn run(ctx: &Context, args: &ListArgs) -> Result<ExitCode> {
    let filter = TaskFilter {
        status: args.status,
        assignee: args
            .assignee
            .as_deref()
            .map(|a| agent_arg("--assignee", a))
            .transpose()?,
        all: args.all,
    };
    let mut notes = Vec::new();
    let tasks = TaskStore::new(ctx.backend()?.a2a.as_ref()).all(&mut notes);
    warn_notes(ctx, &notes);
    let tasks = tasks?;
    let tasks = select(&tasks, &filter);
    if args.json {
        ctx.out.json(&tasks)?;
        return Ok(ExitCode::Success);
    }
    if tasks.is_empty() {
        ctx.out.print("No tasks found.\n")?;
        return Ok(ExitCode::Success);
    }
    let mut s = format!("=== Tasks ({}) ===\n", tasks.len());
    for t in tasks {
        let symbol = match t.priority {
            TaskPriority::Critical => "🔴",
            TaskPriority::High => "🟠",
            TaskPriority::Normal => "🟢",
            TaskPriority::Low => "⚪",
        };
        s.push_str(&format!(
            "  {symbol} [{:<10}] {}... | {} | {}\n",
            t.status.as_str(),
            head(&t.task_id, 8),
            head(&t.objective, 40),
            t.assigned_to
                .as_deref()
                .map(shown)
                .unwrap_or_else(|| "unassigned".into())
        ));
    }
    ctx.out.print(&s)?;
    Ok(ExitCode::Success)
}
