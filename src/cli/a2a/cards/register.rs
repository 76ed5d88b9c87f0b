//! `swarm cards register [--agent-id ID] [--name N] [--description D]
//! [--skills CSV] [--tools CSV]`.

use clap::Args;

use swarm_core::a2a::{CardChanges, CardRegistry};
use swarm_core::{ExitCode, Result};

use crate::cli::a2a::a2a_view::{acting_agent, csv, optional_text, shown, warn_notes};
use crate::cli::context::Context;

/// Arguments of `swarm cards register`.
#[derive(Debug, Args)]
pub(super) struct RegisterArgs {
    /// The agent [default: this pane's agent]
    #[arg(long = "agent", alias = "agent-id", value_name = "AGENT")]
    agent: Option<String>,
    /// Act for --agent although this pane is another agent (recorded)
    #[arg(long, requires = "agent")]
    as_other: bool,
    /// A name for people [default for a new card: the agent id]
    #[arg(long, value_name = "NAME")]
    name: Option<String>,
    /// What the agent is for
    #[arg(long, value_name = "TEXT")]
    description: Option<String>,
    /// Skills, comma-separated (`python,api`); replaces the card's list
    #[arg(long, value_name = "CSV")]
    skills: Option<String>,
    /// Tools, comma-separated (`Read,Edit`); replaces the card's list
    #[arg(long, value_name = "CSV")]
    tools: Option<String>,
    /// Print the card as JSON
    #[arg(long)]
    json: bool,
}

/// Creates or changes the card. Fields not given keep their value (the
/// original emptied skills and tools, and renamed the card to its id,
/// when they were left out).
pub(super) fn run(ctx: &Context, args: &RegisterArgs) -> Result<ExitCode> {
    let changes = CardChanges {
        name: args
            .name
            .as_deref()
            .map(|n| optional_text("the name", Some(n)))
            .transpose()?
            .filter(|n| !n.is_empty()),
        description: args
            .description
            .as_deref()
            .map(|d| optional_text("the description", Some(d)))
            .transpose()?,
        skills: args.skills.as_deref().map(csv),
        tools: args.tools.as_deref().map(csv),
        availability: None,
    };
    let agent = acting_agent(
        ctx,
        args.agent.as_deref(),
        args.as_other,
        "--agent",
        "cards register",
    )?;
    let mut notes = Vec::new();
    let result =
        CardRegistry::new(ctx.backend()?.a2a.as_ref()).register(&agent, changes, &mut notes);
    warn_notes(ctx, &notes);
    let (card, _) = result?;
    if args.json {
        ctx.out.json(&card)?;
        return Ok(ExitCode::Success);
    }
    let list = |items: &[String]| match items.is_empty() {
        true => "none".to_owned(),
        false => items
            .iter()
            .map(|s| shown(s))
            .collect::<Vec<_>>()
            .join(", "),
    };
    ctx.out.print(&format!(
        "Agent card registered: {}\n  Name: {}\n  Skills: {}\n  Tools: {}\n",
        card.agent_id,
        shown(&card.name),
        list(&card.skills),
        list(&card.tools)
    ))?;
    Ok(ExitCode::Success)
}
