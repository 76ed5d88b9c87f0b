//! `swarm down`: stop a session opened by `swarm launch`, release the
//! locks of the agents that left with it, and (with `--remove-worktrees`)
//! remove the agents' worktrees that hold nothing uncommitted or unmerged.

use clap::Args;

use swarm_core::agents::launch;
use swarm_core::ops::{self, UnlockPlan};
use swarm_core::support::{sanitize, time};
use swarm_core::worktrees::{self, Keep, RemovalVerdict, Repository};
use swarm_core::{
    AgentStatus, Error, ExitCode, LockEntry, LockKey, RecordedState, Released, Result,
};

use crate::cli::actor;
use crate::cli::context::Context;

/// Arguments of `swarm down`.
#[derive(Debug, Args)]
#[command(
    after_help = "Without --session, down stops the tmux session the registered agents \
    run in. When they run in several sessions, it lists them and exits with 2 (a usage error: \
    name one with --session); with no agents registered, it stops swarm-<project directory \
    name>, the name `swarm launch` gives by default. Agents' worktrees are never deleted with \
    uncommitted changes or unmerged commits in them; --remove-worktrees removes the others (and \
    their branches), says which it kept and why, and works when the session is gone already."
)]
pub(crate) struct DownArgs {
    /// Session to stop [default: the registered agents' session]
    #[arg(long, value_name = "NAME")]
    session: Option<String>,
    /// Also remove the worktrees (and branches) of agents that left, when clean and merged
    #[arg(long)]
    remove_worktrees: bool,
}

/// Kills the session, drops its agents from the registry and releases
/// their locks.
pub(crate) fn run(ctx: &Context, args: &DownArgs) -> Result<ExitCode> {
    let session = match &args.session {
        Some(name) => launch::session_name(name)?,
        None => registered_session(ctx)?,
    };
    let matcher = ctx.matcher()?;
    let opts = ctx.discover_options(None)?;
    // A session recorded as running whose tmux server died can still be
    // stopped for good: its record is marked stopped and its agents' locks
    // released. Stopping it a second time finds nothing to stop.
    let record = ctx.backend()?.sessions.get(&session)?;
    let stopped = launch::down(
        &ctx.tmux,
        ctx.backend()?.registry.as_ref(),
        &ctx.paths,
        &matcher,
        &opts,
        &session,
        record
            .as_ref()
            .is_some_and(|r| r.state == RecordedState::Running),
    );
    let (found, killed) = match stopped {
        // Cleaning up the worktrees after the session is gone.
        Err(Error::NoSession(_)) if args.remove_worktrees => {
            let mut s = format!(
                "No tmux session {} to stop.\n",
                sanitize::one_line(&session)
            );
            let active = match ctx.registry()? {
                Some(r) => r.active().map(|a| a.id.to_string()).collect(),
                None => Vec::new(),
            };
            s.push_str(&remove_worktrees(ctx, &active)?);
            ctx.out.print(&s)?;
            return Ok(ExitCode::Success);
        }
        other => other?,
    };
    for w in &found.warnings {
        ctx.out.warn(w);
    }
    if let Ok(op) = ctx.op() {
        for w in op.record_roster(&found, true) {
            ctx.out.warn(&w);
        }
    }
    // Kept, not forgotten: `swarm resume` can bring it back.
    let now = time::utc_iso(time::now());
    let recorded = ctx.backend()?.sessions.update(&session, &mut |r| {
        r.state = RecordedState::Stopped;
        r.stopped_at = Some(now.clone());
    })?;
    let mut s = format!(
        "{} {}; {} agent{} left the registry, {} remain.\n",
        if killed {
            "Stopped tmux session"
        } else {
            "Its tmux server had already stopped; marked stopped: session"
        },
        // It may come from the registry, which other tools write too.
        sanitize::one_line(&session),
        found.dropped.len(),
        if found.dropped.len() == 1 { "" } else { "s" },
        found.registry.agents.len()
    );
    // Its recorded agents left too, even those an earlier refresh had
    // already dropped from the registry.
    let mut leaving = found.dropped.clone();
    for a in record.iter().flat_map(|r| &r.agents) {
        if !leaving.contains(&a.id) && found.registry.find(&a.id).is_none() {
            leaving.push(a.id.clone());
        }
    }
    let (released, holders) = release_locks(ctx, &leaving)?;
    if released > 0 {
        let audit = ctx.paths.audit_log();
        s.push_str(&format!(
            "Released {released} lock{} of {} (each recorded in {}).\n",
            if released == 1 { "" } else { "s" },
            holders.join(", "),
            ctx.paths.relative(&audit).display()
        ));
    }
    if args.remove_worktrees {
        let active: Vec<String> = found.registry.active().map(|a| a.id.to_string()).collect();
        s.push_str(&remove_worktrees(ctx, &active)?);
    } else {
        let kept = worktrees::agent_worktree_dirs(&ctx.paths).len();
        if kept > 0 {
            s.push_str(&format!(
                "{kept} agent worktree{} stay{} in {} (`swarm changes` shows their work; \
                 `swarm down --remove-worktrees` removes those that are clean and merged).\n",
                if kept == 1 { "" } else { "s" },
                if kept == 1 { "s" } else { "" },
                ctx.paths.relative(&ctx.paths.worktrees_dir()).display()
            ));
        }
    }
    if recorded {
        s.push_str(&format!(
            "Its record is kept: bring it back with `swarm resume {}`.\n",
            sanitize::one_line(&session)
        ));
    }
    ctx.out.print(&s)?;
    Ok(ExitCode::Success)
}

