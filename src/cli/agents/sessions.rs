//! `swarm sessions`: the sessions `swarm launch` recorded, their agents,
//! and whether each runs now; `--forget NAME` drops a record.

use clap::Args;
use serde::Serialize;

use swarm_core::agents::sessions::resume::{live_panes, liveness};
use swarm_core::support::{sanitize, time};
use swarm_core::{Error, ExitCode, Liveness, RecordedState, Result, SessionRecord};

use crate::cli::context::Context;

/// Arguments of `swarm sessions`.
#[derive(Debug, Args)]
#[command(
    after_help = "Each session `swarm launch` starts is recorded in the project's state \
    (.swarm/sessions.json, or the shared store): its agents' ids, programs, commands and \
    conversation ids. A session is running when every agent has a live pane, partly \
    running when some do, stopped when none does (after `swarm down`, a reboot or a tmux \
    crash). `swarm resume NAME` brings a stopped or partly running session back."
)]
pub(crate) struct SessionsArgs {
    /// Print the sessions as JSON
    #[arg(long)]
    json: bool,
    /// Drop the record of this session (refused while any of its agents runs)
    #[arg(long, value_name = "NAME")]
    forget: Option<String>,
}

#[derive(Serialize)]
struct AgentJson<'a> {
    id: &'a str,
    kind: &'a str,
    command: &'a str,
    cwd: &'a str,
    conversation: Option<&'a str>,
    running: bool,
    pane: Option<&'a str>,
}

#[derive(Serialize)]
struct SessionJson<'a> {
    name: &'a str,
    state: Liveness,
    recorded_state: RecordedState,
    layout: &'a str,
    cwd: &'a str,
    launched_at: &'a str,
    resumed_at: Option<&'a str>,
    stopped_at: Option<&'a str>,
    agents: Vec<AgentJson<'a>>,
}

#[derive(Serialize)]
struct SessionsJson<'a> {
    sessions: Vec<SessionJson<'a>>,
}

/// The recorded sessions of this host (a shared store holds every
/// host's; only this host's panes can be seen and resumed here).
pub(super) fn recorded_here(ctx: &Context) -> Result<Vec<SessionRecord>> {
    let backend = ctx.backend()?;
    let here = backend.shared_host();
    Ok(backend
        .sessions
        .list()?
        .into_iter()
        .filter(|s| match (here, s.host.as_deref()) {
            (Some(here), Some(host)) => here == host,
            _ => true,
        })
        .collect())
}

impl SessionsArgs {
    /// True when it changes the records (`--forget`).
    pub(crate) fn forgets(&self) -> bool {
        self.forget.is_some()
    }
}

/// Lists the recorded sessions, or forgets one.
pub(crate) fn run(ctx: &Context, args: &SessionsArgs) -> Result<ExitCode> {
    if let Some(name) = &args.forget {
        return forget(ctx, name);
    }
    let records = recorded_here(ctx)?;
    let live = live_panes(&ctx.tmux, &ctx.paths)?;
    if args.json {
        let sessions = records
            .iter()
            .map(|r| SessionJson {
                name: &r.name,
                state: liveness(r, &live).0,
                recorded_state: r.state,
                layout: &r.layout,
                cwd: &r.cwd,
                launched_at: &r.launched_at,
                resumed_at: r.resumed_at.as_deref(),
                stopped_at: r.stopped_at.as_deref(),
                agents: r
                    .agents
                    .iter()
                    .map(|a| {
                        let pane = live.get(&a.id);
                        AgentJson {
                            id: &a.id,
                            kind: &a.kind,
                            command: &a.command,
                            cwd: &a.cwd,
                            conversation: a.conversation.as_deref(),
                            running: pane.is_some(),
                            pane: pane.map(|p| p.id.as_str()),
                        }
                    })
                    .collect(),
            })
            .collect();
        ctx.out.json(&SessionsJson { sessions })?;
        return Ok(ExitCode::Success);
    }
    if records.is_empty() {
        ctx.out
            .print("No recorded sessions: `swarm launch` records each session it starts.\n")?;
        return Ok(ExitCode::Success);
    }
    let now = time::now();
    let mut s = String::new();
    for r in &records {
        let (state, _) = liveness(r, &live);
        // Records may come from a shared store other programs write to.
        s.push_str(&format!(
            "{}  {}  ({} agent{}, layout {}, launched {}{})\n",
            ctx.out.bold(&sanitize::one_line(&r.name)),
            state.words(),
            r.agents.len(),
            if r.agents.len() == 1 { "" } else { "s" },
            sanitize::one_line(&r.layout),
            sanitize::one_line(&time::iso_for_people(&r.launched_at, now)),
            match (&r.state, &r.stopped_at) {
                (RecordedState::Stopped, Some(at)) => {
                    format!(
                        ", stopped by `swarm down` {}",
                        sanitize::one_line(&time::iso_for_people(at, now))
                    )
                }
                _ => String::new(),
            }
        ));
        for a in &r.agents {
            let pane = live.get(&a.id);
            s.push_str(&format!(
                "  {:<10} {:<10} {:<8} {}\n",
                sanitize::one_line(&a.id),
                sanitize::one_line(&a.kind),
                if pane.is_some() { "running" } else { "stopped" },
                pane.map_or_else(
                    || {
                        a.conversation
                            .as_deref()
                            .map(|c| format!("conversation {}", sanitize::one_line(c)))
                            .unwrap_or_default()
                    },
                    |p| p.id.to_string()
                )
            ));
        }
    }
    if records
        .iter()
        .any(|r| liveness(r, &live).0 != Liveness::Running)
    {
        s.push_str("\nBring one back with: swarm resume NAME\n");
    }
    ctx.out.print(&s)?;
    Ok(ExitCode::Success)
}

/// Drops one record; refused while an agent of it runs.
fn forget(ctx: &Context, name: &str) -> Result<ExitCode> {
    let store = &ctx.backend()?.sessions;
    let Some(record) = store.get(name)? else {
        return Err(Error::NoRecordedSession(Some(sanitize::one_line(name))));
    };
    let live = live_panes(&ctx.tmux, &ctx.paths)?;
    if liveness(&record, &live).0 != Liveness::Stopped {
        return Err(Error::Invalid(format!(
            "session {} is running: stop it first with `swarm down --session {}`",
            sanitize::one_line(name),
            sanitize::one_line(name)
        )));
    }
    store.forget(name)?;
    ctx.out.print(&format!(
        "Forgot session {}: `swarm resume` can no longer bring it back.\n",
        sanitize::one_line(name)
    ))?;
    Ok(ExitCode::Success)
}
