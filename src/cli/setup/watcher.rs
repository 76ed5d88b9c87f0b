//! `swarm watcher status|start|stop|restart|run`: the project's watcher as
//! a service on this host. One watcher runs per project and host (on a
//! store shared by several hosts, one on each); commands start it in the
//! background when they need it (`watcher.autostart`), and these commands
//! show it, stop it and start it again.

use std::time::Duration;

use clap::{Args, Subcommand};
use serde_json::json;

use swarm_core::support::{sanitize, time};
use swarm_core::watcher::service::{self, Stopped, WatcherStatus};
use swarm_core::{Error, ExitCode, Result, Started, start_watcher};

use crate::cli::context::Context;
use crate::cli::messaging::watch::{self, WatchArgs};

/// How long `stop` waits for the watcher to end its round and leave.
const STOP_WAIT: Duration = Duration::from_secs(10);

/// Arguments of `swarm watcher`.
#[derive(Debug, Args)]
#[command(after_help = "\
The watcher types held messages in, retries ACKs, raises attention events and
sends every notification. It rereads the project's and the per-user config
when either changes; what it takes from the environment (SWARM_NOTIFY_WEBHOOK,
SWARM_NOTIFY_COMMAND, the store settings) changes only with `swarm watcher
restart`, run from the shell that has the new values.")]
pub(crate) struct WatcherArgs {
    #[command(subcommand)]
    action: WatcherAction,
}

#[derive(Debug, Subcommand)]
enum WatcherAction {
    /// Whether the watcher runs: its process, since when, the fingerprint
    /// of its settings, its notification channels and its last error
    Status {
        /// Print JSON: {"running", "pid", "host", "since", "fingerprint",
        /// "channels", "last_error"}
        #[arg(long)]
        json: bool,
    },
    /// Start the watcher in the background (it ends by itself once the
    /// swarm's panes on this host are gone)
    Start,
    /// Stop the watcher of this project on this host
    Stop,
    /// Stop the watcher and start it again from this shell, so that it
    /// runs with this shell's environment
    Restart,
    /// Run the watcher in the foreground until Ctrl-C (the same as `swarm
    /// watch`)
    Run(WatchArgs),
}

impl WatcherArgs {
    /// The foreground loop's arguments, when that is what was asked.
    pub(crate) fn run_args(&self) -> Option<&WatchArgs> {
        match &self.action {
            WatcherAction::Run(args) => Some(args),
            _ => None,
        }
    }
}

/// Runs `swarm watcher ...`.
pub(crate) fn run(ctx: &Context, args: &WatcherArgs) -> Result<ExitCode> {
    match &args.action {
        WatcherAction::Status { json } => status(ctx, *json),
        WatcherAction::Start => {
            start(ctx)?;
            Ok(ExitCode::Success)
        }
        WatcherAction::Stop => {
            stop(ctx)?;
            Ok(ExitCode::Success)
        }
        WatcherAction::Restart => {
            stop(ctx)?;
            start(ctx)?;
            Ok(ExitCode::Success)
        }
        WatcherAction::Run(args) => watch::run(ctx, args),
    }
}

/// A time for people: the local clock time and how long ago.
fn shown_time(iso: &str) -> String {
    let now = time::now();
    match time::parse_iso(iso) {
        Some(t) => format!("{} ({})", time::for_people(t, now), time::ago(t, now)),
        None => sanitize::one_line(iso),
    }
}

/// The status as JSON: what a running watcher says of itself, nulls when
/// none runs.
pub(crate) fn status_json(status: &WatcherStatus) -> serde_json::Value {
    match (status.running, &status.record) {
        (true, Some(r)) => json!({
            "running": true,
            "pid": r.pid,
            "host": r.host,
            "since": r.since,
            "fingerprint": r.fingerprint,
            "channels": r.channels,
            "last_error": r.last_error,
            "background": r.background,
            "settings_read": r.settings_read,
        }),
        (running, _) => json!({
            "running": running,
            "pid": null,
            "host": null,
            "since": null,
            "fingerprint": null,
            "channels": [],
            "last_error": null,
        }),
    }
}

/// One line for people: whether the watcher runs, and its process.
pub(crate) fn status_line(status: &WatcherStatus) -> String {
    match (status.running, &status.record) {
        (true, Some(r)) => format!(
            "running (process {} on {}, since {})",
            r.pid,
            sanitize::one_line(&r.host),
            shown_time(&r.since)
        ),
        (true, None) => "running (a watcher of another swarm version: no record)".into(),
        (false, _) => "not running".into(),
    }
}

