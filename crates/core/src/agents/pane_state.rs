//! What each agent's pane shows right now, for people: `swarm agents`,
//! `swarm doctor` and the monitor, and for the watcher's round. The
//! screens of all panes are captured in one tmux call.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use crate::agents::agent_matcher::{AgentMatcher, ForegroundKind};
use crate::agents::profile::{Profile, Profiles};
use crate::agents::registry::AgentRecord;
use crate::agents::screen::{Reading, ScreenState};
use crate::support::sanitize;
use crate::tmux::{Pane, PaneId, Rows, ScreenDetail, Tmux};

/// One agent's pane, observed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PaneState {
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

/// What one look at an agent's pane found, before it is put in words.
#[derive(Clone, Debug)]
pub enum Sight {
    /// The pane is on another host's tmux server.
    Remote(String),
    /// The pane is gone, or its process no longer runs (the reason).
    Gone(&'static str),
    /// A shell is in the foreground.
    Shell,
    /// Some other program is in the foreground.
    Other,
    /// The agent runs; its profile does not read screens. Its screen when
    /// the look was asked to capture it for print-to-send.
    NotRead(Profile, Option<String>),
    /// The agent runs and its screen was captured (`None`: the capture
    /// failed).
    Screen(Profile, Option<String>),
}

/// Observes the panes of `agents`, in order. `here` is this host's name
/// on a store shared by several hosts: the panes of agents on other hosts
/// are not on this tmux server, and read as `remote`.
pub fn observe(
    tmux: &Tmux,
    matcher: &AgentMatcher,
    profiles: &Profiles,
    agents: &[&AgentRecord],
    here: Option<&str>,
) -> Vec<PaneState> {
    look(tmux, matcher, profiles, agents, here)
        .into_iter()
        .zip(agents)
        .map(|(sight, a)| PaneState::from_sight(&sight, a.id.as_str()))
        .collect()
}

impl PaneState {
    /// A sight put in words for `agent`.
    pub fn from_sight(sight: &Sight, agent: &str) -> PaneState {
        match sight {
            Sight::Remote(there) => PaneState::plain(
                "remote",
                &format!("its pane is on host {there}, whose swarm watch delivers to it"),
            ),
            Sight::Gone(why) => PaneState::plain("gone", why),
            Sight::Shell => PaneState::plain(
                "shell",
                "a shell is in the foreground: messages wait in the inbox",
            ),
            Sight::Other => PaneState::plain(
                "other",
                "a program that is not an agent is in the foreground",
            ),
            Sight::NotRead(profile, _) => PaneState {
                state: "not read".into(),
                profile: Some(profile.name.clone()),
                deliverable: true,
                reason: None,
            },
            Sight::Screen(profile, capture) => {
                let reading = capture.as_deref().and_then(|c| profile.read(c));
                PaneState::of_screen(profile, reading.as_ref(), agent)
            }
        }
    }

    /// A screen `profile` read (`None`: not read) put in words for `agent`.
    pub(crate) fn of_screen(
        profile: &Profile,
        reading: Option<&Reading>,
        agent: &str,
    ) -> PaneState {
        let state = match reading {
            Some(r) if r.state == ScreenState::Busy && !r.is_safe() => "busy+typing".to_owned(),
            Some(r) => r.state.to_string(),
            None => "unknown".into(),
        };
        PaneState {
            state,
            profile: Some(profile.name.clone()),
            deliverable: reading.is_some_and(|r| r.is_safe()),
            reason: reading.and_then(|r| r.hold_reason(agent)),
        }
    }
}

/// A captured screen as rows a person can read: every escape sequence
/// and control character removed, blanks at the ends of rows and blank
/// rows at the bottom dropped.
pub fn screen_rows(capture: &str) -> Vec<String> {
    let mut rows: Vec<String> = capture
        .lines()
        .map(|r| sanitize::one_line(r).trim_end().to_owned())
        .collect();
    while rows.last().is_some_and(String::is_empty) {
        rows.pop();
    }
    rows
}

/// Looks at the panes of `agents`, in order: which are here, what runs in
/// them, and the screens of those whose profile reads them, captured in
/// one tmux call.
pub fn look(
    tmux: &Tmux,
    matcher: &AgentMatcher,
    profiles: &Profiles,
    agents: &[&AgentRecord],
    here: Option<&str>,
) -> Vec<Sight> {
    if agents.is_empty() {
        return Vec::new();
    }
    look_with_panes(tmux, matcher, profiles, agents, here, None).sights
}

/// What a look also captures for print-to-send: the screen of every agent
/// whose profile prints to send (also where the profile does not read
/// screens for their state), and up to `rows` rows of history above the
/// screens of the agents in `history`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Printing<'a> {
    /// The agents whose history is captured too.
    pub history: &'a BTreeSet<String>,
    /// How many rows of it.
    pub rows: usize,
}

