//! Why a message waits before it is typed into a pane: a screen on which
//! nothing may be typed (someone typing, a dialog, an unreadable screen)
//! stops every message; an agent busy with a turn stops only the normal
//! ones, which go in when the turn ends (docs/guide/conversations.md).

use crate::agents::screen::{Reading, ScreenState};
use crate::domain::message::Urgency;
use crate::log::record::DeliveryOutcome;

/// Why a message waits before it is typed into a pane.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Wait {
    /// The agent is busy with a turn (its input box empty): a normal
    /// message waits for the turn to end, an urgent one goes in (the
    /// agent's own input queue takes it).
    Turn(String),
    /// Nothing may be typed now: someone is typing, a dialog is open, the
    /// screen cannot be read.
    Unsafe(String),
    /// The agent's login is at its usage limit: nothing goes in but an
    /// urgent message from the person.
    Limited(String),
}

impl Wait {
    /// Why, for a person.
    pub(crate) fn reason(&self) -> &str {
        match self {
            Wait::Turn(r) | Wait::Unsafe(r) | Wait::Limited(r) => r,
        }
    }

    /// True when a message of `urgency` must wait for this.
    pub(crate) fn stops(&self, urgency: Urgency) -> bool {
        match self {
            Wait::Turn(_) => urgency.waits_for_turn(),
            Wait::Unsafe(_) | Wait::Limited(_) => true,
        }
    }

    /// The outcome of a message held for this.
    pub(crate) fn held(&self) -> DeliveryOutcome {
        match self {
            Wait::Turn(r) => DeliveryOutcome::held_for_turn(r.clone()),
            Wait::Unsafe(r) | Wait::Limited(r) => DeliveryOutcome::held(r.clone()),
        }
    }
}

/// Why a normal message to the busy `agent` waits.
pub(crate) fn turn_reason(agent: &str) -> String {
    format!("{agent} is working; delivered when its turn ends")
}

/// What `reading` of `agent`'s screen keeps out of its pane.
pub(crate) fn wait_for(reading: &Reading, agent: &str) -> Option<Wait> {
    if let Some(reason) = reading.hold_reason(agent) {
        return Some(Wait::Unsafe(reason));
    }
    (reading.state == ScreenState::Busy).then(|| Wait::Turn(turn_reason(agent)))
}
