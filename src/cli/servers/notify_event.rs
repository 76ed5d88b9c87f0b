//! `swarm notify-event` (hidden): delivers one feed entry, read as JSON on
//! stdin, through the configured outside channels (webhook, command,
//! desktop) with their retries, then exits. A failure is said on stderr and recorded in
//! the feed as a `notify_failed` entry (exit 1). It changes nothing else
//! and runs no housekeeping.

use std::io::Read;
use std::time::{Duration, Instant};

use clap::Args;

use swarm_core::{
    Error, ExitCode, FeedEntry, FeedRetention, FeedStore, FileFeed, Notifier, NotifySettings,
    Result,
};

use crate::cli::context::Context;

/// The largest entry read; a feed entry is a few hundred bytes.
const MAX_INPUT_BYTES: u64 = 256 * 1024;

/// How long every channel together may take: a webhook's attempts at
/// their whole timeout and the waits between them fit.
const DEADLINE: Duration = Duration::from_secs(60);

/// Arguments of `swarm notify-event`.
#[derive(Debug, Args)]
pub(crate) struct NotifyEventArgs {
    /// The dashboard's URL, for the webhook's `link`
    #[arg(long, value_name = "URL")]
    link: Option<String>,
}

/// Reads the entry, delivers it, records what failed.
pub(crate) fn run(ctx: &Context, args: &NotifyEventArgs) -> Result<ExitCode> {
    let entry = read_entry(std::io::stdin().lock())?;
    let config = ctx.config()?;
    let (notifier, warnings) =
        Notifier::new(&NotifySettings::from_config(config), args.link.clone());
    for warning in &warnings {
        ctx.out.warn(warning);
    }
    let failures = notifier.deliver_now(&entry, Instant::now() + DEADLINE);
    if failures.is_empty() {
        return Ok(ExitCode::Success);
    }
    for failure in &failures {
        ctx.out.warn(&failure.text());
    }
    let feed = FileFeed::new(&ctx.paths, FeedRetention::from_config(config));
    if let Err(e) = feed.append(&failures) {
        ctx.out
            .warn(&format!("could not record the failure in the feed: {e}"));
    }
    Ok(ExitCode::Failure)
}

/// One feed entry as JSON, at most `MAX_INPUT_BYTES`.
fn read_entry(input: impl Read) -> Result<FeedEntry> {
    let mut bytes = Vec::new();
    input
        .take(MAX_INPUT_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|source| Error::Io {
            what: "read the event from stdin".into(),
            source,
        })?;
    if bytes.len() as u64 > MAX_INPUT_BYTES {
        return Err(Error::Invalid(format!(
            "the event on stdin is larger than {MAX_INPUT_BYTES} bytes"
        )));
    }
    serde_json::from_slice(&bytes).map_err(|e| {
        Error::Invalid(format!(
            "stdin is not one feed entry as JSON (as `.swarm/feed.jsonl` holds them): {e}"
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_entry_is_read_and_anything_else_refused() {
        let line = r#"{"time":"2026-11-26T08:00:00+00:00","event":"needs_input","agent":"agent-1","detail":"Proceed?"}"#;
        let e = read_entry(line.as_bytes()).expect("an entry");
        assert_eq!(e.agent.as_deref(), Some("agent-1"));
        assert!(read_entry(&b"{}"[..]).is_err());
        assert!(read_entry(&b"not json"[..]).is_err());
        let huge = vec![b' '; MAX_INPUT_BYTES as usize + 1];
        assert!(read_entry(&huge[..]).is_err());
    }
}