/// Removes the agents' worktrees that may go (their agent is not in
/// `active`, nothing uncommitted, every commit merged) with their
/// branches, and says what it removed and what it kept, and why.
fn remove_worktrees(ctx: &Context, active: &[String]) -> Result<String> {
    if worktrees::agent_worktree_dirs(&ctx.paths).is_empty() {
        return Ok("No agent worktrees to remove.\n".into());
    }
    let repo = Repository::open(ctx.paths.root())?;
    let verdicts = worktrees::removal_verdicts(&repo, &ctx.paths, active)?;
    let verdicts = worktrees::remove(&repo, verdicts);
    let mut s = String::new();
    for v in &verdicts {
        let place = ctx.paths.relative(&v.path).display().to_string();
        let branch = sanitize::one_line(&v.branch);
        match &v.keep {
            None => {
                s.push_str(&format!("Removed worktree {place} of {}", v.agent));
                match &v.branch_kept {
                    None => s.push_str(&format!(" and its branch {branch}.\n")),
                    Some(why) => s.push_str(&format!(
                        "; kept its branch {branch}: {}\n",
                        sanitize::one_line(why)
                    )),
                }
            }
            Some(keep) => s.push_str(&format!(
                "Kept worktree {place} of {}: {}.\n",
                v.agent,
                kept_because(keep, v)
            )),
        }
    }
    Ok(s)
}

/// Why a worktree stayed, in words.
fn kept_because(keep: &Keep, v: &RemovalVerdict) -> String {
    match keep {
        Keep::Running => format!("{} is still running", v.agent),
        Keep::Uncommitted(files) => {
            let shown: Vec<String> = files
                .iter()
                .take(5)
                .map(|f| sanitize::one_line(f))
                .collect();
            format!(
                "{} uncommitted file{} ({}{})",
                files.len(),
                if files.len() == 1 { "" } else { "s" },
                shown.join(", "),
                if files.len() > shown.len() {
                    ", ..."
                } else {
                    ""
                }
            )
        }
        Keep::Unmerged(n) => format!(
            "{n} commit{} on {} not merged (`swarm merge {}`)",
            if *n == 1 { "" } else { "s" },
            sanitize::one_line(&v.branch),
            v.agent
        ),
        Keep::Refused(why) => sanitize::one_line(why),
    }
}

/// The session the registered agents of this host run in; with none
/// registered, the one `launch` names by default. Agents in several
/// sessions are a usage error listing them: stopping one of them is a
/// choice only the user can make.
fn registered_session(ctx: &Context) -> Result<String> {
    let here = ctx.backend()?.shared_host();
    let mut sessions: Vec<String> = Vec::new();
    for agent in ctx.registry()?.iter().flat_map(|r| r.agents.iter()) {
        let elsewhere =
            matches!((here, agent.host.as_deref()), (Some(here), Some(host)) if host != here);
        if agent.status == AgentStatus::Dead
            || agent.session_name.is_empty()
            || elsewhere
            || sessions.contains(&agent.session_name)
        {
            continue;
        }
        sessions.push(agent.session_name.clone());
    }
    sessions.sort();
    match sessions.len() {
        0 => Ok(launch::default_session_name(ctx.paths.root())),
        1 => Ok(sessions.remove(0)),
        _ => Err(Error::WhichSession(
            sessions.iter().map(|s| sanitize::one_line(s)).collect(),
        )),
    }
}

/// Releases every lock held by one of `agents` (which have left the
/// swarm, so nobody else ever would), each recorded in the audit log as a
/// forced release by whoever runs `down`; of a shared lock others still
/// hold, only the leaving agents' claims. Returns how many were released
/// and whose they were.
fn release_locks(ctx: &Context, agents: &[String]) -> Result<(usize, Vec<String>)> {
    if agents.is_empty() {
        return Ok((0, Vec::new()));
    }
    let locks = ctx.locks()?;
    let mut keys: Vec<LockKey> = Vec::new();
    // Claims of leaving agents on shared locks that others keep.
    let mut claims: Vec<(LockKey, String)> = Vec::new();
    for entry in locks.list()? {
        let LockEntry::Held(held) = entry else {
            continue;
        };
        let Some(key) = held.key else { continue };
        let holds = held.record.holds();
        let leaving: Vec<String> = holds
            .iter()
            .map(|h| h.agent_id.clone())
            .filter(|id| agents.contains(id))
            .collect();
        if leaving.is_empty() {
            continue;
        }
        if leaving.len() == holds.len() {
            keys.push(key);
        } else {
            claims.extend(leaving.into_iter().map(|id| (key.clone(), id)));
        }
    }
    if keys.is_empty() && claims.is_empty() {
        return Ok((0, Vec::new()));
    }
    let by = match actor::detect(ctx)? {
        Some(agent) => agent,
        None => ctx.config()?.messaging.operator.clone(),
    };
    let mut holders: Vec<String> = Vec::new();
    let mut released = 0;
    if !keys.is_empty() {
        let plan = UnlockPlan::new(keys, &by).force(true);
        for (_, how) in ops::unlock(ctx.op()?, &plan)?.released {
            if let Released::Removed(held) | Released::Forced(held) = how {
                released += 1;
                holders.extend(held.record.holds().into_iter().map(|h| h.agent_id));
            }
        }
    }
    for (key, agent) in claims {
        let plan = UnlockPlan::new(vec![key], &agent);
        for (_, how) in ops::unlock(ctx.op()?, &plan)?.released {
            if let Released::Left(_) | Released::Removed(_) = how {
                released += 1;
                holders.push(agent.clone());
            }
        }
    }
    // In the registry's order, each once.
    let holders = agents
        .iter()
        .filter(|a| holders.contains(a))
        .cloned()
        .collect();
    Ok((released, holders))
}
