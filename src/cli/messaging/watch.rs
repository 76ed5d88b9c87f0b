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

use std::sync::Arc;
use std::time::Duration;

use chrono::Local;
use clap::Args;

use swarm_core::config;
use swarm_core::support::sys;
use swarm_core::support::{sanitize, time};
use swarm_core::watcher::service::{self, Fingerprint, WatcherRecord};
use swarm_core::watcher::{Carried, Ended, Said, WatchSettings, Watcher};
use swarm_core::{
    ConfigStamp, Error, ExitCode, NotifySettings, Operator, Result, Timestamp, announce_watcher,
    claim_background,
};

use crate::cli::context::Context;

/// Arguments of `swarm watcher run` (and `swarm watch`).
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

/// Runs until stopped (or, in the background, until the swarm's panes
/// are gone); reads the config again whenever one of its files changes.
pub(crate) fn run(ctx: &Context, args: &WatchArgs) -> Result<ExitCode> {
    let stop = sys::stop_signals().map_err(|source| Error::Io {
        what: "install the Ctrl-C handler".into(),
        source,
    })?;
    // One watcher per project and host: a second one started in the
    // background leaves at once; one started by a person is told who runs.
    let Some(_only) = claim_background(&ctx.paths)? else {
        if args.background {
            return Ok(ExitCode::Success);
        }
        return Err(already_runs(ctx)?);
    };
    let _present = announce_watcher(&ctx.paths)?;
    let backend = Arc::clone(ctx.shared_backend()?);
    let since = Timestamp::now().utc_iso();
    let env = config::process_env();
    let mut config = ctx.config()?.clone();
    let mut stamp = ConfigStamp::now(ctx.paths.root(), &env);
    let mut carried = Carried::default();
    let mut first = true;
    loop {
        let op = if first {
            None
        } else {
            Some(Operator::new(
                ctx.tmux.server().clone(),
                ctx.paths.clone(),
                Arc::clone(&backend),
                &config,
            )?)
        };
        let op = match &op {
            Some(op) => op,
            None => ctx.op()?,
        };
        let notify = NotifySettings::from_config(&config);
        let mut record = WatcherRecord {
            version: 0,
            pid: std::process::id(),
            host: op.backend.host().to_owned(),
            since: since.clone(),
            settings_read: Timestamp::now().utc_iso(),
            fingerprint: String::new(),
            settings: Default::default(),
            channels: service::channels(&notify),
            background: args.background,
            last_error: None,
        };
        let fp = Fingerprint::of(&config);
        record.fingerprint = fp.whole;
        record.settings = fp.keys;
        let settings = WatchSettings {
            discovery_every: Duration::from_secs(args.interval),
            discover: ctx.discover_options(None)?,
            notify,
            background: args.background,
            link: None,
            overlaps_from: config
                .launch
                .tell_overlaps
                .then(|| config.messaging.operator.clone()),
            config: Some(stamp.clone()),
        };
        let (mut w, warnings) = Watcher::new(op, settings);
        w.resume_from(std::mem::take(&mut carried));
        for warning in &warnings {
            ctx.out.warn(warning);
        }
        if let Err(e) = service::write_record(&ctx.paths, &record) {
            ctx.out
                .warn(&format!("could not write the watcher's record: {e}"));
        }
        if first {
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
        } else {
            log(ctx, "read the settings again: a config file changed")?;
        }
        first = false;
        let mut failed: Option<Error> = None;
        let ended = w.run(&stop, &mut |said| match said {
            Said::Did(line) => {
                if failed.is_none()
                    && let Err(e) = log(ctx, &line)
                {
                    failed = Some(e);
                }
            }
            Said::Warning(text) => {
                ctx.out.warn(&text);
                if record.last_error.as_deref() != Some(text.as_str()) {
                    record.last_error = Some(format!("{} {text}", Timestamp::now().utc_iso()));
                    let _ = service::write_record(&ctx.paths, &record);
                }
            }
        });
        if let Some(e) = failed {
            return Err(e);
        }
        match ended {
            Ended::SettingsChanged => {
                carried = w.carried();
                stamp = ConfigStamp::now(ctx.paths.root(), &env);
                match config::load(ctx.paths.root(), &env) {
                    Ok(loaded) => {
                        for warning in &loaded.warnings {
                            ctx.out.warn(warning);
                        }
                        config = loaded.config;
                    }
                    // A file being edited may be broken for a moment: the
                    // watcher goes on with what it had until it is fixed.
                    Err(e) => ctx.out.warn(&format!(
                        "the changed config has a problem, so the watcher goes on with its earlier settings: {e}"
                    )),
                }
            }
            Ended::Stopped => {
                ctx.out.print("Stopped watching.\n")?;
                return Ok(ExitCode::Success);
            }
            Ended::NoAgents => {
                ctx.out.print(
                    "No agent pane of this swarm is left on this host; the watcher ends.\n",
                )?;
                return Ok(ExitCode::Success);
            }
        }
    }
}

/// The refusal of a second watcher on this host, naming the one that runs.
fn already_runs(ctx: &Context) -> Result<Error> {
    let who = match service::read_record(&ctx.paths)? {
        Some(r) => format!(
            " (process {}, since {})",
            r.pid,
            sanitize::one_line(&time::iso_for_people(&r.since, time::now()))
        ),
        None => String::new(),
    };
    Ok(Error::Refused {
        message: format!("a watcher already runs for this project on this host{who}"),
        hint: "`swarm watcher stop` first to take over, or `swarm watcher status` to see it".into(),
    })
}

fn log(ctx: &Context, line: &str) -> Result<()> {
    ctx.out.print(&format!(
        "[{}] {}\n",
        Local::now().format("%H:%M:%S"),
        sanitize::one_line(line)
    ))
}
