//! Typing a prompt of swarm's own into an agent whose usage limit reset
//! (`limits.on_reset = "resume"`): like a message, it takes the pane's
//! delivery lock, goes in only while the screen is safe and idle, and is
//! confirmed to have left the input box.

use crate::agents::registry::AgentRecord;
use crate::agents::screen::ScreenState;
use crate::log::record::DeliveryOutcome;

use super::delivery;
use super::messenger::{Messenger, target_of};

impl Messenger<'_> {
    /// Types `prompt` into `agent`'s pane when its screen is idle; `None`
    /// when it is not (nothing was typed), else what became of it.
    pub(crate) fn type_prompt(&self, agent: &AgentRecord, prompt: &str) -> Option<DeliveryOutcome> {
        let session = delivery::open(
            self.tmux,
            self.paths,
            self.matcher,
            &target_of(agent),
            &self.settings.delivery,
        )
        .ok()?;
        let reading = session.read()?;
        if reading.state != ScreenState::Idle || !reading.is_safe() {
            return None;
        }
        Some(session.type_text(prompt, prompt))
    }
}
