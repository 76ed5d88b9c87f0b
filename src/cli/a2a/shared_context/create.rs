//! `swarm context create ID SUMMARY [--creator ID] [--related CSV]
//! [--force]`.

use clap::Args;

use swarm_core::a2a::{ContextStore, SharedContext};
use swarm_core::{ExitCode, Result};

use crate::cli::a2a::a2a_view::{acting_agent, context_id, csv, shown, text, warn_notes};
use crate::cli::context::Context;

/// Arguments of `swarm context create`.
#[derive(Debug, Args)]
pub(super) struct CreateArgs {
    /// The context's id, also its name (e.g. `feature-auth`)
    #[arg(value_name = "ID")]
    context_id: String,
    /// What it is about
    #[arg(value_name = "SUMMARY")]
    summary: String,
    /// Who creates it [default: this pane's agent]
    #[arg(long = "agent", alias = "creator", value_name = "AGENT")]
    creator: Option<String>,
    /// Act for --agent although this pane is another agent (recorded)
    #[arg(long, requires = "creator")]
    as_other: bool,
    /// Related context ids, comma-separated
    #[arg(long, value_name = "CSV")]
    related: Option<String>,
    /// Replace a context with the same id (its decisions are lost)
    #[arg(long, short)]
    force: bool,
    /// Print the context as JSON
    #[arg(long)]
    json: bool,
}

/// Creates the context; an existing one is replaced only with `--force`.
pub(super) fn run(ctx: &Context, args: &CreateArgs) -> Result<ExitCode> {
    let id = context_id("the context id", &args.context_id)?;
    let summary = text("the summary", &args.summary)?;
    let related = args
        .related
        .as_deref()
        .map(csv)
        .unwrap_or_default()
        .iter()
        .map(|r| context_id("--related", r))
        .collect::<Result<Vec<_>>>()?;
    let creator = acting_agent(
        ctx,
        args.creator.as_deref(),
        args.as_other,
        "--agent",
        "context create",
    )?;
    let mut notes = Vec::new();
    let created = ContextStore::new(ctx.backend()?.a2a.as_ref()).create(
        SharedContext::new(&id, &summary, &creator, related),
        args.force,
        &mut notes,
    );
    warn_notes(ctx, &notes);
    let c = created?;
    if args.json {
        ctx.out.json(&c)?;
        return Ok(ExitCode::Success);
    }
    ctx.out.print(&format!(
        "Context created: {}\n  Summary: {}\n",
        c.context_id,
        shown(&c.summary)
    ))?;
    Ok(ExitCode::Success)
}
