//! Stopping an agent's current turn the way its profile says (its
//! `interrupt` keys), for an agent over its budget with `budget.on_exceed
//! = "interrupt"` (docs/USAGE.md). Like an answer, it takes the pane's
//! delivery lock and types only into a pane whose foreground is the agent.

use crate::agents::registry::Registry;
use crate::error::{Error, Result};

use super::delivery;
use super::messenger::{Messenger, target_of};

impl Messenger<'_> {
    /// Presses `agent`'s interrupt keys in its pane. `Ok(false)` when its
    /// profile names none; an error when the pane cannot be typed into.
    pub(crate) fn interrupt(&self, registry: &Registry, agent: &str) -> Result<bool> {
        let record = registry.find(agent).ok_or_else(|| Error::UnknownAgent {
            id: agent.to_owned(),
            registry: self.paths.registry(),
            known: registry.active().map(|a| a.id.to_string()).collect(),
        })?;
        let session = delivery::open(
            self.tmux,
            self.paths,
            self.matcher,
            &target_of(record),
            &self.settings.delivery,
        )
        .map_err(|outcome| {
            Error::Invalid(format!(
                "cannot interrupt {agent}: {}",
                outcome
                    .reason
                    .unwrap_or_else(|| "its pane cannot be reached".into())
            ))
        })?;
        let keys: Vec<&str> = session
            .interrupt_keys()
            .iter()
            .map(String::as_str)
            .collect();
        if keys.is_empty() {
            return Ok(false);
        }
        session.press(&keys)?;
        Ok(true)
    }
}
