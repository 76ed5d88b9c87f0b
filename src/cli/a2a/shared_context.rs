//! `swarm context`: shared contexts and the decisions taken in them
//! (`CONTEXTS.json`, the Python tool's `context` group).

mod add_decision;
mod create;
mod get;
mod list;

use clap::{Args, Subcommand};

use swarm_core::{ExitCode, Result};

use crate::cli::context::Context;

/// Arguments of `swarm context`.
#[derive(Debug, Args)]
pub(crate) struct SharedContextArgs {
    #[command(subcommand)]
    command: SharedContextCommand,
}

#[derive(Debug, Subcommand)]
enum SharedContextCommand {
    /// List the contexts that are not archived, most recent first
    List(list::ListArgs),
    /// Show one context with its decisions
    Get(get::GetArgs),
    /// Create a context (an existing one only with --force)
    Create(create::CreateArgs),
    /// Record a decision in a context
    AddDecision(add_decision::AddDecisionArgs),
}

impl SharedContextArgs {
    /// True when the subcommand only reads, so that a config problem is
    /// only warned about (see `Command::properties`).
    pub(crate) fn only_reads(&self) -> bool {
        matches!(
            self.command,
            SharedContextCommand::List(_) | SharedContextCommand::Get(_)
        )
    }
}

/// Runs the `context` subcommand.
pub(crate) fn run(ctx: &Context, args: &SharedContextArgs) -> Result<ExitCode> {
    match &args.command {
        SharedContextCommand::List(a) => list::run(ctx, a),
        SharedContextCommand::Get(a) => get::run(ctx, a),
        SharedContextCommand::Create(a) => create::run(ctx, a),
        SharedContextCommand::AddDecision(a) => add_decision::run(ctx, a),
    }
}
