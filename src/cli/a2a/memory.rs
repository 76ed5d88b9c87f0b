//! `swarm memory`: an agent's memory of tasks, patterns and other agents
//! (`.agent_memory/<id>.json`, the Python tool's `memory` group).

mod clear;
mod get;

use clap::{Args, Subcommand};

use swarm_core::{ExitCode, Result};

use crate::cli::context::Context;

/// Arguments of `swarm memory`.
#[derive(Debug, Args)]
pub(crate) struct MemoryArgs {
    #[command(subcommand)]
    command: MemoryCommand,
}

#[derive(Debug, Subcommand)]
enum MemoryCommand {
    /// Show what an agent remembers (creates nothing)
    Get(get::GetArgs),
    /// Forget everything an agent remembers
    Clear(clear::ClearArgs),
}

impl MemoryArgs {
    /// True when the subcommand only reads, so that a config problem is
    /// only warned about (see `Command::properties`).
    pub(crate) fn only_reads(&self) -> bool {
        matches!(self.command, MemoryCommand::Get(_))
    }
}

/// Runs the `memory` subcommand.
pub(crate) fn run(ctx: &Context, args: &MemoryArgs) -> Result<ExitCode> {
    match &args.command {
        MemoryCommand::Get(a) => get::run(ctx, a),
        MemoryCommand::Clear(a) => clear::run(ctx, a),
    }
}
