//! `swarm watch`: the project's watcher in the foreground (see
//! `crates/core/src/watcher/`): every round (about a second) it types in held
//! messages whose pane is safe again, sends ACK retries and escalations as
//! they fall due, raises attention events (a dialog, a finished turn, an
//! exit, a stuck screen) into the activity feed and the configured
//! notifications, and keeps swarm's notice in the tmux status line; every
//! interval it rediscovers agents, removes stale locks and tells agents
//! in worktrees of their own about files another agent changed too. On a store
//! shared by several hosts it types in what other hosts hand to this one
//! as it comes. Stops cleanly on Ctrl-C or SIGTERM. `--background` is how
//! commands start the same loop behind the scenes.

use std::time::Duration;

use chrono::Local;
use clap::Args;

use swarm_core::backend;
use swarm_core::error::{Error, Result};
use swarm_core::notify::NotifySettings;
use swarm_core::support::exit_code::ExitCode;
use swarm_core::support::sanitize;
use swarm_core::support::sys;
use swarm_core::watcher::{Ended, Said, WatchSettings, Watcher};

use crate::cli::context::Context;

/// Arguments of `swarm watch`.
#[derive(Debug, Args)]
pub(crate) struct WatchArgs {
    /// Seconds between agent discoveries
    #[arg(long, value_name = "SECONDS", default_value_t = 30,
          value_parser = clap::value_parser!(u64).range(1..=3600))]
    interval: u64,
    /// Run as the project's background watcher: started by commands when
    /// none runs, it writes to .swarm/watcher.log and ends by itself once
    /// the swarm's panes are gone
    #[arg(long, hide = true)]
    background: bool,
}

/// Runs until stopped.
pub(crate) fn run(ctx: &Context, args: &WatchArgs) -> Result<ExitCode> {
    let stop = sys::stop_signals().map_err(|source| Error::Io {
        what: "install the Ctrl-C handler".into(),
        source,
    })?;
    // One background watcher per project and host: a second one started
    // at the same moment leaves at once.
    let _only = if args.background {
        match backend::claim_background(&ctx.paths)? {
            Some(claim) => Some(claim),
            None => return Ok(ExitCode::Success),
        }
    } else {
        None
    };
    let _present = backend::announce(&ctx.paths)?;
    let op = ctx.operator()?;
    let settings = WatchSettings {
        discovery_every: Duration::from_secs(args.interval),
        discover: ctx.discover_options(None)?,
        notify: NotifySettings::from_config(ctx.config()?),
        background: args.background,
        link: None,
        overlaps_from: {
            let config = ctx.config()?;
            config
                .launch
                .tell_overlaps
                .then(|| config.messaging.operator.clone())
        },
    };
    let (mut w, warnings) = Watcher::new(op, settings);
    for warning in &warnings {
        ctx.out.warn(warning);
    }
    ctx.out.print(&format!(
        "Watching {} (held messages when their pane is safe, ACK retries as they fall due, attention events, discovery every {}s; {})\n",
        ctx.paths.root().display(),
        args.interval,
        if args.background {
            "in the background until the swarm's panes are gone"
        } else {
            "Ctrl+C to stop"
        }
    ))?;
    let mut failed: Option<Error> = None;
    let ended = w.run(&stop, &mut |said| match said {
        Said::Did(line) => {
            if failed.is_none()
                && let Err(e) = log(ctx, &line)
            {
                failed = Some(e);
            }
        }
        Said::Warning(text) => ctx.out.warn(&text),
    });
    if let Some(e) = failed {
        return Err(e);
    }
    ctx.out.print(match ended {
        Ended::Stopped => "Stopped watching.\n",
        Ended::NoAgents => "No agent pane of this swarm is left on this host; the watcher ends.\n",
    })?;
    Ok(ExitCode::Success)
}

fn log(ctx: &Context, line: &str) -> Result<()> {
    ctx.out.print(&format!(
        "[{}] {}\n",
        Local::now().format("%H:%M:%S"),
        sanitize::one_line(line)
    ))
}
