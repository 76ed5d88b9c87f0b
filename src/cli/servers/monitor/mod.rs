//! `swarm monitor` (alias `start-monitoring`): the live view of the swarm,
//! or, with `--plain` or when stdout is not a terminal, a stream of one
//! line per message and per status change.

use clap::Args;

use swarm_core::{ExitCode, Result};

use crate::cli::context::Context;

#[cfg(feature = "monitor")]
mod live;

/// Arguments of `swarm monitor`.
#[derive(Debug, Args)]
pub(crate) struct MonitorArgs {
    /// Only messages of this type (case-insensitive: blocked, review-request, ...); repeatable
    #[arg(long, value_name = "TYPE")]
    filter_type: Vec<String>,
    /// Only messages sent by or to this agent; repeatable
    #[arg(long, value_name = "ID")]
    filter_agent: Vec<String>,
    /// Only messages logged within this long before the start: 30s, 10m, 2h, 1d, 1h30m
    #[arg(long, value_name = "DURATION")]
    since: Option<String>,
    /// Stream one plain line per message and status change (the default when stdout is not a terminal)
    #[arg(long)]
    plain: bool,
    /// How many of the latest messages to keep in the feed (and print first with --plain)
    #[arg(short = 'n', long, value_name = "N", default_value_t = 100,
          value_parser = clap::value_parser!(u32).range(1..=10_000))]
    lines: u32,
    /// Sender id of the messages written in the monitor with `m` [default:
    /// messaging.operator, "operator"]
    #[arg(long, value_name = "ID")]
    from: Option<String>,
    /// Accepted for the Python tool's `start-monitoring --no-tmux`: swarm
    /// always runs in the current terminal (`swarm launch --monitor` adds
    /// a monitor pane)
    #[arg(long, hide = true)]
    no_tmux: bool,
}

/// Runs `swarm monitor`, or says that this build has no monitor.
pub(crate) fn run(ctx: &Context, args: &MonitorArgs) -> Result<ExitCode> {
    #[cfg(feature = "monitor")]
    {
        live::run(ctx, args)
    }
    #[cfg(not(feature = "monitor"))]
    {
        let _ = (ctx, args);
        Err(crate::cli::features::missing("monitor", "monitor"))
    }
}
