//! The watcher's look at this host's agents, each round: one capture of
//! every local pane (`attention::looks::take`), the pane states written
//! for `swarm agents`, and then the attention round over the looks
//! (`attention::round`), which raises each opened episode once across
//! every watcher; an `exited` event carries the last lines the agent's
//! screen showed. What the look saw (the registry, the held messages,
//! the panes, what agents printed) goes to the parts that act on it.

use std::collections::{BTreeMap, BTreeSet};

use crate::agents::pane_state::Printing;
use crate::agents::registry::{AgentRecord, Registry};
use crate::agents::seen_states::RoundWriter;
use crate::attention::event::{EventKind, FeedEntry};
use crate::attention::looks::{self, Printout};
use crate::attention::round::Attention;
use crate::attention::tracker::{Look, Presence, Timing};
use crate::backend::Operator;
use crate::domain::Timestamp;
use crate::hooks::{HookSightings, Sighting};
use crate::messaging::held::held_store::HeldMessage;
use crate::tmux::Pane;

use super::outage::Tell;

/// What the look remembers between rounds.
pub(super) struct AttentionRound {
    attention: Attention,
    /// Writes each round's pane states for `swarm agents`.
    states: RoundWriter,
}

/// What one look saw, for the parts that act on it.
pub(super) struct Seen {
    /// The registry as read for the look.
    pub registry: Registry,
    /// This host's active agents.
    pub local: Vec<AgentRecord>,
    /// The messages held for a safe moment.
    pub held: Vec<HeldMessage>,
    /// One look per agent of `local`.
    pub looks: Vec<Look>,
    /// Every pane of the server.
    pub panes: Vec<Pane>,
    /// The screens of the agents that print to send.
    pub printouts: Vec<Printout>,
    /// Whether an agent pane of this host lives.
    pub alive: bool,
}

impl AttentionRound {
    /// Looks of this host (`host`; `None` with one host) that call a
    /// screen stuck as `timing` says.
    pub(super) fn new(timing: Timing, host: Option<String>) -> AttentionRound {
        AttentionRound {
            attention: Attention::new(timing, host),
            states: RoundWriter::default(),
        }
    }

    /// Looks at this host's agents; `printing` names the agents whose
    /// history is read too. The last lines of each screen read go into
    /// `last_lines`. `None` when the registry could not be read.
    pub(super) fn look(
        &mut self,
        op: &Operator,
        printing: Option<Printing<'_>>,
        last_lines: &mut BTreeMap<String, Vec<String>>,
        tell: &mut Tell<'_>,
    ) -> Option<Seen> {
        let registry = match op.registry() {
            Ok((r, _)) => r,
            Err(e) => {
                tell.failed("could not read the registry", &e);
                return None;
            }
        };
        let here = op.backend.shared_host();
        let local: Vec<&AgentRecord> = registry
            .active()
            .filter(|a| a.elsewhere(here).is_none())
            .collect();
        let held = match op.backend.held.list() {
            Ok(h) => h,
            Err(e) => {
                tell.failed("could not read held messages", &e.into());
                Vec::new()
            }
        };
        let waiting: BTreeSet<String> = held.iter().map(|h| h.agent.as_str().to_owned()).collect();
        // When each agent's own prompt hook last saw a prompt taken: an
        // idle screen after that is no finished turn.
        let panes_of = local
            .iter()
            .map(|a| (a.id.as_str(), a.tmux_pane_id.as_ref().map(|p| p.as_str())));
        let prompted = prompted(panes_of, &HookSightings::new(&op.paths).load());
        let taken = looks::take(
            &op.tmux,
            &op.matcher,
            &op.messaging.delivery.profiles,
            &local,
            &waiting,
            &prompted,
            printing,
        );
        last_lines.extend(taken.last_lines);
        // For `swarm agents`, which shows them while they are fresh.
        if let Some(warning) = self.states.write(&op.paths, &taken.states) {
            tell.warn(warning);
        }
        let alive = taken
            .looks
            .iter()
            .any(|l| !matches!(l.presence, Presence::Gone));
        let local = local.into_iter().cloned().collect();
        Some(Seen {
            registry,
            local,
            held,
            looks: taken.looks,
            panes: taken.panes,
            printouts: taken.printouts,
            alive,
        })
    }