fn status(ctx: &Context, json: bool) -> Result<ExitCode> {
    let status = service::status(&ctx.paths)?;
    if json {
        ctx.out.json(&status_json(&status))?;
        return Ok(ExitCode::Success);
    }
    let mut s = format!("watcher: {}\n", status_line(&status));
    match (status.running, &status.record) {
        (true, Some(r)) => {
            s.push_str(&format!(
                "settings: read {}, fingerprint {}\n",
                shown_time(&r.settings_read),
                r.fingerprint
            ));
            s.push_str(&format!(
                "notifies: {}\n",
                if r.channels.is_empty() {
                    "nothing (every channel is off)".to_owned()
                } else {
                    r.channels.join(", ")
                }
            ));
            s.push_str(&format!(
                "last error: {}\n",
                r.last_error
                    .as_deref()
                    .map(sanitize::one_line)
                    .unwrap_or_else(|| "none".into())
            ));
        }
        (false, _) => {
            let autostart = ctx.config().map(|c| c.watcher.autostart).unwrap_or(true);
            s.push_str(if autostart {
                "the next command that needs it starts it (watcher.autostart); `swarm watcher start` starts it now\n"
            } else {
                "watcher.autostart is off: nothing is notified and held messages wait until `swarm watcher start`\n"
            });
        }
        (true, None) => {}
    }
    ctx.out.print(&s)?;
    Ok(ExitCode::Success)
}

fn start(ctx: &Context) -> Result<()> {
    match start_watcher(&ctx.paths, ctx.tmux.server())? {
        Started::Already => {
            let status = service::status(&ctx.paths)?;
            ctx.out.print(&format!(
                "The watcher already runs: {} (`swarm watcher restart` starts it again with this shell's environment)\n",
                status_line(&status)
            ))?;
        }
        Started::Now(mut child) => {
            let pid = child.id();
            wait_until_up(ctx, &mut child)?;
            ctx.out.print(&format!(
                "Started the watcher in the background (process {pid}); it writes to {} and ends once the swarm's panes on this host are gone.\n",
                ctx.paths.watcher_log().display()
            ))?;
        }
    }
    Ok(())
}

/// Waits until the watcher started as `child` has announced itself and
/// written its record, so that what follows (`status`, a notification)
/// finds it running with its settings.
fn wait_until_up(ctx: &Context, child: &mut std::process::Child) -> Result<()> {
    let pid = child.id();
    let deadline = std::time::Instant::now() + STOP_WAIT;
    loop {
        let status = service::status(&ctx.paths)?;
        if status.running && status.record.as_ref().is_some_and(|r| r.pid == pid) {
            return Ok(());
        }
        // It left: another watcher won the start (two commands at once),
        // which is as good, or it could not run.
        if let Ok(Some(_)) = child.try_wait()
            && service::status(&ctx.paths)?.running
        {
            return Ok(());
        }
        if std::time::Instant::now() >= deadline {
            return Err(Error::Refused {
                message: format!(
                    "the watcher (process {pid}) did not come up within {}s",
                    STOP_WAIT.as_secs()
                ),
                hint: format!("its log says why: {}", ctx.paths.watcher_log().display()),
            });
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn stop(ctx: &Context) -> Result<()> {
    match service::stop(&ctx.paths, STOP_WAIT)? {
        Stopped::NoneRan => ctx
            .out
            .print("No watcher runs for this project on this host.\n")?,
        Stopped::Stopped(pid) => ctx
            .out
            .print(&format!("Stopped the watcher (process {pid}).\n"))?,
        Stopped::StillRunning(pid) => {
            return Err(Error::Refused {
                message: format!(
                    "the watcher (process {pid}) was asked to stop and still runs after {}s",
                    STOP_WAIT.as_secs()
                ),
                hint: format!("it may be stuck: `kill -9 {pid}` ends it"),
            });
        }
        Stopped::Unknown => {
            return Err(Error::Refused {
                message:
                    "a watcher runs, but it left no record of its process (another swarm version)"
                        .into(),
                hint: "stop it where it runs (Ctrl-C), or end the `swarm watch` process".into(),
            });
        }
    }
    Ok(())
}
