//! `swarm cards update [--agent-id ID] [--name N] [--description D]
//! [--skills CSV] [--tools CSV] [--availability active|busy|offline]`.

use clap::{ArgGroup, Args};

use swarm_core::a2a::{Availability, CardChanges, CardRegistry};
use swarm_core::{Error, ExitCode, Result};

use crate::cli::a2a::a2a_view::{
    acting_agent, availability_parser, csv, optional_text, warn_notes,
};
use crate::cli::context::Context;

/// Arguments of `swarm cards update`.
#[derive(Debug, Args)]
#[command(group(
    ArgGroup::new("changes")
        .required(true)
        .multiple(true)
        .args(["name", "description", "skills", "tools", "availability"])
))]
pub(super) struct UpdateArgs {
    /// The agent [default: this pane's agent]
    #[arg(long = "agent", alias = "agent-id", value_name = "AGENT")]
    agent: Option<String>,
    /// Act for --agent although this pane is another agent (recorded)
    #[arg(long, requires = "agent")]
    as_other: bool,
    /// A new name
    #[arg(long, value_name = "NAME")]
    name: Option<String>,
    /// A new description
    #[arg(long, value_name = "TEXT")]
    description: Option<String>,
    /// New skills, comma-separated; replaces the list
    #[arg(long, value_name = "CSV")]
    skills: Option<String>,
    /// New tools, comma-separated; replaces the list
    #[arg(long, value_name = "CSV")]
    tools: Option<String>,
    /// Whether the agent takes new work (only active agents get tasks)
    #[arg(long, value_name = "STATE", value_parser = availability_parser())]
    availability: Option<Availability>,
    /// Print the card as JSON
    #[arg(long)]
    json: bool,
}

/// Changes the fields given on an existing card; exit 4 when there is
/// none.
pub(super) fn run(ctx: &Context, args: &UpdateArgs) -> Result<ExitCode> {
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
        availability: args.availability,
    };
    if changes.is_empty() {
        return Err(Error::Usage(
            "no updates specified: give --name, --description, --skills, --tools or --availability"
                .into(),
        ));
    }
    let agent = acting_agent(
        ctx,
        args.agent.as_deref(),
        args.as_other,
        "--agent",
        "cards update",
    )?;
    let mut notes = Vec::new();
    let result = CardRegistry::new(ctx.backend()?.a2a.as_ref()).update(&agent, changes, &mut notes);
    warn_notes(ctx, &notes);
    let card = result?;
    if args.json {
        ctx.out.json(&card)?;
        return Ok(ExitCode::Success);
    }
    ctx.out
        .print(&format!("Agent card updated: {}\n", card.agent_id))?;
    Ok(ExitCode::Success)
}
