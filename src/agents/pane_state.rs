//! What each agent's pane shows right now, for people: `swarm agents`,
//! `swarm doctor` and the monitor. The screens of all panes are captured
//! in one tmux call.

use serde::Serialize;

use crate::agents::agent_matcher::{AgentMatcher, ForegroundKind};
use crate::agents::profile::Profiles;
use crate::agents::registry::AgentRecord;
use crate::agents::screen::ScreenState;
use crate::tmux::{PaneId, ScreenDetail, Tmux};

/// One agent's pane, observed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub(crate) struct PaneState {
    /// `idle`, `typing`, `busy`, `dialog`, `unknown` (screen read by the
    /// profile), `not read` (its profile does not read screens), `shell`,
    /// `other` (something else in the foreground), `gone`.
    pub state: String,
    /// The profile that applies (agents only).
    pub profile: Option<String>,
    /// Whether a message would be typed in right now.
    pub deliverable: bool,
    /// For a held-back message: why, in words.
    pub reason: Option<String>,
}

impl PaneState {
    fn plain(state: &str, reason: &str) -> PaneState {
        PaneState {
            state: state.to_owned(),
            profile: None,
            deliverable: false,
            reason: Some(reason.to_owned()),
        }
    }
}

/// Observes the panes of `agents`, in order. `here` is this host's name
/// on a store shared by several hosts: the panes of agents on other hosts
/// are not on this tmux server, and read as `remote`.
pub(crate) fn observe(
    tmux: &Tmux,
    matcher: &AgentMatcher,
    profiles: &Profiles,
    agents: &[&AgentRecord],
    here: Option<&str>,
) -> Vec<PaneState> {
    if agents.is_empty() {
        return Vec::new();
    }
    // Only panes that exist with the registered process count: a pid in
    // the registry may since belong to something else.
    let live: Vec<(PaneId, u32)> = tmux
        .list_panes()
        .map(|(panes, _)| panes.into_iter().map(|p| (p.id, p.pid)).collect())
        .unwrap_or_default();
    let panes: Vec<Option<PaneId>> = agents
        .iter()
        .map(|a| {
            a.tmux_pane_id
                .clone()
                .filter(|p| live.iter().any(|(id, pid)| id == p && *pid == a.pid))
        })
        .collect();
    // One look at the processes for every pane.
    let survey = matcher.processes().survey().ok();
    let mut out: Vec<Option<PaneState>> = Vec::with_capacity(agents.len());
    let mut to_read: Vec<(usize, PaneId, crate::agents::profile::Profile)> = Vec::new();
    for (i, (a, pane)) in agents.iter().zip(&panes).enumerate() {
        if let (Some(here), Some(there)) = (here, a.host.as_deref())
            && here != there
        {
            out.push(Some(PaneState::plain(
                "remote",
                &format!("its pane is on host {there}, whose swarm watch delivers to it"),
            )));
            continue;
        }
        let Some(pane) = pane else {
            out.push(Some(PaneState::plain(
                "gone",
                "its pane is not on the tmux server (run `swarm discover`)",
            )));
            continue;
        };
        let Some(fg) = survey.as_ref().and_then(|s| matcher.foreground(s, a.pid)) else {
            out.push(Some(PaneState::plain("gone", "its process no longer runs")));
            continue;
        };
        match fg.kind {
            ForegroundKind::Agent(command) => {
                let profile = profiles.for_command(&command);
                if profile.reads_screen() {
                    to_read.push((i, pane.clone(), profile));
                    out.push(None);
                } else {
                    out.push(Some(PaneState {
                        state: "not read".into(),
                        profile: Some(profile.name.clone()),
                        deliverable: true,
                        reason: None,
                    }));
                }
            }
            ForegroundKind::Shell => out.push(Some(PaneState::plain(
                "shell",
                "a shell is in the foreground: messages wait in the inbox",
            ))),
            ForegroundKind::Other => out.push(Some(PaneState::plain(
                "other",
                "a program that is not an agent is in the foreground",
            ))),
        }
    }
    let ids: Vec<(PaneId, ScreenDetail)> = to_read
        .iter()
        .map(|(_, p, profile)| (p.clone(), profile.screen_detail()))
        .collect();
    for ((i, _, profile), capture) in to_read.into_iter().zip(tmux.capture_screens(&ids)) {
        let reading = capture.as_deref().and_then(|c| profile.read(c));
        let state = match &reading {
            Some(r) if r.state == ScreenState::Busy && !r.is_safe() => "busy+typing".to_owned(),
            Some(r) => r.state.to_string(),
            None => "unknown".into(),
        };
        let reason = reading
            .as_ref()
            .and_then(|r| r.hold_reason(agents[i].id.as_str()));
        out[i] = Some(PaneState {
            state,
            profile: Some(profile.name.clone()),
            deliverable: reading.as_ref().is_some_and(|r| r.is_safe()),
            reason,
        });
    }
    out.into_iter()
        .map(|s| s.unwrap_or_else(|| PaneState::plain("unknown", "not observed")))
        .collect()
}
