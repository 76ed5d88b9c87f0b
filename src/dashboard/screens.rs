//! What the page shows of delivery: each registered agent's screen state
//! (read the way delivery reads it, all panes in one tmux call) and the
//! messages held back until a pane is safe, with why and for how long.

use chrono::{DateTime, Utc};
use serde_json::{Value, json};

use crate::agents::pane_state::{self, PaneState};
use crate::agents::registry::{AgentStatus, Registry};
use crate::domain::Timestamp;
use crate::messaging::held::held_store::HeldMessage;
use crate::support::sanitize;

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
    let op = &settings.operator;
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
