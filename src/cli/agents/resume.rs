//! `swarm resume [SESSION]`: bring back a recorded session whose panes are
//! gone (after `swarm down`, a reboot or a tmux crash), or the agents of a
//! partly running one that are missing: the same layout, the same ids on
//! the new panes, each agent continuing its conversation where its program
//! can; then the messages queued for them while they were down.

use std::io::IsTerminal;
use std::time::Duration;

use clap::Args;
use serde::Serialize;

use swarm_core::a2a::TaskStore;
use swarm_core::agents::sessions::restart::Restart;
use swarm_core::agents::sessions::resume::{self, live_panes, liveness};
use swarm_core::hooks::install;
use swarm_core::ops::{self, RedeliverPlan, Redelivered, SendPlan};
use swarm_core::support::{sanitize, time};
use swarm_core::{
    Error, ExitCode, Liveness, LockEntry, MessageType, PaneId, RecordedState, Registry, Result,
    ResumeContext, Resumed, Selection, SessionRecord, clean_content,
};

use super::launch::{attach_command, monitor_command, stop_command, wait_until_ready};
use super::sessions::recorded_here;
use crate::cli::context::Context;
use swarm_core::agents::launch;

/// Arguments of `swarm resume`.
#[derive(Debug, Args)]
#[command(
    after_help = "Each agent gets its recorded id again, so its inbox, unread messages, \
    locks and pending acknowledgements carry on (after `swarm down`, which released its \
    locks, it comes back without them). An agent whose program can continue a conversation \
    (Claude Code, Gemini CLI, Codex CLI, the demo agent) continues its own; any other starts \
    afresh and gets one message saying what it had: its claimed tasks, its locks, how many \
    unread messages wait. Messages sent while the agents were down are typed in once each \
    is idle. A session that is running is left as it is."
)]
pub(crate) struct ResumeArgs {
    /// The recorded session [default: the one recorded session that is not running]
    #[arg(value_name = "SESSION")]
    session: Option<String>,
    /// Do not attach to the session afterwards (never attaches without a terminal)
    #[arg(long)]
    no_attach: bool,
    /// Print what was resumed as JSON (implies --no-attach)
    #[arg(long)]
    json: bool,
    /// Without attaching: wait up to this many seconds for every agent to
    /// draw its prompt before typing in what waits for it (0: do not wait;
    /// the project's watcher types it in once each is idle)
    #[arg(long, value_name = "SECONDS", default_value_t = 30,
          value_parser = clap::value_parser!(u64).range(0..=600))]
    ready_timeout: u64,
}

#[derive(Serialize)]
struct AgentJson<'a> {
    id: &'a str,
    pane: Option<&'a str>,
    /// Continues its conversation (false: started afresh).
    resumed: bool,
    command: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    fresh_because: Option<&'a str>,
    /// The id discovery gave its pane instead of its own.
    #[serde(skip_serializing_if = "Option::is_none")]
    rebound_as: Option<&'a str>,
    ready: bool,
}

#[derive(Serialize)]
struct ReportJson<'a> {
    session: &'a str,
    /// What ran before: `running` (nothing was done), `partly_running` or
    /// `stopped`.
    was: Liveness,
    new_session: bool,
    agents: Vec<AgentJson<'a>>,
    /// Queued messages typed in (or held until the pane is safe).
    redelivered: usize,
    attach: String,
    stop: String,
}

