//! `swarm lock PATH...` (and the Python name `acquire-file-lock PATH
//! [REASON]`): take locks for the acting agent, all or none: exclusive or
//! shared (`--shared`), plain or a lease (`--ttl`); or renew the agent's
//! own (`--renew`).

use std::time::Duration;

use clap::Args;
use serde::Serialize;

use swarm_core::ops::{self, LockPlan, RenewPlan};
use swarm_core::{
    Acquired, AcquiredLock, Error, ExitCode, LockError, LockKey, LockStore, Result, parse_ttl,
    unix_now,
};

use crate::cli::actor;
use crate::cli::context::Context;
use crate::cli::locks::lock_view::{LockJson, as_typed, joined, lease_end, shown};

/// Arguments of `swarm lock`.
#[derive(Debug, Args)]
#[command(after_help = "\
Examples:
  swarm lock src/db/ -r \"schema change\"      everything below src/db/, for this pane's agent
  swarm lock 'src/*.py' --agent agent-0      a glob, for agent-0 (from outside its pane)")]
pub(crate) struct LockArgs {
    /// Files, directories (`src/auth/`: everything below it) or glob
    /// patterns (`'src/*.py'`; `*` also matches `/`) to lock
    #[arg(required = true, value_name = "PATH")]
    paths: Vec<String>,
    /// Why (shown to agents that find the lock in their way) [default:
    /// locking.default_reason]
    #[arg(long, short, value_name = "TEXT")]
    reason: Option<String>,
    /// The agent taking the lock [default: this pane's agent]
    #[arg(long, alias = "agent-id", value_name = "AGENT")]
    agent: Option<String>,
    /// Act for --agent although this pane is another agent (recorded)
    #[arg(long, requires = "agent")]
    as_other: bool,
    /// When a lock is in the way, keep trying for up to this many seconds
    #[arg(long, value_name = "SECONDS", value_parser = clap::value_parser!(u64).range(0..=86400))]
    wait: Option<u64>,
    /// A shared (reading) lock: any number of agents may hold it together,
    /// none of them edits the path, and exclusive locks are refused while
    /// it is held
    #[arg(long)]
    shared: bool,
    /// A lease: the lock ends by itself this long after it is taken (30s,
    /// 10m, 2h, 1h30m; at most 30d) unless renewed [default: no lease, the
    /// lock goes stale after locking.stale_timeout]
    #[arg(long, value_name = "DURATION")]
    ttl: Option<String>,
    /// Renew this agent's own locks on exactly these paths instead: from
    /// now, for --ttl, else for the lease's own length; refused (exit 3
    /// when others hold it, else 1) for a lock it does not hold
    #[arg(long, conflicts_with_all = ["shared", "reason", "wait"])]
    renew: bool,
    /// Print what was acquired (or what is in the way) as JSON
    #[arg(long)]
    json: bool,
}

/// Arguments of `acquire-file-lock` (the Python tool's form).
#[derive(Debug, Args)]
pub(crate) struct AcquireFileLockArgs {
    /// The file to lock
    #[arg(value_name = "FILEPATH")]
    path: String,
    /// Why
    #[arg(value_name = "REASON")]
    reason: Option<String>,
    /// The agent taking the lock [default: this pane's agent]
    #[arg(long = "agent", alias = "agent-id", value_name = "AGENT")]
    agent: Option<String>,
}

impl From<AcquireFileLockArgs> for LockArgs {
    fn from(a: AcquireFileLockArgs) -> LockArgs {
        LockArgs {
            paths: vec![a.path],
            reason: a.reason,
            agent: a.agent,
            as_other: false,
            wait: None,
            shared: false,
            ttl: None,
            renew: false,
            json: false,
        }
    }
}

#[derive(Serialize)]
struct Report {
    acquired: Vec<LockJson>,
    conflicts: Vec<LockJson>,
}

