//! `swarm locks` (alias `list-all-locks`): every lock, read without
//! changing anything; `swarm locks --clean` (alias `cleanup-stale-locks`)
//! removes stale locks and damaged lock files.

use std::path::PathBuf;

use clap::Args;
use serde::Serialize;

use swarm_core::support::time;
use swarm_core::{CleanReport, ExitCode, LockEntry, Result, unix_now};

use crate::cli::actor;
use crate::cli::context::Context;
use crate::cli::locks::lock_view::{LockJson, lapsed_mark, shown, text_block};

/// Arguments of `swarm locks`.
#[derive(Debug, Args)]
pub(crate) struct LocksArgs {
    /// Print the locks as a JSON array
    #[arg(long)]
    json: bool,
    /// Also list stale locks (older than locking.stale_timeout) and ended
    /// leases
    #[arg(long, conflicts_with = "clean")]
    include_stale: bool,
    /// Remove stale locks, ended leases and damaged lock files (recorded
    /// in .swarm/audit.log)
    #[arg(long)]
    pub(crate) clean: bool,
}

impl LocksArgs {
    /// `cleanup-stale-locks`: the Python tool's name for `locks --clean`.
    pub(crate) fn clean() -> LocksArgs {
        LocksArgs {
            json: false,
            include_stale: false,
            clean: true,
        }
    }
}

#[derive(Serialize)]
struct CleanJson {
    stale_removed: Vec<LockJson>,
    damaged_removed: Vec<String>,
}

/// Lists, or cleans.
pub(crate) fn run(ctx: &Context, args: &LocksArgs) -> Result<ExitCode> {
    let table = ctx.locks()?;
    if args.clean {
        // Recorded as whoever runs it, when that is known.
        let by = actor::detect(ctx).ok().flatten();
        let report = table.clean(by.as_deref())?;
        return print_clean(ctx, args, table, &report);
    }
    let now = unix_now();
    let mut shown_locks = Vec::new();
    let mut hidden = 0;
    for entry in table.list()? {
        match entry {
            LockEntry::Held(held) if table.is_stale(&held.record, now) && !args.include_stale => {
                hidden += 1;
            }
            LockEntry::Held(held) => shown_locks.push(held),
            LockEntry::Damaged {
                file_name, problem, ..
            } => ctx.out.warn(&format!(
                "{} is damaged ({}); `swarm locks --clean` removes it",
                lock_file(ctx, &file_name).display(),
                shown(&problem)
            )),
        }
    }
    if args.json {
        let list: Vec<LockJson> = shown_locks
            .iter()
            .map(|h| LockJson::new(&h.record, table, now))
            .collect();
        ctx.out.json(&list)?;
        return Ok(ExitCode::Success);
    }
    let mut s = String::new();
    if shown_locks.is_empty() {
        s.push_str("No active locks.\n");
    } else {
        s.push_str(&format!("Active locks ({}):\n\n", shown_locks.len()));
        for held in &shown_locks {
            let mut header = shown(&held.record.filepath);
            if table.is_stale(&held.record, now) {
                header.push_str(lapsed_mark(&held.record));
            }
            s.push_str(&text_block(&header, held, now));
            s.push('\n');
        }
    }
    ctx.out.print(&s)?;
    if hidden > 0 {
        ctx.out.note(&format!(
            "({hidden} stale lock{} not shown: --include-stale lists them, --clean removes them)",
            if hidden == 1 { "" } else { "s" }
        ));
    }
    Ok(ExitCode::Success)
}

fn print_clean(
    ctx: &Context,
    args: &LocksArgs,
    table: &dyn swarm_core::LockStore,
    report: &CleanReport,
) -> Result<ExitCode> {
    let now = unix_now();
    if args.json {
        ctx.out.json(&CleanJson {
            stale_removed: report
                .stale
                .iter()
                .map(|h| LockJson::new(&h.record, table, now))
                .collect(),
            damaged_removed: report
                .damaged
                .iter()
                .map(|(name, _)| name.clone())
                .collect(),
        })?;
        return Ok(ExitCode::Success);
    }
    let mut s = format!("Cleaned up {} stale lock(s)\n", report.stale.len());
    for held in &report.stale {
        let what = if held.record.has_lease() {
            ", lease ended"
        } else {
            ""
        };
        s.push_str(&format!(
            "  {} (held by {} for {}{what})\n",
            shown(&held.record.filepath),
            shown(&held.record.agent_id),
            time::human_duration(held.record.age(now))
        ));
    }
    for held in &report.pruned {
        s.push_str(&format!(
            "  {} (shared): dropped the claims that lapsed; the others still hold it\n",
            shown(&held.record.filepath)
        ));
    }
    if !report.damaged.is_empty() {
        s.push_str(&format!(
            "Removed {} damaged lock file(s)\n",
            report.damaged.len()
        ));
        for (name, problem) in &report.damaged {
            s.push_str(&format!(
                "  {} ({})\n",
                lock_file(ctx, name).display(),
                shown(problem)
            ));
        }
    }
    ctx.out.print(&s)?;
    if report.young_damaged > 0 {
        ctx.out.note(&format!(
            "({} damaged lock file(s) written in the last few seconds were left alone: another tool may still be writing them)",
            report.young_damaged
        ));
    }
    Ok(ExitCode::Success)
}

/// A lock file's name as messages give it: under the lock directory,
/// relative to the root (`.agent_locks/<name>`).
fn lock_file(ctx: &Context, name: &str) -> PathBuf {
    ctx.paths
        .relative(&ctx.paths.locks_dir().join(name))
        .to_path_buf()
}
