//! `swarm down`: stop a session opened by `swarm launch`.

use clap::Args;

use crate::agents::launch;
use crate::error::Result;
use crate::support::exit_code::ExitCode;

use crate::cli::context::Context;

/// Arguments of `swarm down`.
#[derive(Debug, Args)]
pub(crate) struct DownArgs {
    /// Session to stop [default: swarm-<project directory name>]
    #[arg(long, value_name = "NAME")]
    session: Option<String>,
}

/// Kills the session and drops its agents from the registry.
pub(crate) fn run(ctx: &Context, args: &DownArgs) -> Result<ExitCode> {
    let session = match &args.session {
        Some(name) => launch::session_name(name)?,
        None => launch::default_session_name(ctx.paths.root()),
    };
    let matcher = ctx.matcher()?;
    let opts = ctx.discover_options(None)?;
    let found = launch::down(
        &ctx.tmux,
        ctx.backend()?.registry.as_ref(),
        &ctx.paths,
        &matcher,
        &opts,
        &session,
    )?;
    for w in &found.warnings {
        ctx.out.warn(w);
    }
    ctx.out.print(&format!(
        "Stopped tmux session {session}; {} agent{} left the registry, {} remain.\n",
        found.dropped.len(),
        if found.dropped.len() == 1 { "" } else { "s" },
        found.registry.agents.len()
    ))?;
    Ok(ExitCode::Success)
}
