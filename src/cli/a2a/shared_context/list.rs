//! `swarm context list [--json]`.

use clap::Args;

use swarm_core::a2a::ContextStore;
use swarm_core::{ExitCode, Result};

use crate::cli::a2a::a2a_view::{head, shown, warn_notes};
use crate::cli::context::Context;

/// Arguments of `swarm context list`.
#[derive(Debug, Args)]
pub(super) struct ListArgs {
    /// Print the contexts as a JSON array
    #[arg(long)]
    json: bool,
}

/// Lists the contexts that are not archived, most recently changed first.
pub(super) fn run(ctx: &Context, args: &ListArgs) -> Result<ExitCode> {
    let mut notes = Vec::new();
    let contexts = ContextStore::new(ctx.backend()?.a2a.as_ref()).list(&mut notes);
    warn_notes(ctx, &notes);
    let contexts = contexts?;
    if args.json {
        ctx.out.json(&contexts)?;
        return Ok(ExitCode::Success);
    }
    if contexts.is_empty() {
        ctx.out.print("No contexts found.\n")?;
        return Ok(ExitCode::Success);
    }
    let mut s = format!("=== Shared Contexts ({}) ===\n", contexts.len());
    for c in &contexts {
        s.push_str(&format!(
            "  {:<20} | {} | {} files, {} decisions\n",
            shown(&c.context_id),
            head(&c.summary, 40),
            c.files_touched.len(),
            c.decisions.len()
        ));
    }
    ctx.out.print(&s)?;
    Ok(ExitCode::Success)
}