/// Picks the session, brings back its missing agents, types in what
/// waits for them, reports and attaches.
pub(crate) fn run(ctx: &Context, args: &ResumeArgs) -> Result<ExitCode> {
    let records = recorded_here(ctx)?;
    let live = live_panes(&ctx.tmux, &ctx.paths)?;
    let record = choose(&records, args.session.as_deref(), &live)?;
    let (was, missing) = liveness(record, &live);
    let attach_cmd = attach_command(ctx.tmux.server(), &record.name);
    let stop_cmd = stop_command(ctx.tmux.server(), ctx.paths.root(), &record.name);
    if was == Liveness::Running {
        if args.json {
            ctx.out.json(&ReportJson {
                session: &record.name,
                was,
                new_session: false,
                agents: Vec::new(),
                redelivered: 0,
                attach: attach_cmd,
                stop: stop_cmd,
            })?;
        } else {
            ctx.out.print(&format!(
                "Session {} is running (all {} agents have their panes): nothing to resume.\nAttach with: {attach_cmd}\n",
                sanitize::one_line(&record.name),
                record.agents.len()
            ))?;
        }
        return Ok(ExitCode::Success);
    }
    // "The most recent conversation in the directory" is an agent's own
    // only when no other agent of its program shares the project.
    let mut sole: Vec<String> = Vec::new();
    for a in records.iter().flat_map(|r| &r.agents) {
        let n = records
            .iter()
            .flat_map(|r| &r.agents)
            .filter(|b| b.kind == a.kind)
            .count();
        if n == 1 {
            sole.push(a.kind.clone());
        }
    }
    let matcher = ctx.matcher()?;
    let opts = ctx.discover_options(None)?;
    let profiles = ctx.profiles()?;
    let backend = ctx.backend()?;
    let cx = ResumeContext {
        tmux: &ctx.tmux,
        registry: backend.registry.as_ref(),
        paths: &ctx.paths,
        matcher: &matcher,
        opts: &opts,
        profiles: &profiles,
    };
    // An agent in a worktree reads its hooks from there: one made before
    // the project's hooks were installed gets them before it starts.
    for a in &missing {
        let cwd = std::path::Path::new(&a.cwd);
        if cwd != ctx.paths.root() && cwd.starts_with(ctx.paths.worktrees_dir()) && cwd.is_dir() {
            for note in install::copy_to_worktree(&ctx.paths, cwd) {
                ctx.out.note(&note);
            }
        }
    }
    let mut resumed = resume::resume(&cx, record, &missing, &sole)?;
    // A session opened anew gets its monitor pane back, last, as launch
    // added it.
    if resumed.new_session && record.monitor {
        launch::add_monitor(&ctx.tmux, &ctx.paths, &record.name, &monitor_command(ctx)?)?;
    }
    for w in &resumed.discovery.warnings {
        ctx.out.warn(w);
    }
    if let Ok(op) = ctx.op() {
        for w in op.record_roster(&resumed.discovery, false) {
            ctx.out.warn(&w);
        }
    }
    if let Err(e) = ctx.op().and_then(|op| op.keep_watch()) {
        ctx.out.warn(&format!(
            "could not start the project's watcher: {e} (run `swarm watch` in a terminal of its own)"
        ));
    }
    let interactive = std::io::stdin().is_terminal() && std::io::stdout().is_terminal();
    let attaching = !(args.no_attach || args.json || !interactive);
    let mut starting = ready(ctx, args, attaching, &resumed)?;
    if !attaching && args.ready_timeout > 0 {
        // A program that finds no conversation to continue exits at once:
        // its agent starts afresh instead.
        let live = live_panes(&ctx.tmux, &ctx.paths)?;
        let failed: Vec<_> = resumed
            .agents
            .iter()
            .filter(|a| matches!(a.how, Restart::Resume(_)) && !live.contains_key(&a.id))
            .filter_map(|a| record.agent(&a.id))
            .collect();
        if !failed.is_empty() {
            let again = resume::start_afresh(&cx, record, &failed)?;
            for w in &again.discovery.warnings {
                ctx.out.warn(w);
            }
            if let Ok(op) = ctx.op() {
                for w in op.record_roster(&again.discovery, false) {
                    ctx.out.warn(&w);
                }
            }
            starting.extend(ready(ctx, args, attaching, &again)?);
            for a in again.agents {
                if let Some(slot) = resumed.agents.iter_mut().find(|x| x.id == a.id) {
                    *slot = a;
                }
            }
            resumed.discovery = again.discovery;
        }
    }
    note_in_record(ctx, record, &resumed)?;
    let bound = bound(&resumed);
    let mut registry = resumed.discovery.registry.clone();
    registry
        .agents
        .retain(|a| bound.iter().any(|(_, id)| a.id == id.as_str()));
    let redelivered = redeliver_queued(ctx, &registry)?;
    for a in &resumed.agents {
        if let Restart::Fresh { why, .. } = &a.how
            && bound.iter().any(|(_, id)| *id == a.id)
        {
            tell_what_it_had(ctx, &resumed.discovery.registry, &record.name, &a.id, why)?;
        }
    }
    for a in resumed.agents.iter().filter(|a| a.pane.is_none()) {
        ctx.out.warn(&format!(
            "{}'s pane closed right away: check that its command runs in {}",
            a.id,
            ctx.paths.root().display()
        ));
    }
    for a in &resumed.agents {
        if let Some(other) = &a.rebound_as {
            ctx.out.warn(&format!(
                "{} is in use by another live pane, so its new pane got the id {other}",
                a.id
            ));
        }
    }
    if args.json {
        ctx.out.json(&ReportJson {
            session: &record.name,
            was,
            new_session: resumed.new_session,
            agents: resumed
                .agents
                .iter()
                .map(|a| {
                    let (command, fresh_because) = match &a.how {
                        Restart::Resume(c) => (c.as_str(), None),
                        Restart::Fresh { command, why, .. } => {
                            (command.as_str(), Some(why.as_str()))
                        }
                    };
                    AgentJson {
                        id: &a.id,
                        pane: a.pane.as_ref().map(PaneId::as_str),
                        resumed: fresh_because.is_none(),
                        command,
                        fresh_because,
                        rebound_as: a.rebound_as.as_deref(),
                        ready: a.pane.is_some() && !starting.contains(&a.id),
                    }
                })
                .collect(),
            redelivered,
            attach: attach_cmd,
            stop: stop_cmd,
        })?;
        return Ok(ExitCode::Success);
    }
    let mut s = format!(
        "Resumed tmux session {} ({}): {} agent{} back\n",
        ctx.out.bold(&sanitize::one_line(&record.name)),
        if resumed.new_session {
            "opened anew".to_owned()
        } else {
            format!(
                "{} of its agents were still running",
                record.agents.len() - missing.len()
            )
        },
        resumed.agents.len(),
        if resumed.agents.len() == 1 { "" } else { "s" },
    );
    for a in &resumed.agents {
        let how = match &a.how {
            Restart::Resume(_) => "continues its conversation".to_owned(),
            Restart::Fresh { why, .. } => format!("started afresh ({why}); told what it had"),
        };
        s.push_str(&format!(
            "  {:<10} {:<5} {how}{}\n",
            a.id,
            a.pane.as_ref().map_or("-", PaneId::as_str),
            if starting.contains(&a.id) {
                "  (still starting)"
            } else {
                ""
            }
        ));
    }
    if redelivered > 0 {
        s.push_str(&format!(
            "{redelivered} message{} queued while they were down went to their panes (or wait until each is idle).\n",
            if redelivered == 1 { "" } else { "s" }
        ));
    }
    if !attaching {
        s.push_str(&format!(
            "\nAttach with: {attach_cmd}\nStop with:   {stop_cmd}\n"
        ));
        ctx.out.print(&s)?;
        return Ok(ExitCode::Success);
    }
    ctx.out.print(&s)?;
    ctx.tmux.attach(&record.name)?;
    Ok(ExitCode::Success)
}

