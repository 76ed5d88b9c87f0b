//! `swarm learning`: what has been learned about each agent's performance
//! (`LEARNING_DATA.json`, the Python tool's `learning` group).

mod stats;

use clap::{Args, Subcommand};

use swarm_core::{ExitCode, Result};

use crate::cli::context::Context;

/// Arguments of `swarm learning`.
#[derive(Debug, Args)]
pub(crate) struct LearningArgs {
    #[command(subcommand)]
    command: LearningCommand,
}

#[derive(Debug, Subcommand)]
enum LearningCommand {
    /// Show an agent's task counts, response time and skill success rates
    Stats(stats::StatsArgs),
}

/// Runs the `learning` subcommand.
pub(crate) fn run(ctx: &Context, args: &LearningArgs) -> Result<ExitCode> {
    match &args.command {
        LearningCommand::Stats(a) => stats::run(ctx, a),
    }
}