    /// The attention round over `looks`: the episodes this watcher opened,
    /// as feed lines, an `exited` one with the agent's `last_lines`.
    pub(super) fn raise(
        &mut self,
        op: &Operator,
        looks: Vec<Look>,
        last_lines: &BTreeMap<String, Vec<String>>,
        tell: &mut Tell<'_>,
    ) -> Vec<FeedEntry> {
        let report = self.attention.round(looks, op.backend.episodes.as_ref());
        for e in report.errors {
            tell.failed("could not record attention", &e.into());
        }
        let raised = report.raised.into_iter().map(|r| r.entry).collect();
        with_last_lines(raised, last_lines)
    }
}

/// When each agent's prompt hook last saw a prompt taken, of the agents
/// (id, pane) whose pane the hook ran in.
fn prompted<'a>(
    agents: impl Iterator<Item = (&'a str, Option<&'a str>)>,
    sightings: &BTreeMap<String, Sighting>,
) -> BTreeMap<String, Timestamp> {
    agents
        .filter_map(|(id, pane)| {
            let s = sightings.get(id)?;
            s.serves(pane)
                .then_some(s.prompt)
                .flatten()
                .map(|t| (id.to_owned(), t))
        })
        .collect()
}

/// `raised` with each `exited` line carrying what its agent's screen
/// last showed.
fn with_last_lines(
    mut raised: Vec<FeedEntry>,
    last_lines: &BTreeMap<String, Vec<String>>,
) -> Vec<FeedEntry> {
    for entry in &mut raised {
        if entry.event == EventKind::Exited
            && let Some(agent) = &entry.agent
            && let Some(lines) = last_lines.get(agent)
        {
            entry.context = lines.clone();
        }
    }
    raised
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sighting(pane: Option<&str>, prompt: Option<Timestamp>) -> Sighting {
        Sighting {
            vendor: "claude".into(),
            pane: pane.map(str::to_owned),
            last: Timestamp::now(),
            event: "UserPromptSubmit".into(),
            turn_end: None,
            prompt,
            confirmed: Vec::new(),
        }
    }

    #[test]
    fn a_prompt_counts_only_from_the_hook_of_the_agents_own_pane() {
        let at = Timestamp::now();
        let sightings: BTreeMap<String, Sighting> = [
            ("agent-0", sighting(Some("%1"), Some(at))),
            ("agent-1", sighting(Some("%9"), Some(at))),
            ("agent-2", sighting(Some("%3"), None)),
            ("agent-3", sighting(Some("%4"), Some(at))),
        ]
        .into_iter()
        .map(|(id, s)| (id.to_owned(), s))
        .collect();
        let agents = [
            ("agent-0", Some("%1")),
            ("agent-1", Some("%2")),
            ("agent-2", Some("%3")),
            ("agent-3", None),
            ("agent-4", Some("%5")),
        ];
        let got = prompted(agents.into_iter(), &sightings);
        assert_eq!(got.keys().collect::<Vec<_>>(), ["agent-0"]);
        assert_eq!(got["agent-0"], at);
    }

    #[test]
    fn an_exit_carries_the_last_lines_and_nothing_else_does() {
        let last: BTreeMap<String, Vec<String>> =
            [("agent-1".to_owned(), vec!["$ exit".to_owned()])].into();
        let raised = vec![
            FeedEntry::new(EventKind::Exited, Some("agent-1"), "exited"),
            FeedEntry::new(EventKind::Finished, Some("agent-1"), "done"),
            FeedEntry::new(EventKind::Exited, Some("agent-2"), "exited"),
        ];
        let got = with_last_lines(raised, &last);
        assert_eq!(got[0].context, ["$ exit"]);
        assert!(got[1].context.is_empty());
        assert!(got[2].context.is_empty());
    }
}
