//! `swarm tasks`: tasks with a status workflow and a history
//! (`TASKS.json`, the Python tool's `tasks` group).

mod claim;
mod create;
mod get;
mod list;
mod update;

use clap::{Args, Subcommand};

use swarm_core::{ExitCode, Result};

use crate::cli::context::Context;

/// Arguments of `swarm tasks`.
#[derive(Debug, Args)]
pub(crate) struct TasksArgs {
    #[command(subcommand)]
    command: TasksCommand,
}

#[derive(Debug, Subcommand)]
enum TasksCommand {
    /// List open tasks, most urgent first
    List(list::ListArgs),
    /// Show one task
    Get(get::GetArgs),
    /// Create a task
    Create(create::CreateArgs),
    /// Change a task's status or assignee
    Update(update::UpdateArgs),
    /// Take a pending task for this agent (one claimant wins)
    Claim(claim::ClaimArgs),
}

impl TasksArgs {
    /// True when the subcommand only reads, so that a config problem is
    /// only warned about (see `Command::properties`).
    pub(crate) fn only_reads(&self) -> bool {
        matches!(self.command, TasksCommand::List(_) | TasksCommand::Get(_))
    }
}

/// Runs the `tasks` subcommand.
pub(crate) fn run(ctx: &Context, args: &TasksArgs) -> Result<ExitCode> {
    match &args.command {
        TasksCommand::List(a) => list::run(ctx, a),
        TasksCommand::Get(a) => get::run(ctx, a),
        TasksCommand::Create(a) => create::run(ctx, a),
        TasksCommand::Update(a) => update::run(ctx, a),
        TasksCommand::Claim(a) => claim::run(ctx, a),
    }
}
