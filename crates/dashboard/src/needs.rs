//! `GET /api/v1/attention`: who needs the person, most urgent first (the
//! order of the tmux status line, `attention::notice::notice_urgency`). Each open
//! attention episode (the project's watcher raises them; the dashboard
//! only reads them) comes with its agent's screen as it is now and, for
//! an open dialog, its question and options read off that screen, or,
//! where the screen cannot be read from here, from the feed line that
//! raised it, so that the page can answer it.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use swarm_core::{
    AgentRecord, AgentStatus, Dialog, EventKind, FeedEntry, OpenEpisode, Registry, notice_urgency,
    read_dialog,
};

use super::activity::ActivityFeed;
use super::screens::{self, Screen};
use super::settings::Settings;

/// How many rows of an agent's screen come with it: its bottom, where
/// prompts and dialogs are.
const SCREEN_ROWS: usize = 40;

/// The body of `GET /api/v1/attention` (and of the stream's `attention`
/// event) for the open episodes `open`, oldest first as the store lists
/// them.
pub(super) fn attention(
    settings: &Settings,
    mut open: Vec<OpenEpisode>,
    registry: Option<&Registry>,
    activity: &ActivityFeed,
) -> Value {
    open.retain(|e| e.kind.is_attention());
    open.sort_by_key(|e| std::cmp::Reverse(notice_urgency(e.kind)));
    let mut agents: Vec<&AgentRecord> = Vec::new();
    for e in &open {
        let record = registry
            .and_then(|r| r.find(&e.agent))
            .filter(|a| a.status != AgentStatus::Dead);
        if let Some(a) = record
            && !agents.iter().any(|known| known.id == a.id)
        {
            agents.push(a);
        }
    }
    let seen: BTreeMap<String, Screen> = agents
        .iter()
        .map(|a| a.id.to_string())
        .zip(screens::look(settings, &agents))
        .collect();
    let items: Vec<Value> = open
        .iter()
        .map(|e| item(e, seen.get(&e.agent), activity))
        .collect();
    json!({"open": items, "count": items.len()})
}

/// One open episode as the page shows it.
fn item(e: &OpenEpisode, screen: Option<&Screen>, activity: &ActivityFeed) -> Value {
    let dialog = if e.kind == EventKind::NeedsInput {
        dialog_of(e, screen, activity)
    } else {
        Value::Null
    };
    json!({
        "agent": e.agent,
        "event": e.kind,
        "headline": e.kind.headline(),
        "urgency": notice_urgency(e.kind),
        "episode": e.episode,
        "since": e.since.utc_iso(),
        "detail": e.detail,
        "dialog": dialog,
        "screen": screen.map(|s| s.to_json(&e.agent, SCREEN_ROWS)),
    })
}

/// The dialog of an open `needs_input` episode: read off the screen when
/// it was captured (null when the screen shows none: the person answered
/// it in the pane, and the watcher closes the episode at its next look),
/// else the options the feed line that raised it recorded.
fn dialog_of(e: &OpenEpisode, screen: Option<&Screen>, activity: &ActivityFeed) -> Value {
    match screen.and_then(|s| s.capture.as_deref().map(|c| (s, c))) {
        Some((s, capture)) => {
            if s.state.state != "dialog" {
                return Value::Null;
            }
            match read_dialog(capture) {
                Some(d) => from_screen(&d),
                // A dialog whose options cannot be read can still be
                // cancelled.
                None => json!({"question": e.detail, "context": [], "options": [],
                               "numbered": false, "fingerprint": null, "source": "screen"}),
            }
        }
        None => activity
            .dialog_raised(&e.agent, e.episode)
            .map_or(Value::Null, from_feed),
    }
}

fn from_screen(d: &Dialog) -> Value {
    json!({
        "question": d.question,
        "context": d.context,
        "options": d.options,
        "numbered": d.numbered,
        "fingerprint": d.fingerprint(),
        "source": "screen",
    })
}

fn from_feed(entry: &FeedEntry) -> Value {
    json!({
        "question": entry.detail,
        "context": entry.context,
        "options": entry.options,
        "numbered": null,
        "fingerprint": null,
        "source": "feed",
    })
}
