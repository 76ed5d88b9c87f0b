//! `swarm coord`: the shared `COORDINATION.md` in the project root.

mod add;
mod init;
mod show;

use clap::{Args, Subcommand};

use swarm_core::{ExitCode, Result};

use crate::cli::context::Context;

/// Arguments of `swarm coord`.
#[derive(Debug, Args)]
pub(crate) struct CoordArgs {
    #[command(subcommand)]
    command: CoordCommand,
}

#[derive(Debug, Subcommand)]
enum CoordCommand {
    /// Print COORDINATION.md, or one section of it
    Show(show::ShowArgs),
    /// Append a line to a section (safe when several agents add at once)
    Add(add::AddArgs),
    /// Write COORDINATION.md, the agents' shared plan, from the template
    /// (the one file `swarm init` leaves to you)
    Init(init::InitArgs),
}

impl CoordArgs {
    /// True when the subcommand only reads, so that a config problem is
    /// only warned about (see `Command::properties`).
    pub(crate) fn only_reads(&self) -> bool {
        matches!(self.command, CoordCommand::Show(_))
    }
}

/// Runs the `coord` subcommand.
pub(crate) fn run(ctx: &Context, args: &CoordArgs) -> Result<ExitCode> {
    match &args.command {
        CoordCommand::Show(a) => show::run(ctx, a),
        CoordCommand::Add(a) => add::run(ctx, a),
        CoordCommand::Init(a) => init::run(ctx, a),
    }
}
