//! `swarm feed`: the activity feed, everything kept or what came since a
//! time, filtered by agent and kind, and with `--follow` what comes next
//! as it comes.

use std::time::Duration;

use chrono::Local;
use clap::Args;

use swarm_core::domain::validate;
use swarm_core::support::{sanitize, sys, time};
use swarm_core::{ALL_KINDS, Error, EventKind, ExitCode, FeedEntry, FeedRead, Result, Timestamp};

use crate::cli::context::Context;

/// How long a follower waits for new lines before it checks for Ctrl-C.
const FOLLOW_WAIT: Duration = Duration::from_millis(500);

/// Arguments of `swarm feed`.
#[derive(Debug, Args)]
#[command(after_help = format!("\
Kinds (--event): {}.
needs_input, finished, exited, stuck, message and budget say that someone
needs the person and are notified as `[notify]` says; the others record
what the swarm did.", ALL_KINDS.map(EventKind::as_str).join(", ")))]
pub(crate) struct FeedArgs {
    /// Keep running and print what comes next, as it comes (Ctrl-C stops)
    #[arg(long, short = 'f')]
    follow: bool,
    /// Only what happened in the last DURATION (30s, 10m, 2h, 1d)
    #[arg(long, value_name = "DURATION")]
    since: Option<String>,
    /// Only what is about this agent (repeatable)
    #[arg(long, value_name = "ID")]
    agent: Vec<String>,
    /// Only this kind of event (repeatable; see below)
    #[arg(long, value_name = "KIND")]
    event: Vec<String>,
    /// One JSON object per line
    #[arg(long)]
    json: bool,
}

/// What a line must match to be printed.
struct Filter {
    since: Option<Timestamp>,
    agents: Vec<String>,
    kinds: Vec<EventKind>,
}

impl Filter {
    fn keeps(&self, e: &FeedEntry) -> bool {
        self.since.is_none_or(|s| e.time >= s)
            && (self.agents.is_empty() || e.agent.as_ref().is_some_and(|a| self.agents.contains(a)))
            && (self.kinds.is_empty() || self.kinds.contains(&e.event))
    }
}

/// Prints the feed.
pub(crate) fn run(ctx: &Context, args: &FeedArgs) -> Result<ExitCode> {
    let filter = plan(args)?;
    let feed = ctx.backend()?.feed.as_ref();
    let stop = if args.follow {
        Some(sys::stop_signals().map_err(|source| Error::Io {
            what: "install the Ctrl-C handler".into(),
            source,
        })?)
    } else {
        None
    };
    let mut read = feed.read_all()?;
    loop {
        print_read(ctx, args, &filter, &read)?;
        let Some(stop) = &stop else {
            return Ok(ExitCode::Success);
        };
        if stop.try_recv().is_ok() {
            return Ok(ExitCode::Success);
        }
        read = feed.read_after(&read.cursor, FOLLOW_WAIT)?;
    }
}

/// The checked filter of the arguments.
fn plan(args: &FeedArgs) -> Result<Filter> {
    let since = match &args.since {
        None => None,
        Some(s) => {
            let d = time::parse_duration(s).map_err(|e| Error::Invalid(format!("--since: {e}")))?;
            let back = chrono::Duration::from_std(d)
                .map_err(|_| Error::Invalid(format!("--since: {s:?} is too long ago")))?;
            Some(Timestamp::from_utc(time::now() - back))
        }
    };
    let agents = args
        .agent
        .iter()
        .map(|a| {
            validate::agent_id(a)
                .map(|id| id.to_string())
                .map_err(|e| Error::Invalid(format!("--agent: {e}")))
        })
        .collect::<Result<Vec<_>>>()?;
    let kinds = args
        .event
        .iter()
        .map(|k| {
            EventKind::parse(k).ok_or_else(|| Error::Refused {
                message: format!(
                    "--event: {:?} is not a kind of event",
                    sanitize::one_line(k)
                ),
                hint: format!(
                    "use one of: {}",
                    ALL_KINDS.map(EventKind::as_str).join(", ")
                ),
            })
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(Filter {
        since,
        agents,
        kinds,
    })
}

fn print_read(ctx: &Context, args: &FeedArgs, filter: &Filter, read: &FeedRead) -> Result<()> {
    if read.skipped > 0 {
        ctx.out.warn(&format!(
            "skipped {} line(s) of the feed that could not be read",
            read.skipped
        ));
    }
    let mut text = String::new();
    for e in read.entries.iter().filter(|e| filter.keeps(e)) {
        if args.json {
            text.push_str(&serde_json::to_string(e).unwrap_or_default());
        } else {
            text.push_str(&line(e));
        }
        text.push('\n');
    }
    if text.is_empty() {
        return Ok(());
    }
    ctx.out.print(&text)
}

/// `09:12:03  agent-1  needs_input  Do you want to proceed? [1. Yes, 2. No]`.
fn line(e: &FeedEntry) -> String {
    let when = e.time.utc().with_timezone(&Local).format("%H:%M:%S");
    let agent = e.agent.as_deref().unwrap_or("-");
    let mut detail = sanitize::one_line(&e.detail);
    if !e.options.is_empty() {
        let options: Vec<String> = e
            .options
            .iter()
            .map(|o| format!("{}. {}", o.number, sanitize::one_line(&o.label)))
            .collect();
        detail.push_str(&format!(" [{}]", options.join(", ")));
    }
    if let Some(by) = &e.by {
        detail.push_str(&format!(" (by {})", sanitize::one_line(by)));
    }
    format!(
        "{when}  {:<10} {:<16} {detail}",
        sanitize::one_line(agent),
        e.event.as_str()
    )
}
