//! `swarm delegate TASK_ID`: give a task to the active agent whose card
//! fits it best (docs/guide/python.md, Task coordination), and record the attempt in
//! `DELEGATION_HISTORY.json`. The original assigned the task and then
//! crashed with exit 1; this finishes the job and exits 0.

use clap::Args;

use swarm_core::a2a::Delegation;
use swarm_core::{ExitCode, Result};

use crate::cli::a2a::a2a_view::{shown, warn_notes};
use crate::cli::context::Context;

/// Arguments of `swarm delegate`.
#[derive(Debug, Args)]
pub(crate) struct DelegateArgs {
    /// The task: its id, or a unique beginning of it
    #[arg(value_name = "TASK_ID")]
    task_id: String,
    /// Print the delegation record as JSON
    #[arg(long)]
    json: bool,
}

/// Delegates the task.
pub(crate) fn run(ctx: &Context, args: &DelegateArgs) -> Result<ExitCode> {
    let mut notes = Vec::new();
    let result = Delegation::new(ctx.backend()?.a2a.as_ref()).delegate(&args.task_id, &mut notes);
    warn_notes(ctx, &notes);
    let result = result?;
    if args.json {
        ctx.out.json(&result)?;
        return Ok(ExitCode::Success);
    }
    let matched: Vec<String> = result
        .skill_matches
        .iter()
        .filter(|(_, p)| **p > 0.0)
        .map(|(skill, _)| shown(skill))
        .collect();
    ctx.out.print(&format!(
        "Task delegated successfully!\n  Task: {}\n  Assigned to: {}\n  Match score: {:.2}\n  Matched skills: {}\n",
        shown(&result.task_id),
        result.agent_id.as_deref().map(shown).unwrap_or_default(),
        result.match_score,
        if matched.is_empty() {
            "none".to_owned()
        } else {
            matched.join(", ")
        }
    ))?;
    Ok(ExitCode::Success)
}
