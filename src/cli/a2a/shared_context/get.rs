//! `swarm context get ID [--json]`.

use clap::Args;

use swarm_core::a2a::{A2aError, ContextStore};
use swarm_core::{ExitCode, Result};

use crate::cli::a2a::a2a_view::{joined, shown, warn_notes};
use crate::cli::context::Context;

/// Arguments of `swarm context get`.
#[derive(Debug, Args)]
pub(super) struct GetArgs {
    /// The context
    #[arg(value_name = "ID")]
    context_id: String,
    /// Print the context as JSON
    #[arg(long)]
    json: bool,
}

/// Shows one context; exit 4 when there is none.
pub(super) fn run(ctx: &Context, args: &GetArgs) -> Result<ExitCode> {
    let mut notes = Vec::new();
    let found =
        ContextStore::new(ctx.backend()?.a2a.as_ref()).get(args.context_id.trim(), &mut notes);
    warn_notes(ctx, &notes);
    let c = found?.ok_or_else(|| A2aError::NoContext(shown(&args.context_id)))?;
    if args.json {
        ctx.out.json(&c)?;
        return Ok(ExitCode::Success);
    }
    let mut s = format!("=== Context: {} ===\n", shown(&c.context_id));
    s.push_str(&format!("  Summary: {}\n", shown(&c.summary)));
    if !c.files_touched.is_empty() {
        s.push_str(&format!("  Files: {}\n", joined(&c.files_touched)));
    }
    if !c.related_contexts.is_empty() {
        s.push_str(&format!("  Related: {}\n", joined(&c.related_contexts)));
    }
    if !c.decisions.is_empty() {
        s.push_str("  Decisions:\n");
        for d in &c.decisions {
            s.push_str(&format!(
                "    - {} (by {})\n",
                shown(&d.decision),
                shown(&d.by)
            ));
            if !d.reason.is_empty() {
                s.push_str(&format!("      Reason: {}\n", shown(&d.reason)));
            }
        }
    }
    ctx.out.print(&s)?;
    Ok(ExitCode::Success)
}
