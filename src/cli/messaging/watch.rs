//! `swarm watch`: keeps the swarm running without anyone having to type a
//! command: every interval it rediscovers agents and removes stale locks,
//! and it sends ACK retries and escalations as they fall due. Stops
//! cleanly on Ctrl-C or SIGTERM. Held messages go into their pane within
//! about a second of it becoming safe. On a store shared by several hosts
//! it waits between rounds for the messages other hosts hand to this one
//! and types each in as it comes; a store that stops answering is told
//! once and tried again with backoff while everything else goes on.

use std::sync::mpsc::{RecvTimeoutError, TryRecvError};
use std::time::{Duration, Instant};

use chrono::Local;
use clap::Args;

use crate::acks;
use crate::agents::discovery;
use crate::error::{Error, Result};
use crate::support::exit_code::ExitCode;
use crate::support::sanitize;
use crate::support::sys;
use crate::support::time;

use crate::cli::context::Context;
use crate::cli::housekeeping;

/// Arguments of `swarm watch`.
#[derive(Debug, Args)]
pub(crate) struct WatchArgs {
    /// Seconds between agent discoveries
    #[arg(long, value_name = "SECONDS", default_value_t = 30,
          value_parser = clap::value_parser!(u64).range(1..=3600))]
    interval: u64,
}

/// Longest sleep between checks for new due work written by others.
const CHECK_EVERY: Duration = Duration::from_secs(1);

/// How long to wait before trying an unreachable store again: doubling
/// from one second up to this.
const MOST_BACKOFF: Duration = Duration::from_secs(16);

/// A shared store that stopped answering: said once, tried again with
/// backoff, and said again when it answers.
#[derive(Debug, Default)]
struct Outage {
    /// Set while the store does not answer: the next wait.
    backoff: Option<Duration>,
    /// Whether a step of this round found it unreachable.
    this_round: Option<String>,
}

impl Outage {
    /// Sorts a step's error: the store not answering is the outage's to
    /// tell (once); anything else is warned about as `what`.
    fn failed(&mut self, ctx: &Context, what: &str, e: &Error) {
        if e.is_store_outage() {
            self.this_round.get_or_insert_with(|| e.to_string());
        } else {
            ctx.out.warn(&format!("{what}: {e}"));
        }
    }

    /// Ends a round: the wait before the next one when the store is down
    /// (`None`: it answers, go on as usual).
    fn end_round(&mut self, ctx: &Context) -> Result<Option<Duration>> {
        match (self.this_round.take(), self.backoff) {
            (Some(why), None) => {
                ctx.out.warn(&format!(
                    "{why}; still watching, trying again with backoff (up to every {}s)",
                    MOST_BACKOFF.as_secs()
                ));
                self.backoff = Some(Duration::from_secs(1));
            }
            (Some(_), Some(b)) => self.backoff = Some((b * 2).min(MOST_BACKOFF)),
            (None, Some(_)) => {
                log(ctx, "the store answers again")?;
                self.backoff = None;
            }
            (None, None) => {}
        }
        Ok(self.backoff)
    }
}

