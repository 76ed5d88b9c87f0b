//! What the page shows of agents' panes: each registered agent's screen
//! state (read the way delivery reads it, all panes in one tmux call), an
//! agent's screen itself as clean rows (`GET /api/v1/agents/{id}/screen`,
//! as `swarm peek --json`), and the messages held back until a pane is
//! safe, with why and for how long.

use axum::http::StatusCode;
use chrono::{DateTime, Utc};
use serde_json::{Value, json};

use swarm_core::agents::pane_state;
use swarm_core::support::sanitize;
use swarm_core::{AgentRecord, AgentStatus, HeldMessage, PaneState, Registry, Sight, Timestamp};

use super::settings::Settings;

/// How much of a held message's text the page gets.
const PREVIEW_CHARS: usize = 200;

/// The screen state of each agent in `registry` that is not dead, by id.
pub(super) fn states(settings: &Settings, registry: Option<&Registry>) -> Vec<(String, PaneState)> {
    let Some(registry) = registry else {
        return Vec::new();
    };
    let agents: Vec<_> = registry
        .agents
        .iter()
        .filter(|a| a.status != AgentStatus::Dead)
        .collect();
    let op = &settings.op;
    let observed = pane_state::observe(
        &op.tmux,
        &op.matcher,
        &op.messaging.delivery.profiles,
        &agents,
        op.backend.shared_host(),
    );
    agents
        .iter()
        .map(|a| a.id.to_string())
        .zip(observed)
        .collect()
}

/// One agent's pane as it is now.
#[derive(Clone, Debug)]
pub(super) struct Screen {
    /// Its state, as delivery reads it.
    pub state: PaneState,
    /// Its tmux pane (`%3`), when the registry names one.
    pub pane: Option<String>,
    /// What it shows, as captured (`None`: gone, on another host, or the
    /// capture failed).
    pub capture: Option<String>,
}

impl Screen {
    /// `{"agent", "pane", "state", "rows"}`, the shape of `swarm peek
    /// --json`, with the state's reason and at most the bottom `rows`
    /// rows (where prompts and dialogs are).
    pub(super) fn to_json(&self, agent: &str, rows: usize) -> Value {
        let mut all = self
            .capture
            .as_deref()
            .map(pane_state::screen_rows)
            .unwrap_or_default();
        all.drain(..all.len().saturating_sub(rows));
        json!({
            "agent": agent,
            "pane": self.pane,
            "state": self.state.state,
            "reason": self.state.reason,
            "rows": all,
        })
    }
}

/// The panes of `agents`, in order, looked at in one tmux call (and one
/// more per pane that holds something else than an agent reading its
/// screen, such as the shell an agent exited to).
pub(super) fn look(settings: &Settings, agents: &[&AgentRecord]) -> Vec<Screen> {
    let op = &settings.op;
    let sights = pane_state::look(
        &op.tmux,
        &op.matcher,
        &op.messaging.delivery.profiles,
        agents,
        op.backend.shared_host(),
    );
    sights
        .into_iter()
        .zip(agents)
        .map(|(sight, a)| {
            let state = PaneState::from_sight(&sight, a.id.as_str());
            let capture = match (sight, &a.tmux_pane_id) {
                (Sight::Screen(_, capture), _) => capture,
                (Sight::Shell | Sight::Other | Sight::NotRead(..), Some(pane)) => {
                    op.tmux.capture_pane(pane).ok()
                }
                _ => None,
            };
            Screen {
                state,
                pane: a.tmux_pane_id.as_ref().map(|p| p.as_str().to_owned()),
                capture,
            }
        })
        .collect()
}

/// The most rows of a screen served.
pub(super) const SCREEN_ROWS: usize = 200;

/// `GET /api/v1/agents/{id}/screen`: the agent's screen as clean rows, or
/// why it cannot be shown (a status and a sentence).
pub(super) fn screen(
    settings: &Settings,
    registry: Option<&Registry>,
    id: &str,
) -> Result<Value, (StatusCode, String)> {
    let Some(record) = registry.and_then(|r| r.find(id)) else {
        return Err((
            StatusCode::NOT_FOUND,
            format!("No agent {id} in the registry"),
        ));
    };
    if let Some(there) = record.elsewhere(settings.op.backend.shared_host()) {
        return Err((
            StatusCode::CONFLICT,
            format!("{id}'s pane is on host {there}: its screen is read there"),
        ));
    }
    if record.tmux_pane_id.is_none() {
        return Err((
            StatusCode::CONFLICT,
            format!("The registry has no tmux pane for {id}: run `swarm discover`"),
        ));
    }
    let screen = look(settings, &[record]).into_iter().next();
    Ok(screen.map_or(Value::Null, |s| s.to_json(id, SCREEN_ROWS)))
}

/// Everything held, in order (none when the file cannot be read).
pub(super) fn held(settings: &Settings) -> Vec<HeldMessage> {
    settings.backend.held.list().unwrap_or_default()
}

/// One held message as the page shows it.
pub(super) fn held_json(h: &HeldMessage, now: DateTime<Utc>) -> Value {
    let preview: String = sanitize::one_line(&h.text)
        .chars()
        .take(PREVIEW_CHARS)
        .collect();
    json!({
        "seq": h.seq,
        "msg_id": h.msg_id,
        "agent": h.agent,
        "reason": h.reason,
        "since": h.since.utc_iso(),
        "age_seconds": h.age(Timestamp::from_utc(now)).as_secs(),
        "text": preview,
    })
}

/// `GET /api/v1/delivery`: `screens` maps each agent id to its state,
/// profile, whether a message would be typed in now and, when not, why;
/// `held` lists the held messages, oldest first.
pub(super) fn delivery(
    states: &[(String, PaneState)],
    held: &[HeldMessage],
    now: DateTime<Utc>,
) -> Value {
    let screens: serde_json::Map<String, Value> = states
        .iter()
        .map(|(id, s)| (id.clone(), serde_json::to_value(s).unwrap_or(Value::Null)))
        .collect();
    let held: Vec<Value> = held.iter().map(|h| held_json(h, now)).collect();
    json!({"screens": screens, "held": held, "held_count": held.len()})
}
