//! `swarm cards`: agent cards, what each agent says it can do
//! (`AGENT_CARDS.json`, the Python tool's `cards` group).

mod get;
mod list;
mod register;
mod update;

use clap::{Args, Subcommand};

use swarm_core::{ExitCode, Result};

use crate::cli::context::Context;

/// Arguments of `swarm cards`.
#[derive(Debug, Args)]
pub(crate) struct CardsArgs {
    #[command(subcommand)]
    command: CardsCommand,
}

#[derive(Debug, Subcommand)]
enum CardsCommand {
    /// List the agent cards
    List(list::ListArgs),
    /// Show one agent's card
    Get(get::GetArgs),
    /// Create this agent's card, or change the fields given
    Register(register::RegisterArgs),
    /// Change an existing card
    Update(update::UpdateArgs),
}

impl CardsArgs {
    /// True when the subcommand only reads, so that a config problem is
    /// only warned about (see `Command::properties`).
    pub(crate) fn only_reads(&self) -> bool {
        matches!(self.command, CardsCommand::List(_) | CardsCommand::Get(_))
    }
}

/// Runs the `cards` subcommand.
pub(crate) fn run(ctx: &Context, args: &CardsArgs) -> Result<ExitCode> {
    match &args.command {
        CardsCommand::List(a) => list::run(ctx, a),
        CardsCommand::Get(a) => get::run(ctx, a),
        CardsCommand::Register(a) => register::run(ctx, a),
        CardsCommand::Update(a) => update::run(ctx, a),
    }
}
