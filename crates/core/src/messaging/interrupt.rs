//! Stopping an agent's current turn the way its profile says, with its
//! `interrupt` keys: for an agent over its budget with `budget.on_exceed =
//! "interrupt"` (docs/USAGE.md), and before a message sent with
//! `--interrupt` (not for an agent whose stop puts the prompt back into its
//! input box: `interrupt_restores_prompt`). Like an answer, it takes the
//! pane's delivery lock and types only into a pane whose foreground is the
//! agent.

use std::time::{Duration, Instant};

use crate::agents::registry::Registry;
use crate::agents::screen::ScreenState;
use crate::error::{Error, Result};

use super::delivery::{self, PaneSession};
use super::messenger::{Messenger, target_of};

/// How long an interrupted agent may take to leave its busy screen.
const INTERRUPT_WAIT: Duration = Duration::from_secs(3);

/// How often the screen is looked at meanwhile.
const INTERRUPT_POLL: Duration = Duration::from_millis(50);

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
            .profile()
            .interrupt
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

impl PaneSession<'_> {
    /// Stops the agent's turn when it is busy and its profile names the
    /// keys for that, and waits for the screen to leave busy (at most
    /// `INTERRUPT_WAIT`). True when a turn was stopped. An agent that
    /// would put the stopped prompt back into its box is left running.
    pub(crate) fn interrupt(&self) -> bool {
        let profile = self.profile();
        if profile.interrupt.is_empty() || profile.interrupt_restores_prompt {
            return false;
        }
        let keys: Vec<&str> = profile.interrupt.iter().map(String::as_str).collect();
        let busy = || {
            self.look_now()
                .is_some_and(|(r, _)| r.state == ScreenState::Busy)
        };
        if !busy() || self.press(&keys).is_err() {
            return false;
        }
        let deadline = Instant::now() + INTERRUPT_WAIT;
        while Instant::now() < deadline {
            std::thread::sleep(INTERRUPT_POLL);
            if !busy() {
                return true;
            }
        }
        false
    }
}
