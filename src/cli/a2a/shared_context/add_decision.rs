//! `swarm context add-decision ID DECISION [--reason R] [--by AGENT]`:
//! what the original meant to do (it always failed).

use clap::Args;

use swarm_core::a2a::ContextStore;
use swarm_core::{ExitCode, Result};

use crate::cli::a2a::a2a_view::{acting_agent, optional_text, shown, text, warn_notes};
use crate::cli::context::Context;

/// Arguments of `swarm context add-decision`.
#[derive(Debug, Args)]
pub(super) struct AddDecisionArgs {
    /// The context
    #[arg(value_name = "ID")]
    context_id: String,
    /// What was decided
    #[arg(value_name = "DECISION")]
    decision: String,
    /// Why
    #[arg(long, value_name = "TEXT")]
    reason: Option<String>,
    /// Who decided [default: this pane's agent]
    #[arg(long = "agent", alias = "by", value_name = "AGENT")]
    by: Option<String>,
    /// Act for --agent although this pane is another agent (recorded)
    #[arg(long, requires = "by")]
    as_other: bool,
    /// Print the decision as JSON
    #[arg(long)]
    json: bool,
}

/// Adds the decision; exit 4 when the context does not exist.
pub(super) fn run(ctx: &Context, args: &AddDecisionArgs) -> Result<ExitCode> {
    let decision = text("the decision", &args.decision)?;
    let reason = optional_text("--reason", args.reason.as_deref())?;
    let by = acting_agent(
        ctx,
        args.by.as_deref(),
        args.as_other,
        "--agent",
        "context add-decision",
    )?;
    let mut notes = Vec::new();
    let added = ContextStore::new(ctx.backend()?.a2a.as_ref()).add_decision(
        args.context_id.trim(),
        &decision,
        &by,
        &reason,
        &mut notes,
    );
    warn_notes(ctx, &notes);
    let (c, d) = added?;
    if args.json {
        ctx.out.json(&d)?;
        return Ok(ExitCode::Success);
    }
    ctx.out.print(&format!(
        "Decision added to context: {}\n  Decision: {}\n  By: {}\n",
        shown(&c.context_id),
        shown(&d.decision),
        d.by
    ))?;
    Ok(ExitCode::Success)
}
