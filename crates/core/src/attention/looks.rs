//! One round of looking at this host's agents for attention: what runs in
//! each pane, its screen state, a fingerprint of its screen without the
//! rows that move by themselves, and the dialog it shows; and the same
//! captures handed on to print-to-send. Every screen is captured in one
//! tmux call (`pane_state::look`).

use std::collections::{BTreeMap, BTreeSet};

use crate::agents::agent_matcher::AgentMatcher;
use crate::agents::pane_state::{self, PaneState, Printing, Sight};
use crate::agents::profile::{Profile, Profiles};
use crate::agents::registry::AgentRecord;
use crate::agents::screen::ScreenState;
use crate::agents::seen_states::{SeenState, SeenStates};
use crate::attention::dialog;
use crate::attention::tracker::{Look, Presence};
use crate::domain::Timestamp;
use crate::tmux::{Pane, Tmux};

/// An agent's screen, captured for print-to-send.
#[derive(Clone, Debug)]
pub(crate) struct Printout {
    /// The agent.
    pub agent: String,
    /// Its profile (which prints to send).
    pub profile: Profile,
    /// The visible screen.
    pub screen: String,
    /// The rows of history above it, when they were asked for.
    pub history: Option<String>,
}

/// What one round of looking found.
#[derive(Debug, Default)]
pub(crate) struct Taken {
    /// Per agent of this host, in order.
    pub looks: Vec<Look>,
    /// Every pane of the server, as tmux listed them.
    pub panes: Vec<Pane>,
    /// The screens of the agents that print to send (when `printing` was
    /// given).
    pub printouts: Vec<Printout>,
    /// The last lines of each agent's screen that could be read, for the
    /// `exited` event that may follow (sanitised, at most `LAST_LINES`).
    pub last_lines: BTreeMap<String, Vec<String>>,
    /// What each pane showed, put in words as `swarm agents` shows it.
    pub states: SeenStates,
}

/// How many of a screen's last non-blank lines an `exited` event carries.
pub(crate) const LAST_LINES: usize = 5;

/// The last non-blank lines of `screen`, sanitised, oldest first.
pub(crate) fn last_lines(screen: &str) -> Vec<String> {
    let mut lines: Vec<String> = screen
        .lines()
        .rev()
        .filter(|l| !l.trim().is_empty())
        .take(LAST_LINES)
        .map(crate::support::sanitize::one_line)
        .collect();
    lines.reverse();
    lines
}

/// Looks at `agents` (this host's), in order, with every pane of the
/// server as tmux listed them. `waiting` names the agents that have
/// messages held or queued for them; `prompted`, when the prompt hook of
/// those whose hooks report last saw a prompt taken; `printing`, what
/// print-to-send needs captured besides.
pub(crate) fn take(
    tmux: &Tmux,
    matcher: &AgentMatcher,
    profiles: &Profiles,
    agents: &[&AgentRecord],
    waiting: &BTreeSet<String>,
    prompted: &BTreeMap<String, Timestamp>,
    printing: Option<Printing<'_>>,
) -> Taken {
    let looked_at = std::time::SystemTime::now();
    let looked = pane_state::look_with_panes(tmux, matcher, profiles, agents, None, printing);
    let at = Timestamp::now();
    let mut printouts = Vec::new();
    let mut last: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut states: Vec<SeenState> = Vec::with_capacity(agents.len());
    let looks = looked
        .sights
        .into_iter()
        .zip(looked.history)
        .zip(agents)
        .filter_map(|((sight, history), a)| {
            let mut printed = |profile: &Profile, screen: &Option<String>| {
                if let Some(screen) = screen
                    && printing.is_some()
                    && profile.prints_to_send()
                {
                    printouts.push(Printout {
                        agent: a.id.as_str().to_owned(),
                        profile: profile.clone(),
                        screen: screen.clone(),
                        history: history.clone(),
                    });
                }
            };
            let mut limit = None;
            let mut profile_name = None;
            if !matches!(sight, Sight::Screen(..) | Sight::Remote(_)) {
                states.push(SeenState::of(
                    a,
                    PaneState::from_sight(&sight, a.id.as_str()),
                ));
            }
            let (presence, quiet, dialog) = match sight {
                Sight::Remote(_) => return None,
                Sight::Gone(_) => (Presence::Gone, None, None),
                Sight::Shell => (Presence::Shell, None, None),
                Sight::Other => (Presence::Other, None, None),
                Sight::NotRead(profile, capture) => {
                    printed(&profile, &capture);
                    profile_name = Some(profile.name.clone());
                    if let Some(c) = &capture {
                        last.insert(a.id.as_str().to_owned(), last_lines(c));
                    }
                    (Presence::Agent(None), None, None)
                }
                Sight::Screen(profile, capture) => {
                    printed(&profile, &capture);
                    profile_name = Some(profile.name.clone());
                    let captured = capture.is_some();
                    let capture = capture.unwrap_or_default();
                    last.insert(a.id.as_str().to_owned(), last_lines(&capture));
                    let reading = profile.read(&capture);
                    // One reading serves the round and the listing's words.
                    let shown = PaneState::of_screen(
                        &profile,
                        reading.as_ref().filter(|_| captured),
                        a.id.as_str(),
                    );
                    states.push(SeenState::of(a, shown));
                    let state = reading.map_or(ScreenState::Unknown, |r| r.state);
                    let dialog = (state == ScreenState::Dialog)
                        .then(|| dialog::read_dialog(&capture))
                        .flatten();
                    limit = crate::limits::seen(&profile, &capture, at);
                    (
                        Presence::Agent(Some(state)),
                        profile.quiet_fingerprint(&capture),
                        dialog,
                    )
                }
            };
            Some(Look {
                agent: a.id.as_str().to_owned(),
                at,
                presence,
                quiet,
                dialog,
                waiting: waiting.contains(a.id.as_str()),
                limit,
                profile: profile_name,
                limit_ended: false,
                prompted: prompted.get(a.id.as_str()).copied(),
            })
        })
        .collect();
    Taken {
        looks,
        panes: looked.panes,
        printouts,
        last_lines: last,
        states: SeenStates::new(looked_at, tmux.server(), states),
    }
}

#[cfg(test)]
mod last_lines_tests {
    use super::*;

    #[test]
    fn the_last_non_blank_lines_are_kept_clean_and_in_order() {
        let screen = "one\ntwo\n\nthree \x1b[31mred\nfour\nfive\nsix\n\n\n";
        let lines = last_lines(screen);
        assert_eq!(lines.len(), LAST_LINES);
        assert_eq!(lines[0], "two");
        assert!(
            lines[1].starts_with("three") && !lines[1].contains('\x1b'),
            "{lines:?}"
        );
        assert_eq!(lines[4], "six");
        assert!(last_lines("\n \n").is_empty());
    }
}
