//! `swarm unlock PATH...` (alias `release-file-lock`): release the acting
//! agent's locks; another agent's only with `--force`, which is recorded.

use clap::Args;

use swarm_core::ops::{self, UnlockPlan};
use swarm_core::support::time;
use swarm_core::{ExitCode, Released, Result, unix_now};

use crate::cli::actor;
use crate::cli::context::Context;
use crate::cli::locks::lock_view::{as_typed, joined, shown};

/// Arguments of `swarm unlock`.
#[derive(Debug, Args)]
pub(crate) struct UnlockArgs {
    /// Paths or patterns to release, spelled any way that names the same
    /// lock
    #[arg(required = true, value_name = "PATH")]
    paths: Vec<String>,
    /// The agent releasing [default: this pane's agent]
    #[arg(long, alias = "agent-id", value_name = "AGENT")]
    agent: Option<String>,
    /// Act for --agent although this pane is another agent (recorded)
    #[arg(long, requires = "agent")]
    as_other: bool,
    /// Release locks held by other agents too (recorded in .swarm/audit.log)
    #[arg(long)]
    force: bool,
}

/// Releases the locks.
pub(crate) fn run(ctx: &Context, args: &UnlockArgs) -> Result<ExitCode> {
    let keys = ctx.lock_keys(&args.paths)?;
    let actor = actor::resolve(ctx, args.agent.as_deref(), args.as_other, "--agent")?;
    actor::record_as_other(ctx, &actor, &format!("unlock {}", joined(&keys)))?;
    let plan = UnlockPlan::new(keys, &actor.id).force(args.force);
    let released = ops::unlock(ctx.op()?, &plan)?.released;
    let keys = plan.keys();
    let now = unix_now();
    let mut s = String::new();
    for (key, how) in released {
        let typed = as_typed(&args.paths, keys, key.as_str());
        let typed = shown(typed);
        let audit_path = ctx.paths.audit_log();
        let audit = ctx.paths.relative(&audit_path).display();
        match how {
            Released::Removed(_) => s.push_str(&format!("Lock released on: {typed}\n")),
            Released::Left(rest) => {
                let others: Vec<String> = rest
                    .record
                    .holds()
                    .into_iter()
                    .map(|h| shown(&h.agent_id))
                    .collect();
                s.push_str(&format!(
                    "Lock released on: {typed}\n  Still shared by: {}\n",
                    others.join(", ")
                ));
            }
            Released::NotLocked => s.push_str(&format!("No lock on: {typed} (nothing to release)\n")),
            Released::Forced(held) => s.push_str(&format!(
                "Lock released on: {typed}\n  Forced: it was held by {} for {}{} (recorded in {audit})\n",
                held.record.agent_id,
                time::human_duration(held.record.age(now)),
                match shown(&held.record.reason) {
                    r if r.is_empty() => String::new(),
                    r => format!(", reason: {r}"),
                },
            )),
            Released::ForcedDamaged(problem) => s.push_str(&format!(
                "Removed the damaged lock file of: {typed} ({}; recorded in {audit})\n",
                shown(&problem)
            )),
        }
    }
    ctx.out.print(&s)?;
    Ok(ExitCode::Success)
}
