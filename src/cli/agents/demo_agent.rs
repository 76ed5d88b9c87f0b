//! `swarm demo-agent` (hidden): the stand-in agent.

use std::path::PathBuf;

use clap::Args;

use crate::agents::demo_agent;
use crate::error::{Error, Result};
use crate::support::exit_code::ExitCode;

/// Arguments of `swarm demo-agent`.
#[derive(Debug, Args)]
pub(crate) struct DemoAgentArgs {
    /// Append each submission to this file as a JSON line
    #[arg(long, value_name = "FILE")]
    record: Option<PathBuf>,
    /// Name shown in the banner [default: the pane id, $TMUX_PANE]
    #[arg(long)]
    name: Option<String>,
    /// Ignore the first N Enter presses after each paste, like an agent
    /// that drops an Enter arriving too soon after a paste (for tests)
    #[arg(long, value_name = "N", default_value_t = 0, hide = true)]
    drop_enters: u32,
}

/// Runs the demo agent on this terminal until it is told to quit.
pub(crate) fn run(args: &DemoAgentArgs) -> Result<ExitCode> {
    let name = args
        .name
        .clone()
        .or_else(|| std::env::var("TMUX_PANE").ok())
        .unwrap_or_else(|| "demo".into());
    let name = crate::support::sanitize::one_line(&name);
    demo_agent::run(args.record.as_deref(), &name, args.drop_enters).map_err(|source| {
        Error::Io {
            what: "run the demo agent (it needs a terminal)".into(),
            source,
        }
    })?;
    Ok(ExitCode::Success)
}