/// Takes the locks, waiting with `--wait`.
pub(crate) fn run(ctx: &Context, args: &LockArgs) -> Result<ExitCode> {
    let ttl = args
        .ttl
        .as_deref()
        .map(|t| parse_ttl(t).map_err(|e| Error::Invalid(format!("--ttl: {e}"))))
        .transpose()?;
    let keys = ctx.lock_keys(&args.paths)?;
    let actor = actor::resolve(ctx, args.agent.as_deref(), args.as_other, "--agent")?;
    if args.renew {
        let plan = RenewPlan::new(keys, &actor.id).lease(ttl);
        let table = ctx.locks()?;
        actor::record_as_other(
            ctx,
            &actor,
            &format!("lock --renew {}", joined(plan.keys())),
        )?;
        let renewed = ops::renew(ctx.op()?, &plan)?.renewed;
        report(ctx, args, table, plan.keys(), &renewed, &actor.id)?;
        return Ok(ExitCode::Success);
    }
    let plan = LockPlan::new(keys, &actor.id, args.reason.as_deref())?
        .shared(args.shared)
        .lease(ttl)
        .wait(args.wait.map(Duration::from_secs));
    let table = ctx.locks()?;
    let keys = plan.keys();
    actor::record_as_other(ctx, &actor, &format!("lock {}", joined(keys)))?;
    match ops::lock(ctx.op()?, &plan) {
        Ok(done) => report(ctx, args, table, keys, &done.acquired, &actor.id)?,
        Err(LockError::Held(conflicts)) => {
            if args.json {
                let now = unix_now();
                ctx.out.json(&Report {
                    acquired: Vec::new(),
                    conflicts: conflicts
                        .iter()
                        .map(|c| LockJson::new(&c.held.record, table, now))
                        .collect(),
                })?;
            }
            return Err(LockError::Held(conflicts).into());
        }
        Err(e) => return Err(e.into()),
    }
    Ok(ExitCode::Success)
}

fn report(
    ctx: &Context,
    args: &LockArgs,
    table: &dyn LockStore,
    keys: &[LockKey],
    acquired: &[AcquiredLock],
    agent: &str,
) -> Result<()> {
    let now = unix_now();
    if args.json {
        return ctx.out.json(&Report {
            acquired: acquired
                .iter()
                .map(|a| LockJson::new(&a.record, table, now))
                .collect(),
            conflicts: Vec::new(),
        });
    }
    let mut s = String::new();
    for a in acquired {
        let typed = as_typed(&args.paths, keys, &a.record.filepath);
        let verb = match a.how {
            Acquired::Refreshed => "refreshed",
            Acquired::Renewed => "renewed",
            Acquired::Created | Acquired::Joined | Acquired::TookOver(_) => "acquired",
        };
        let kind = if a.record.shared {
            "Shared lock"
        } else {
            "Lock"
        };
        s.push_str(&format!("{kind} {verb} on: {}\n", shown(typed)));
        if typed != a.record.filepath {
            s.push_str(&format!("  Path: {}\n", shown(&a.record.filepath)));
        }
        // The agent's own claim (of a shared lock, not necessarily the
        // first).
        let holds = a.record.holds();
        let mine = holds
            .iter()
            .find(|h| h.agent_id == agent)
            .cloned()
            .unwrap_or_default();
        s.push_str(&format!("  Agent: {}\n", mine.agent_id));
        let others: Vec<&str> = holds
            .iter()
            .map(|h| h.agent_id.as_str())
            .filter(|id| *id != mine.agent_id)
            .collect();
        if !others.is_empty() {
            s.push_str(&format!("  Shared with: {}\n", others.join(", ")));
        }
        if let Some(end) = mine.expires_at {
            s.push_str(&format!("  Lease ends: {}\n", lease_end(end, now)));
        }
        if !mine.reason.is_empty() {
            s.push_str(&format!("  Reason: {}\n", mine.reason));
        }
        if let Some(fence) = a.record.fence {
            s.push_str(&format!("  Fencing token: {fence}\n"));
        }
        if let Acquired::TookOver(old) = &a.how {
            s.push_str(&format!(
                "  Took over the stale lock of {} (held for {})\n",
                old.record.agent_id,
                swarm_core::support::time::human_duration(old.record.age(now))
            ));
        }
    }
    ctx.out.print(&s)
}
