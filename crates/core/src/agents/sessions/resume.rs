//! What runs of a recorded session, read from tmux, and bringing back the
//! agents that do not: each started again in a new pane of the session's
//! window (a new session with the recorded layout when the window is
//! gone), the pane labelled with the agent's recorded id before anything
//! registers it, so that discovery binds that id to it and to no other.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::agents::agent_matcher::AgentMatcher;
use crate::agents::discovery::{self, DiscoverOptions, Discovery};
use crate::agents::launch;
use crate::agents::profile::Profiles;
use crate::agents::registry_store::RegistryStore;
use crate::error::Result;
use crate::store::Paths;
use crate::tmux::{Pane, PaneId, Tmux, TmuxError};

use super::record::{Liveness, SessionAgent, SessionRecord};
use super::restart::{self, Restart};

/// This project's agent panes alive on the tmux server, by the agent id
/// they are labelled with. No server: none.
pub fn live_panes(tmux: &Tmux, paths: &Paths) -> Result<BTreeMap<String, Pane>> {
    let panes = match tmux.list_panes() {
        Ok((panes, _)) => panes,
        Err(TmuxError::NoServer { .. }) => Vec::new(),
        Err(e) => return Err(e.into()),
    };
    let fingerprint = paths.fingerprint();
    Ok(panes
        .into_iter()
        .filter(|p| !p.dead && p.project_label.as_deref() == Some(fingerprint.as_str()))
        .filter_map(|p| Some((p.agent_label.clone()?, p)))
        .collect())
}

/// Which of `record`'s agents run now, and so whether the session does.
pub fn liveness<'a>(
    record: &'a SessionRecord,
    live: &BTreeMap<String, Pane>,
) -> (Liveness, Vec<&'a SessionAgent>) {
    let missing: Vec<&SessionAgent> = record
        .agents
        .iter()
        .filter(|a| !live.contains_key(&a.id))
        .collect();
    let state = Liveness::of(record.agents.len() - missing.len(), record.agents.len());
    (state, missing)
}

/// One agent started again.
#[derive(Clone, Debug)]
pub struct Restarted {
    /// Its recorded id.
    pub id: String,
    /// Its new pane (`None`: the pane closed at once).
    pub pane: Option<PaneId>,
    /// The id discovery gave the pane, when it is not the recorded one
    /// (another live pane holds that id).
    pub rebound_as: Option<String>,
    /// How it was started.
    pub how: Restart,
}

/// What `resume` did.
#[derive(Debug)]
pub struct Resumed {
    /// The agents started again, in the record's order.
    pub agents: Vec<Restarted>,
    /// The registry refresh that bound them.
    pub discovery: Discovery,
    /// The session was opened anew (its window was gone).
    pub new_session: bool,
}

/// Everything `resume` needs besides the record.
pub struct ResumeContext<'a> {
    /// The tmux server.
    pub tmux: &'a Tmux,
    /// The registry.
    pub registry: &'a dyn RegistryStore,
    /// The project.
    pub paths: &'a Paths,
    /// What counts as an agent.
    pub matcher: &'a AgentMatcher,
    /// Discovery's settings.
    pub opts: &'a DiscoverOptions,
    /// The profiles, for the resume forms.
    pub profiles: &'a Profiles,
}

/// Starts `missing` (agents of `record` without a live pane) again.
/// `sole`: the profiles of which the project's recorded sessions hold
/// exactly one agent (their "most recent conversation" is its own).
pub fn resume(
    cx: &ResumeContext<'_>,
    record: &SessionRecord,
    missing: &[&SessionAgent],
    sole: &[String],
) -> Result<Resumed> {
    let plans: Vec<Restart> = missing
        .iter()
        .map(|a| restart::plan(cx.profiles, a, sole.contains(&a.kind)))
        .collect();
    start(cx, record, missing, plans)
}

/// Starts `agents` of `record` afresh, each with a new conversation where
/// its program takes one: their resume form was tried and their pane
/// closed at once (the program found no conversation to continue).
pub fn start_afresh(
    cx: &ResumeContext<'_>,
    record: &SessionRecord,
    agents: &[&SessionAgent],
) -> Result<Resumed> {
    let plans: Vec<Restart> = agents
        .iter()
        .map(|a| {
            let (command, conversation) = restart::fresh(cx.profiles, &a.kind, &a.command);
            Restart::Fresh {
                command,
                conversation,
                why: format!("{} could not continue its conversation", a.kind),
            }
        })
        .collect();
    start(cx, record, agents, plans)
}

/// Opens a pane per agent running its planned command, labelled with its
/// id, and registers them.
fn start(
    cx: &ResumeContext<'_>,
    record: &SessionRecord,
    missing: &[&SessionAgent],
    plans: Vec<Restart>,
) -> Result<Resumed> {
    let commands: Vec<String> = plans
        .iter()
        .map(|p| match p {
            Restart::Resume(command) | Restart::Fresh { command, .. } => command.clone(),
        })
        .collect();
    let ids: Vec<String> = missing.iter().map(|a| a.id.clone()).collect();
    // Each in the directory it worked in (its worktree, when it had one),
    // while that still exists.
    let cwds: Vec<PathBuf> = missing
        .iter()
        .map(|a| Path::new(&a.cwd))
        .map(|d| if d.is_dir() { d } else { cx.paths.root() })
        .map(Path::to_path_buf)
        .collect();
    let into = session_pane(cx.tmux, &record.name)?;
    let new_session = into.is_none();
    // An agent that had a workspace gets its slot and ports back.
    let spaces = crate::worktrees::workspaces(cx.paths);
    let envs: Vec<Vec<(String, String)>> = ids
        .iter()
        .map(|id| {
            spaces
                .iter()
                .find(|w| &w.agent == id)
                .map(|w| w.env())
                .unwrap_or_default()
        })
        .collect();
    let panes = launch::open_panes(
        cx.tmux,
        cx.paths,
        &record.name,
        &record.layout,
        &commands,
        into.as_ref(),
        Some(&ids),
        Some(&cwds),
        &envs,
    )?;
    let discovery =
        discovery::register_panes(cx.tmux, cx.registry, cx.paths, cx.matcher, &panes, cx.opts)?;
    let agents = missing
        .iter()
        .zip(plans)
        .enumerate()
        .map(|(i, (agent, how))| {
            let pane = panes.get(i).cloned();
            let bound = pane
                .as_ref()
                .and_then(|p| discovery.registry.find_by_pane(p.as_str()));
            Restarted {
                id: agent.id.clone(),
                pane: pane.filter(|_| bound.is_some()),
                rebound_as: bound.map(|b| b.id.to_string()).filter(|b| *b != agent.id),
                how,
            }
        })
        .collect();
    Ok(Resumed {
        agents,
        discovery,
        new_session,
    })
}

/// A live pane of the tmux session `name` to split, when the session
/// exists.
fn session_pane(tmux: &Tmux, name: &str) -> Result<Option<PaneId>> {
    let panes = match tmux.list_panes() {
        Ok((panes, _)) => panes,
        Err(TmuxError::NoServer { .. }) => return Ok(None),
        Err(e) => return Err(e.into()),
    };
    Ok(panes
        .into_iter()
        .find(|p| p.session == name && !p.dead)
        .map(|p| p.id))
}
