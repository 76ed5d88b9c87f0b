//! `swarm cards get AGENT_ID [--json]`.

use clap::Args;

use swarm_core::a2a::{A2aError, CardRegistry};
use swarm_core::{ExitCode, Result};

use crate::cli::a2a::a2a_view::{joined, percent, shown, warn_notes};
use crate::cli::context::Context;

/// Arguments of `swarm cards get`.
#[derive(Debug, Args)]
pub(super) struct GetArgs {
    /// The agent whose card to show
    #[arg(value_name = "AGENT_ID")]
    agent_id: String,
    /// Print the card as JSON
    #[arg(long)]
    json: bool,
}

/// Shows one card; exit 4 when there is none.
pub(super) fn run(ctx: &Context, args: &GetArgs) -> Result<ExitCode> {
    let mut notes = Vec::new();
    let card = CardRegistry::new(ctx.backend()?.a2a.as_ref()).get(args.agent_id.trim(), &mut notes);
    warn_notes(ctx, &notes);
    let card = card?.ok_or_else(|| A2aError::NoCard(shown(&args.agent_id)))?;
    if args.json {
        ctx.out.json(&card)?;
        return Ok(ExitCode::Success);
    }
    let mut s = format!("=== Agent Card: {} ===\n", shown(&card.agent_id));
    s.push_str(&format!("  Name: {}\n", shown(&card.name)));
    s.push_str(&format!("  Description: {}\n", shown(&card.description)));
    s.push_str(&format!("  Availability: {}\n", card.availability));
    s.push_str(&format!("  Skills: {}\n", joined(&card.skills)));
    s.push_str(&format!("  Tools: {}\n", joined(&card.tools)));
    if !card.success_rates.is_empty() {
        s.push_str("  Success Rates:\n");
        let mut rates: Vec<(&str, &f64)> = card
            .success_rates
            .iter()
            .map(|(k, v)| (k.as_str(), v))
            .collect();
        // Stable: equal rates stay in file order, as Python's sort keeps them.
        rates.sort_by(|a, b| b.1.total_cmp(a.1));
        for (skill, rate) in rates {
            s.push_str(&format!("    {}: {}\n", shown(skill), percent(*rate)));
        }
    }
    ctx.out.print(&s)?;
    Ok(ExitCode::Success)
}
