//! `swarm memory clear [--agent-id ID]`: what the original meant to do
//! (it always failed).

use clap::Args;

use swarm_core::a2a::{Cleared, MemoryStore};
use swarm_core::{ExitCode, Result};

use crate::cli::a2a::a2a_view::acting_agent;
use crate::cli::context::Context;

/// Arguments of `swarm memory clear`.
#[derive(Debug, Args)]
pub(super) struct ClearArgs {
    /// Whose memory [default: this pane's agent]
    #[arg(long = "agent", alias = "agent-id", value_name = "AGENT")]
    agent: Option<String>,
    /// Act for --agent although this pane is another agent (recorded)
    #[arg(long, requires = "agent")]
    as_other: bool,
}

/// Deletes the agent's memory file (a damaged one is moved aside).
pub(super) fn run(ctx: &Context, args: &ClearArgs) -> Result<ExitCode> {
    let agent = acting_agent(
        ctx,
        args.agent.as_deref(),
        args.as_other,
        "--agent",
        "memory clear",
    )?;
    let text = match MemoryStore::new(ctx.backend()?.a2a.as_ref()).clear(&agent)? {
        Cleared::Removed => format!("Memory cleared for agent: {agent}\n"),
        Cleared::Nothing => format!("No memory stored for agent: {agent} (nothing to clear)\n"),
        Cleared::MovedAside(aside) => format!(
            "Memory cleared for agent: {agent}\n  (the file was damaged: moved it to {})\n",
            aside
        ),
    };
    ctx.out.print(&text)?;
    Ok(ExitCode::Success)
}
