//! One round of looking at this host's agents for attention: what runs in
//! each pane, its screen state, a fingerprint of its screen without the
//! rows that move by themselves, and the dialog it shows. Every screen is
//! captured in one tmux call (`pane_state::look`).

use std::collections::BTreeSet;

use crate::agents::agent_matcher::AgentMatcher;
use crate::agents::pane_state::{self, Sight};
use crate::agents::profile::Profiles;
use crate::agents::registry::AgentRecord;
use crate::agents::screen::ScreenState;
use crate::attention::dialog;
use crate::attention::tracker::{Look, Presence};
use crate::domain::Timestamp;
use crate::tmux::{Pane, Tmux};

/// Looks at `agents` (this host's), in order, with every pane of the
/// server as tmux listed them. `waiting` names the agents that have
/// messages held or queued for them.
pub(crate) fn take(
    tmux: &Tmux,
    matcher: &AgentMatcher,
    profiles: &Profiles,
    agents: &[&AgentRecord],
    waiting: &BTreeSet<String>,
) -> (Vec<Look>, Vec<Pane>) {
    let (sights, panes) = pane_state::look_with_panes(tmux, matcher, profiles, agents, None);
    let at = Timestamp::now();
    let looks = sights
        .into_iter()
        .zip(agents)
        .filter_map(|(sight, a)| {
            let (presence, quiet, dialog) = match sight {
                Sight::Remote(_) => return None,
                Sight::Gone(_) => (Presence::Gone, None, None),
                Sight::Shell => (Presence::Shell, None, None),
                Sight::Other => (Presence::Other, None, None),
                Sight::NotRead(_) => (Presence::Agent(None), None, None),
                Sight::Screen(profile, capture) => {
                    let capture = capture.unwrap_or_default();
                    let state = profile
                        .read(&capture)
                        .map(|r| r.state)
                        .unwrap_or(ScreenState::Unknown);
                    let dialog = (state == ScreenState::Dialog)
                        .then(|| dialog::read(&capture))
                        .flatten();
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
            })
        })
        .collect();
    (looks, panes)
}
