//! `swarm cards list [--json]`.

use clap::Args;

use swarm_core::a2a::{Availability, CardRegistry};
use swarm_core::{ExitCode, Result};

use crate::cli::a2a::a2a_view::{shown, warn_notes};
use crate::cli::context::Context;

/// Arguments of `swarm cards list`.
#[derive(Debug, Args)]
pub(super) struct ListArgs {
    /// Print the cards as a JSON array
    #[arg(long)]
    json: bool,
}

/// Lists the cards in file order.
pub(super) fn run(ctx: &Context, args: &ListArgs) -> Result<ExitCode> {
    let mut notes = Vec::new();
    let cards = CardRegistry::new(ctx.backend()?.a2a.as_ref()).list(&mut notes);
    warn_notes(ctx, &notes);
    let cards = cards?;
    if args.json {
        ctx.out.json(&cards)?;
        return Ok(ExitCode::Success);
    }
    if cards.is_empty() {
        ctx.out.print("No agent cards registered.\n")?;
        return Ok(ExitCode::Success);
    }
    let mut s = format!("=== Agent Cards ({}) ===\n", cards.len());
    for card in &cards {
        let symbol = match card.availability {
            Availability::Active => "✓",
            Availability::Busy => "⚠",
            Availability::Offline => "✗",
        };
        let mut skills = card
            .skills
            .iter()
            .take(3)
            .map(|s| shown(s))
            .collect::<Vec<_>>()
            .join(", ");
        if card.skills.len() > 3 {
            skills.push_str(&format!(" (+{} more)", card.skills.len() - 3));
        }
        s.push_str(&format!(
            "  {symbol} {:<12} | {:<20} | Skills: {skills}\n",
            shown(&card.agent_id),
            shown(&card.name)
        ));
    }
    ctx.out.print(&s)?;
    Ok(ExitCode::Success)
}