/// Runs until stopped.
pub(crate) fn run(ctx: &Context, args: &WatchArgs) -> Result<ExitCode> {
    let stop = sys::stop_signals().map_err(|source| Error::Io {
        what: "install the Ctrl-C handler".into(),
        source,
    })?;
    let matcher = ctx.matcher()?;
    let opts = ctx.discover_options(None)?;
    let interval = Duration::from_secs(args.interval);
    ctx.out.print(&format!(
        "Watching {} (discovery every {}s, ACK retries as they fall due, held messages when their pane is safe; Ctrl+C to stop)\n",
        ctx.paths.root().display(),
        args.interval
    ))?;
    let mut next_discovery = Instant::now();
    let mut outage = Outage::default();
    loop {
        if Instant::now() >= next_discovery {
            match discovery::refresh(
                &ctx.tmux,
                ctx.backend()?.registry.as_ref(),
                &ctx.paths,
                &matcher,
                &opts,
            ) {
                Ok(found) => {
                    for w in &found.warnings {
                        ctx.out.warn(w);
                    }
                    if !found.added.is_empty()
                        || !found.dropped.is_empty()
                        || !found.went_stale.is_empty()
                    {
                        log(
                            ctx,
                            &format!(
                                "agents: {} active{}{}{}",
                                found.registry.active().count(),
                                list(" joined", &found.added),
                                list(" stale", &found.went_stale),
                                list(" left", &found.dropped)
                            ),
                        )?;
                    }
                }
                Err(e) => outage.failed(ctx, "discovery failed", &e),
            }
            match ctx.locks().and_then(|t| Ok(t.clean(Some("swarm watch"))?)) {
                Ok(report) => {
                    for held in &report.stale {
                        log(
                            ctx,
                            &format!(
                                "removed the stale lock on {} ({})",
                                held.record.filepath, held.record.agent_id
                            ),
                        )?;
                    }
                    for (name, why) in &report.damaged {
                        log(
                            ctx,
                            &format!("removed the damaged lock file {name} ({why})"),
                        )?;
                    }
                }
                Err(e) => outage.failed(ctx, "could not clean stale locks", &e),
            }
            next_discovery = Instant::now() + interval;
        }
        match housekeeping::process_due_acks(ctx) {
            Ok(Some(report)) => {
                for w in &report.warnings {
                    ctx.out.warn(w);
                }
                for (id, to, n, outcome) in &report.retried {
                    let how = if outcome.is_delivered() {
                        "delivered"
                    } else {
                        "queued"
                    };
                    log(
                        ctx,
                        &format!("retry {n} of {} to {to}: {how}", acks::short(id)),
                    )?;
                }
                for (id, to, _) in &report.escalated {
                    log(
                        ctx,
                        &format!(
                            "escalated {} (no acknowledgement from {to})",
                            acks::short(id)
                        ),
                    )?;
                }
            }
            Ok(None) => {}
            Err(e) => outage.failed(ctx, "could not process due ACK retries", &e),
        }
        match housekeeping::release_held(ctx) {
            Ok(Some(report)) => {
                for w in &report.warnings {
                    ctx.out.warn(w);
                }
                for r in &report.released {
                    log(
                        ctx,
                        &format!(
                            "held message {} to {}: {}",
                            r.held.msg_id.short(),
                            r.held.agent,
                            sanitize::one_line(&r.outcome.describe())
                        ),
                    )?;
                }
            }
            Ok(None) => {}
            Err(e) => outage.failed(ctx, "could not deliver held messages", &e),
        }
        let until_discovery = next_discovery.saturating_duration_since(Instant::now());
        let until_due =
            acks::next_due_in(&*ctx.backend()?.acks, time::now()).unwrap_or(CHECK_EVERY);
        let nap = until_discovery.min(until_due).min(CHECK_EVERY);
        // With other hosts in the swarm the nap is spent waiting for what
        // they hand to this one: it is typed in as soon as it comes.
        // While the store is down this only checks whether it is back.
        let wait = if outage.backoff.is_some() || outage.this_round.is_some() {
            Duration::from_millis(1)
        } else {
            nap
        };
        let waited = {
            match housekeeping::deliver_handed_over(ctx, wait) {
                Ok(Some(got)) => {
                    for w in &got.warnings {
                        ctx.out.warn(w);
                    }
                    for (to, id, outcome) in &got.delivered {
                        log(
                            ctx,
                            &format!(
                                "message {} from another host to {to}: {}",
                                acks::short(id),
                                sanitize::one_line(&outcome.describe())
                            ),
                        )?;
                    }
                    true
                }
                Ok(None) => false,
                Err(e) => {
                    outage.failed(ctx, "could not take deliveries for this host", &e);
                    false
                }
            }
        };
        // A stop signal interrupts a blocking wait: not an outage.
        if !matches!(stop.try_recv(), Err(TryRecvError::Empty)) {
            ctx.out.print("Stopped watching.\n")?;
            return Ok(ExitCode::Success);
        }
        let backoff = outage.end_round(ctx)?;
        let nap = backoff.unwrap_or(nap);
        let stopped = if waited && backoff.is_none() {
            !matches!(stop.try_recv(), Err(TryRecvError::Empty))
        } else {
            !matches!(stop.recv_timeout(nap), Err(RecvTimeoutError::Timeout))
        };
        if stopped {
            ctx.out.print("Stopped watching.\n")?;
            return Ok(ExitCode::Success);
        }
    }
}

fn list(label: &str, ids: &[String]) -> String {
    if ids.is_empty() {
        String::new()
    } else {
        format!(",{label}: {}", ids.join(" "))
    }
}

fn log(ctx: &Context, line: &str) -> Result<()> {
    ctx.out
        .print(&format!("[{}] {line}\n", Local::now().format("%H:%M:%S")))
}
