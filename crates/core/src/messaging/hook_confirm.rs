//! Delivery confirmed by the recipient: after a message is typed into an
//! agent whose own prompt hook is known to report (`swarm hook`, see
//! `attention::hook_sightings`), the sender waits a moment for that hook
//! to say the submitted prompt held the message's id. Only then is the
//! delivery `confirmed_by: hook`; otherwise the screen's word stands.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use crate::agents::registry::AgentRecord;
use crate::attention::hook_sightings::{HookSightings, Sighting};
use crate::log::record::{ConfirmedBy, Via};
use crate::store::Paths;

use super::send::Outcomes;

/// How long a sender waits for the recipient's prompt hook.
pub(crate) const HOOK_WAIT: Duration = Duration::from_secs(2);

/// How often the sightings are read again while waiting (a small file).
const POLL: Duration = Duration::from_millis(10);

/// Marks each delivered outcome `confirmed_by: hook` whose recipient's
/// prompt hook reports `msg_id` within `HOOK_WAIT`; recipients whose
/// hooks were never seen are not waited for.
pub(crate) fn await_hooks(
    paths: &Paths,
    msg_id: &str,
    targets: &[AgentRecord],
    outcomes: &mut Outcomes,
) {
    let sightings = HookSightings::new(paths);
    let seen = sightings.load();
    let pane_of = |agent: &str| {
        targets
            .iter()
            .find(|a| a.id.as_str() == agent)
            .and_then(|a| a.tmux_pane_id.as_ref())
            .map(|p| p.as_str().to_owned())
    };
    let mut waiting: Vec<usize> = outcomes
        .iter()
        .enumerate()
        .filter(|(_, (agent, o))| {
            // One through the agent's own channel has its own receipt.
            o.is_delivered()
                && o.via.is_none_or(|v| v == Via::Typed)
                && o.confirmed_by != Some(ConfirmedBy::Hook)
                && seen
                    .get(agent)
                    .is_some_and(|s| s.prompt.is_some() && s.serves(pane_of(agent).as_deref()))
        })
        .map(|(i, _)| i)
        .collect();
    let deadline = Instant::now() + HOOK_WAIT;
    let mut seen = seen;
    while !waiting.is_empty() {
        confirm(&seen, msg_id, outcomes, &mut waiting);
        if waiting.is_empty() || Instant::now() >= deadline {
            break;
        }
        std::thread::sleep(POLL);
        seen = sightings.load();
    }
}

/// Marks the outcomes at `waiting` whose hook confirmed `msg_id`, and
/// leaves the others waiting.
fn confirm(
    seen: &BTreeMap<String, Sighting>,
    msg_id: &str,
    outcomes: &mut Outcomes,
    waiting: &mut Vec<usize>,
) {
    waiting.retain(|&i| {
        let Some((agent, outcome)) = outcomes.get_mut(i) else {
            return false;
        };
        if seen
            .get(agent.as_str())
            .and_then(|s| s.confirmed_at(msg_id))
            .is_some()
        {
            *outcome = outcome.clone().confirmed_by_hook();
            false
        } else {
            true
        }
    });
}