/// The resumed agents bound to their own ids, with their panes.
fn bound(resumed: &Resumed) -> Vec<(PaneId, String)> {
    resumed
        .agents
        .iter()
        .filter(|a| a.rebound_as.is_none())
        .filter_map(|a| Some((a.pane.clone()?, a.id.clone())))
        .collect()
}

/// Waits (unless attaching, or told not to) until the resumed agents have
/// drawn their prompts or their panes closed; returns those still
/// starting.
fn ready(
    ctx: &Context,
    args: &ResumeArgs,
    attaching: bool,
    resumed: &Resumed,
) -> Result<Vec<String>> {
    if attaching || args.ready_timeout == 0 {
        return Ok(Vec::new());
    }
    wait_until_ready(
        ctx,
        &bound(resumed),
        &resumed.discovery.registry,
        Duration::from_secs(args.ready_timeout),
    )
    // An agent showing a dialog is up; the watcher tells the person.
    .map(|(starting, _dialogs)| starting)
}

/// The session to resume: the one named, else the one recorded session
/// that is not running.
fn choose<'a>(
    records: &'a [SessionRecord],
    name: Option<&str>,
    live: &std::collections::BTreeMap<String, swarm_core::Pane>,
) -> Result<&'a SessionRecord> {
    if let Some(name) = name {
        return records
            .iter()
            .find(|r| r.name == name)
            .ok_or_else(|| Error::NoRecordedSession(Some(sanitize::one_line(name))));
    }
    let resumable: Vec<&SessionRecord> = records
        .iter()
        .filter(|r| liveness(r, live).0 != Liveness::Running)
        .collect();
    match (resumable.as_slice(), records) {
        ([one], _) => Ok(one),
        ([], []) => Err(Error::NoRecordedSession(None)),
        // Every one runs: the first says so.
        ([], [first, ..]) => Ok(first),
        (several, _) => Err(Error::WhichRecordedSession(
            several
                .iter()
                .map(|r| sanitize::one_line(&r.name))
                .collect(),
        )),
    }
}

