//! `swarm coord init [--force]`.

use clap::Args;

use swarm_core::a2a::coordination;
use swarm_core::support::time;
use swarm_core::{ExitCode, Result};

use crate::cli::context::Context;

/// Arguments of `swarm coord init`.
#[derive(Debug, Args)]
pub(super) struct InitArgs {
    /// Replace an existing COORDINATION.md
    #[arg(short, long)]
    force: bool,
}

/// Writes the template, titled with the project's name and dated today
/// (UTC).
pub(super) fn run(ctx: &Context, args: &InitArgs) -> Result<ExitCode> {
    let date = time::now().format("%Y-%m-%d").to_string();
    let path = coordination::init(
        ctx.backend()?.a2a.as_ref(),
        &ctx.project_name(),
        &date,
        args.force,
    )?;
    ctx.out.print(&format!(
        "{} {}\n\nAgents add to it with: swarm coord add SECTION TEXT\n",
        ctx.out.good("Created"),
        path
    ))?;
    Ok(ExitCode::Success)
}