/// What `look_with_panes` found.
#[derive(Debug, Default)]
pub(crate) struct Looked {
    /// One sight per agent, in order.
    pub sights: Vec<Sight>,
    /// Per agent, the history rows `Printing` asked for (`None`: not asked
    /// for, or the capture failed).
    pub history: Vec<Option<String>>,
    /// Every pane of the server, as it listed them.
    pub panes: Vec<Pane>,
}

/// `look`, with every pane of the server as it listed them and what
/// `printing` asks for besides.
pub(crate) fn look_with_panes(
    tmux: &Tmux,
    matcher: &AgentMatcher,
    profiles: &Profiles,
    agents: &[&AgentRecord],
    here: Option<&str>,
    printing: Option<Printing<'_>>,
) -> Looked {
    // The client that captures the screens starts while tmux lists the
    // panes: most of a small tmux call is its client starting, so the two
    // overlap instead of following each other.
    if agents.iter().any(|a| a.elsewhere(here).is_none()) {
        tmux.warm_up();
    }
    let all = tmux.list_panes().map(|(p, _)| p).unwrap_or_default();
    if agents.is_empty() {
        return Looked {
            panes: all,
            ..Looked::default()
        };
    }
    // Only panes that exist with the registered process count: a pid in
    // the registry may since belong to something else.
    let live: Vec<(PaneId, u32)> = all.iter().map(|p| (p.id.clone(), p.pid)).collect();
    // One look at the processes for every pane.
    let survey = matcher.processes().survey().ok();
    let mut out: Vec<Sight> = Vec::with_capacity(agents.len());
    let mut to_read: Vec<(usize, PaneId, ScreenDetail, Rows)> = Vec::new();
    for (i, a) in agents.iter().enumerate() {
        if let Some(there) = a.elsewhere(here) {
            out.push(Sight::Remote(there.to_owned()));
            continue;
        }
        let pane = a
            .tmux_pane_id
            .clone()
            .filter(|p| live.iter().any(|(id, pid)| id == p && *pid == a.pid));
        let Some(pane) = pane else {
            out.push(Sight::Gone(
                "its pane is not on the tmux server (run `swarm discover`)",
            ));
            continue;
        };
        let Some(fg) = survey.as_ref().and_then(|s| matcher.foreground(s, a.pid)) else {
            out.push(Sight::Gone("its process no longer runs"));
            continue;
        };
        out.push(match fg.kind {
            ForegroundKind::Agent(command) => {
                let profile = profiles.for_command(&command);
                let printed = printing.is_some() && profile.prints_to_send();
                if printed && printing.is_some_and(|p| p.history.contains(a.id.as_str())) {
                    let rows = printing.map_or(0, |p| p.rows);
                    to_read.push((
                        i,
                        pane.clone(),
                        profile.screen_detail(),
                        Rows::History(rows),
                    ));
                }
                if profile.reads_screen() || printed {
                    to_read.push((i, pane, profile.screen_detail(), Rows::Screen));
                }
                if profile.reads_screen() {
                    Sight::Screen(profile, None)
                } else {
                    Sight::NotRead(profile, None)
                }
            }
            ForegroundKind::Shell => Sight::Shell,
            ForegroundKind::Other => Sight::Other,
        });
    }
    let ids: Vec<(PaneId, ScreenDetail, Rows)> = to_read
        .iter()
        .map(|(_, p, detail, rows)| (p.clone(), *detail, *rows))
        .collect();
    if ids.is_empty() {
        // Nothing to read after all (only shells, gone panes): the client
        // started ahead is not left connected.
        tmux.cool_down();
    }
    let mut history: Vec<Option<String>> = vec![None; agents.len()];
    for ((i, _, _, rows), capture) in to_read.into_iter().zip(tmux.capture(ids)) {
        match (rows, &mut out[i]) {
            (Rows::History(_), _) => history[i] = capture,
            (Rows::Screen, Sight::Screen(_, slot) | Sight::NotRead(_, slot)) => *slot = capture,
            (Rows::Screen, _) => {}
        }
    }
    Looked {
        sights: out,
        history,
        panes: all,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn screen_rows_are_clean_and_end_with_text() {
        let rows = screen_rows("\x1b[1m> hi\x1b[0m   \n? Proceed?\x07\n\n   \n");
        assert_eq!(rows, ["> hi", "? Proceed?"]);
        assert!(screen_rows("\n\n").is_empty());
    }
}