/// Marks the session running again, with the new conversation ids of the
/// agents started afresh.
fn note_in_record(ctx: &Context, record: &SessionRecord, resumed: &Resumed) -> Result<()> {
    let now = time::utc_iso(time::now());
    ctx.backend()?.sessions.update(&record.name, &mut |r| {
        r.state = RecordedState::Running;
        r.resumed_at = Some(now.clone());
        r.stopped_at = None;
        for a in &resumed.agents {
            if let Restart::Fresh { conversation, .. } = &a.how
                && let Some(agent) = r.agents.iter_mut().find(|x| x.id == a.id)
            {
                agent.conversation = conversation.clone();
            }
        }
    })?;
    Ok(())
}

/// Types in, once each, the messages queued for the agents of `registry`
/// (the resumed ones, on their new panes); a pane that is not safe yet
/// holds them for the watcher. Returns how many copies went.
fn redeliver_queued(ctx: &Context, registry: &Registry) -> Result<usize> {
    if registry.agents.is_empty() {
        return Ok(0);
    }
    // Nothing is refused: they were queued while the session was down.
    let plan = RedeliverPlan::all_queued().force(true);
    let report = ops::redeliver(ctx.op()?, registry, &plan)?;
    Ok(match report.done {
        Redelivered::Tried(done) => done.iter().map(|r| r.outcomes.len()).sum(),
        Redelivered::AtLimit { .. } | Redelivered::OverBudget(_) => 0,
    })
}

/// Sends `agent`, started afresh, one message saying what it had: its
/// claimed tasks, its locks and how many unread messages wait.
fn tell_what_it_had(
    ctx: &Context,
    registry: &Registry,
    session: &str,
    agent: &str,
    why: &str,
) -> Result<()> {
    let backend = ctx.backend()?;
    let mut notes = Vec::new();
    let tasks: Vec<String> = TaskStore::new(backend.a2a.as_ref())
        .all(&mut notes)?
        .into_iter()
        .filter(|t| t.assigned_to.as_deref() == Some(agent) && t.status.is_active())
        .map(|t| {
            format!(
                "{} \"{}\" ({})",
                swarm_core::domain::short(&t.task_id),
                sanitize::one_line(&t.objective),
                t.status.as_str()
            )
        })
        .collect();
    let locks: Vec<String> = ctx
        .locks()?
        .list()?
        .into_iter()
        .filter_map(|e| match e {
            LockEntry::Held(h) if h.record.holds().iter().any(|c| c.agent_id == agent) => {
                Some(sanitize::one_line(&h.record.filepath))
            }
            _ => None,
        })
        .collect();
    let (cursor, _) = backend.log.cursor(agent)?;
    let unread = backend
        .log
        .inbox(agent, cursor.as_ref(), &Selection::Recent, Some(0))?
        .unread;
    let list = |items: &[String]| {
        if items.is_empty() {
            "none".to_owned()
        } else {
            items.join(", ")
        }
    };
    let body = format!(
        "swarm resumed session {session}: you are {agent} again, started without your earlier \
         conversation ({why}). What you had: tasks claimed: {}; locks held: {}; unread messages: \
         {unread}{}.",
        list(&tasks),
        list(&locks),
        if unread > 0 {
            " (read them with `swarm inbox --new`)"
        } else {
            ""
        }
    );
    let operator = ctx.config()?.messaging.operator.clone();
    let plan = SendPlan::new(
        &operator,
        agent,
        MessageType::builtin("INFO"),
        clean_content(&body)?,
    )
    .system(true);
    let report = ops::send(ctx.op()?, registry, &plan)?;
    for w in &report.warnings {
        ctx.out.warn(w);
    }
    Ok(())
}
