//! `swarm who PATH` (alias `who-has-lock`): every lock that covers or
//! overlaps a path (its own, a directory above it, a pattern matching it,
//! locks below it), stale ones marked. Changes nothing.

use clap::Args;
use serde::Serialize;

use swarm_core::{ExitCode, HeldLock, LockEntry, Result, unix_now};

use crate::cli::context::Context;
use crate::cli::locks::lock_view::{LockJson, lapsed_mark, shown, text_block};

/// Arguments of `swarm who`.
#[derive(Debug, Args)]
pub(crate) struct WhoArgs {
    /// The path or pattern to look up
    #[arg(value_name = "PATH")]
    path: String,
    /// Print the locks as JSON
    #[arg(long)]
    json: bool,
}

#[derive(Serialize)]
struct WhoJson {
    path: String,
    locks: Vec<LockJson>,
    #[serde(skip_serializing_if = "Option::is_none")]
    damaged: Option<String>,
}

/// Looks the path up.
pub(crate) fn run(ctx: &Context, args: &WhoArgs) -> Result<ExitCode> {
    let key = ctx.lock_key(&args.path)?;
    // The path as typed may hold escape sequences: shown cleaned.
    let path = shown(key.as_str());
    let table = ctx.locks()?;
    let related = table.related(&key)?;
    let now = unix_now();
    let mut damaged = None;
    let mut locks: Vec<HeldLock> = Vec::new();
    match related.exact {
        Some(LockEntry::Held(held)) => locks.push(held),
        Some(LockEntry::Damaged { problem, .. }) => damaged = Some(problem),
        None => {}
    }
    locks.extend(related.others);
    if let Some(problem) = &damaged {
        ctx.out.warn(&format!(
            "the lock file of {path} ({}) is damaged: {}; `swarm locks --clean` removes it",
            table.location(&key),
            shown(problem)
        ));
    }
    if args.json {
        ctx.out.json(&WhoJson {
            path: key.as_str().to_owned(),
            locks: locks
                .iter()
                .map(|h| LockJson::new(&h.record, table, now))
                .collect(),
            damaged,
        })?;
        return Ok(ExitCode::Success);
    }
    if locks.is_empty() {
        ctx.out.print(&format!("No active lock on: {path}\n"))?;
        return Ok(ExitCode::Success);
    }
    let mut s = String::new();
    for held in &locks {
        let filepath = shown(&held.record.filepath);
        let mut header = if filepath == path {
            format!("Lock on: {filepath}")
        } else {
            format!("Lock on: {filepath} (overlaps {path})")
        };
        if table.is_stale(&held.record, now) {
            header.push_str(lapsed_mark(&held.record));
        }
        s.push_str(&text_block(&header, held, now));
    }
    ctx.out.print(&s)?;
    Ok(ExitCode::Success)
}
