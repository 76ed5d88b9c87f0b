//! Typing one message into one agent's pane, safely and exactly once.
//!
//! Under a per-pane delivery lock (so concurrent senders never interleave):
//! check that an agent, not a shell or anything else, holds the pane's
//! terminal; paste the text as one bracketed paste from a uniquely named
//! buffer; wait a short pause; press Enter as its own key; optionally look
//! at the screen and press Enter once more if the text is still waiting in
//! the input box. The text is never pasted twice.

use std::time::Duration;

use crate::agents::agent_matcher::{AgentMatcher, ForegroundKind};
use crate::messaging::message_log::Outcome;
use crate::store::{Paths, StateFile};
use crate::tmux::{PaneId, Tmux, TmuxError};

/// How deliveries behave.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct DeliverySettings {
    /// Pause between the paste and Enter (Gemini CLI drops an Enter that
    /// comes sooner than ~50 ms after a paste).
    pub pause: Duration,
    /// Look at the screen after Enter and press it once more if the text
    /// is still in the input box.
    pub confirm: bool,
    /// How long to wait for other deliveries to the same pane.
    pub lock_timeout: Duration,
}

impl Default for DeliverySettings {
    fn default() -> Self {
        DeliverySettings {
            pause: Duration::from_millis(150),
            confirm: false,
            lock_timeout: Duration::from_secs(120),
        }
    }
}

/// Where a message goes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Target {
    /// The recipient's agent id.
    pub agent: String,
    /// Its pane, when the registry knows it.
    pub pane: Option<PaneId>,
    /// The pane's root process (the registry's `pid`).
    pub pane_pid: u32,
}

/// Delivers `text` into the target's pane; never fails, the outcome says
/// what happened. `marker` is a piece of the text that identifies it on
/// screen (the message header), used only when confirming.
pub(crate) fn deliver(
    tmux: &Tmux,
    paths: &Paths,
    matcher: &AgentMatcher,
    target: &Target,
    text: &str,
    marker: &str,
    settings: &DeliverySettings,
) -> Outcome {
    let Some(pane) = &target.pane else {
        return Outcome::queued(
            "the registry has no tmux pane id for this agent (run `swarm discover`)",
        );
    };
    let lock_file = StateFile::new(
        paths
            .swarm_dir()
            .join("delivery")
            .join(format!("pane-{}", pane.number())),
    );
    let _lock = match lock_file.lock(settings.lock_timeout) {
        Ok(lock) => lock,
        Err(e) => {
            return Outcome::queued(format!("could not take the delivery lock of {pane}: {e}"));
        }
    };
    match matcher.pane_foreground(tmux, pane, target.pane_pid) {
        Err(e) => {
            return Outcome::queued(format!("could not tell what runs in pane {pane}: {e}"));
        }
        Ok(None) => {
            return Outcome::queued(format!(
                "pane {pane} is gone (its process {} no longer runs)",
                target.pane_pid
            ));
        }
        Ok(Some(fg)) => match fg.kind {
            ForegroundKind::Agent(_) => {}
            ForegroundKind::Shell => {
                return Outcome::queued(format!(
                    "a shell ({}) is in the foreground of pane {pane}: typing there would run the message as commands",
                    fg.program
                ));
            }
            ForegroundKind::Other => {
                return Outcome::queued(format!(
                    "{} is in the foreground of pane {pane}, not an agent",
                    fg.program
                ));
            }
        },
    }
    if let Err(e) = tmux.paste_text(pane, text.as_bytes()) {
        return Outcome::queued(describe(pane, "paste into", &e));
    }
    std::thread::sleep(settings.pause);
    if let Err(e) = tmux.send_keys(pane, &["Enter"]) {
        return Outcome::queued(describe(pane, "press Enter in", &e));
    }
    if settings.confirm {
        confirm(tmux, pane, text, marker, settings.pause);
    }
    Outcome::delivered()
}

/// Least wait before looking at the screen: the agent needs a moment to
/// redraw after Enter.
const CONFIRM_WAIT: Duration = Duration::from_millis(100);

/// If the rows ending at the cursor (the agent's input box) still hold the
/// message, its Enter was dropped: press Enter once more. Never pastes, so
/// it can never duplicate a message; if it sees the message elsewhere near
/// the cursor (an agent echoing it), the extra Enter lands on an empty
/// prompt, which submits nothing.
fn confirm(tmux: &Tmux, pane: &PaneId, text: &str, marker: &str, pause: Duration) {
    std::thread::sleep(pause.max(CONFIRM_WAIT));
    let Ok(geometry) = tmux.display(pane.as_str(), "#{cursor_y} #{pane_width}") else {
        return;
    };
    let mut numbers = geometry.split_whitespace().map(|n| n.parse::<usize>().ok());
    let (Some(Some(y)), Some(Some(width))) = (numbers.next(), numbers.next()) else {
        return;
    };
    let Ok(screen) = tmux.capture_rows(pane) else {
        return;
    };
    // The rows the message can take up when wrapped at the pane's width.
    let rows: usize = text
        .lines()
        .map(|l| l.chars().count() / width.max(1) + 1)
        .sum::<usize>()
        .clamp(1, 50);
    let start = (y + 1).saturating_sub(rows + 1);
    let near_cursor: String = screen.lines().skip(start).take(y + 1 - start).collect();
    // A piece of the header without spaces ("15:14:20][INFO]:"), so that
    // joining wrapped rows (which lose a space at the wrap) still finds it.
    let token = format!("{}:", marker.rsplit(' ').next().unwrap_or(marker));
    if near_cursor.contains(&token) {
        let _ = tmux.send_keys(pane, &["Enter"]);
    }
}

fn describe(pane: &PaneId, what: &str, e: &TmuxError) -> String {
    match e {
        TmuxError::TargetNotFound { .. } => format!("pane {pane} is gone"),
        other => format!("could not {what} pane {pane}: {other}"),
    }
}
