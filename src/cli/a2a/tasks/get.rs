//! `swarm tasks get TASK_ID [--json]`.

use clap::Args;

use swarm_core::a2a::TaskStore;
use swarm_core::{ExitCode, Result};

use crate::cli::a2a::a2a_view::{joined, shown, warn_notes};
use crate::cli::context::Context;

/// Arguments of `swarm tasks get`.
#[derive(Debug, Args)]
pub(super) struct GetArgs {
    /// The task: its id, or a unique beginning of it (as `tasks list`
    /// shows it)
    #[arg(value_name = "TASK_ID")]
    task_id: String,
    /// Print the task (with its history) as JSON
    #[arg(long)]
    json: bool,
}

/// Shows one task; exit 4 when there is none.
pub(super) fn run(ctx: &Context, args: &GetArgs) -> Result<ExitCode> {
    let mut notes = Vec::new();
    let task = TaskStore::new(ctx.backend()?.a2a.as_ref()).get(&args.task_id, &mut notes);
    warn_notes(ctx, &notes);
    let t = task?;
    if args.json {
        ctx.out.json(&t)?;
        return Ok(ExitCode::Success);
    }
    let mut s = format!("=== Task: {} ===\n", shown(&t.task_id));
    s.push_str(&format!("  Objective: {}\n", shown(&t.objective)));
    s.push_str(&format!("  Status: {}\n", t.status));
    s.push_str(&format!("  Priority: {}\n", t.priority));
    s.push_str(&format!("  Creator: {}\n", shown(&t.created_by)));
    s.push_str(&format!(
        "  Assignee: {}\n",
        t.assigned_to
            .as_deref()
            .map(shown)
            .unwrap_or_else(|| "unassigned".into())
    ));
    if !t.constraints.is_empty() {
        s.push_str(&format!("  Constraints: {}\n", joined(&t.constraints)));
    }
    if !t.files.is_empty() {
        s.push_str(&format!("  Files: {}\n", joined(&t.files)));
    }
    if !t.blocked_by.is_empty() {
        s.push_str(&format!("  Blocked by: {}\n", joined(&t.blocked_by)));
    }
    s.push_str(&format!("  Created: {}\n", shown(&t.created_at)));
    s.push_str(&format!("  Updated: {}\n", shown(&t.updated_at)));
    ctx.out.print(&s)?;
    Ok(ExitCode::Success)
}
