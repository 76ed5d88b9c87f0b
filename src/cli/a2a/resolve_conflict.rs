//! `swarm resolve-conflict FILEPATH [--requester ID]`: advice on who
//! should have a locked path (docs/guide/python.md, Task coordination): the agent with the more urgent
//! active task, else the holder. The decision is recorded in
//! `CONFLICT_LOG.json`; no lock is touched. Every live lock of another
//! agent that covers the path counts (the exact lock, a directory above
//! it, a pattern matching it, locks below a directory), found with the
//! same look-up `swarm who` uses.

use clap::Args;
use serde::Serialize;

use swarm_core::a2a::{Conflict, ConflictLog, HeldBy, TaskFilter, TaskStore, current_task, select};
use swarm_core::{ExitCode, HeldLock, LockEntry, Result, unix_now};

use crate::cli::a2a::a2a_view::{acting_agent, shown, warn_notes};
use crate::cli::context::Context;

/// Arguments of `swarm resolve-conflict`.
#[derive(Debug, Args)]
pub(crate) struct ResolveConflictArgs {
    /// The path (or pattern) the requester needs
    #[arg(value_name = "FILEPATH")]
    path: String,
    /// The agent that needs it [default: this pane's agent]
    #[arg(long = "agent", alias = "requester", value_name = "AGENT")]
    requester: Option<String>,
    /// Act for --agent although this pane is another agent (recorded)
    #[arg(long, requires = "requester")]
    as_other: bool,
    /// Print the path, the requester and the conflict records as JSON
    #[arg(long)]
    json: bool,
}

#[derive(Serialize)]
struct ResolveJson<'a> {
    path: &'a str,
    requester: Option<&'a str>,
    conflicts: &'a [Conflict],
}

/// Decides each conflict and records it.
pub(crate) fn run(ctx: &Context, args: &ResolveConflictArgs) -> Result<ExitCode> {
    let key = ctx.lock_key(&args.path)?;
    let table = ctx.locks()?;
    let related = table.related(&key)?;
    let now = unix_now();
    let mut locks: Vec<HeldLock> = Vec::new();
    match related.exact {
        Some(LockEntry::Held(held)) => locks.push(held),
        Some(LockEntry::Damaged { problem, .. }) => ctx.out.warn(&format!(
            "the lock file of {key} ({}) is damaged: {}; `swarm locks --clean` removes it",
            table.location(&key),
            shown(&problem)
        )),
        None => {}
    }
    locks.extend(related.others);
    // A stale lock protects nothing: it is no conflict.
    locks.retain(|h| !table.is_stale(&h.record, now));
    let path = key.as_str();
    let path_shown = shown(path);
    if locks.is_empty() {
        let text = format!("No lock conflict on: {path_shown}\n");
        return finish(ctx, args, path, None, &[], &text);
    }
    let requester = acting_agent(
        ctx,
        args.requester.as_deref(),
        args.as_other,
        "--agent",
        &format!("resolve-conflict {path}"),
    )?;
    locks.retain(|h| h.record.agent_id != requester);
    if locks.is_empty() {
        let text = format!("You already hold the lock on: {path_shown}\n");
        return finish(ctx, args, path, Some(&requester), &[], &text);
    }
    let mut notes = Vec::new();
    let tasks = TaskStore::new(ctx.backend()?.a2a.as_ref()).all(&mut notes);
    warn_notes(ctx, &notes);
    let tasks = tasks?;
    let open = select(&tasks, &TaskFilter::default());
    let requester_task = current_task(&open, &requester);
    let mut conflicts = Vec::with_capacity(locks.len());
    let mut text = String::new();
    for held in &locks {
        let r = &held.record;
        let mut conflict = Conflict::file_lock(
            &requester,
            path,
            &HeldBy {
                agent: r.agent_id.clone(),
                locked_path: r.filepath.clone(),
                locked_at: r.locked_at,
                reason: r.reason.clone(),
            },
        );
        let strategy = conflict.resolve(requester_task, current_task(&open, &r.agent_id));
        if let Some(res) = &conflict.resolution {
            text.push_str(&format!(
                "Conflict resolved: {path_shown}\n  Winner: {}\n  Strategy: {}\n  Message: {}\n",
                shown(&res.winner),
                strategy.as_str(),
                shown(&res.reason)
            ));
            if r.filepath != path {
                text.push_str(&format!(
                    "  Lock: {} (held by {})\n",
                    shown(&r.filepath),
                    shown(&r.agent_id)
                ));
            }
        }
        conflicts.push(conflict);
    }
    let mut notes = Vec::new();
    let recorded = ConflictLog::new(ctx.backend()?.a2a.as_ref()).record(&conflicts, &mut notes);
    warn_notes(ctx, &notes);
    recorded?;
    finish(ctx, args, path, Some(&requester), &conflicts, &text)
}

fn finish(
    ctx: &Context,
    args: &ResolveConflictArgs,
    path: &str,
    requester: Option<&str>,
    conflicts: &[Conflict],
    text: &str,
) -> Result<ExitCode> {
    if args.json {
        ctx.out.json(&ResolveJson {
            path,
            requester,
            conflicts,
        })?;
    } else {
        ctx.out.print(text)?;
    }
    Ok(ExitCode::Success)
}
