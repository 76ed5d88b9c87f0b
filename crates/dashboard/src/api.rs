//! The JSON bodies of the API, built from the state files: one
//! function per endpoint or event, shared by the HTTP routes and the event
//! stream so that both always send the same shapes.

use chrono::{DateTime, Utc};
use serde_json::{Value, json};

use swarm_core::file_stamp;
use swarm_core::support::time;
use swarm_core::{
    LockEntry, LockError, LockStore, LoggedMessage, PaneState, Paths, PendingEntry, Registry,
};

use super::message_feed::{KEPT_MESSAGES, MessageFeed};

/// `limit` when none is given (or one below 1).
pub(crate) const DEFAULT_LIMIT: usize = 50;

/// The largest `limit` served; larger ones are lowered to it.
pub(crate) const MAX_LIMIT: usize = KEPT_MESSAGES;

/// How many messages a `messages` event carries.
pub(crate) const STREAM_LIMIT: usize = 10;

/// `GET /api/v1/agents`: the registry's agents exactly as stored (stale
/// ones too); nulls and no agents when there is no usable registry.
pub(super) fn agents(registry: Option<&Registry>) -> Value {
    match registry {
        Some(r) => json!({
            "session_name": r.session_name,
            "updated_at": r.updated_at,
            "agents": r.agents,
        }),
        None => json!({"session_name": null, "updated_at": null, "agents": []}),
    }
}

/// The live locks, and when the first of them goes stale.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct LiveLocks {
    /// The body of `GET /api/v1/locks`.
    pub body: Value,
    /// How many there are.
    pub count: usize,
    /// Unix seconds at which the oldest live lock becomes stale (and the
    /// body changes without any file changing).
    pub next_stale: Option<f64>,
}

/// `GET /api/v1/locks`: every lock that is not stale at `now` (Unix
/// seconds), sorted by path, as its file stores it plus the file's name.
/// Stale and damaged lock files are left out.
pub(super) fn locks(
    table: &dyn LockStore,
    stale_after: u32,
    now: f64,
) -> Result<LiveLocks, LockError> {
    let mut list = Vec::new();
    let mut next_stale: Option<f64> = None;
    for entry in table.list()? {
        let LockEntry::Held(held) = entry else {
            continue;
        };
        if table.is_stale(&held.record, now) {
            continue;
        }
        let expires = held.record.lapses_at(f64::from(stale_after));
        next_stale = Some(next_stale.map_or(expires, |t| t.min(expires)));
        let r = held.record;
        list.push(json!({
            "agent_id": r.agent_id,
            "filepath": r.filepath,
            "locked_at": r.locked_at,
            "reason": r.reason,
            "lock_file": held.file_name,
        }));
    }
    let count = list.len();
    Ok(LiveLocks {
        body: json!({"locks": list, "count": count}),
        count,
        next_stale,
    })
}

/// `GET /api/v1/acks` (swarm's own): messages waiting for an
/// acknowledgement, as `PENDING_ACKS.json` stores them.
pub(super) fn acks(pending: &[PendingEntry]) -> Value {
    json!({"pending_acks": pending, "count": pending.len()})
}

/// `GET /api/v1/messages`: the latest `limit` messages, oldest first.
pub(super) fn messages(feed: &MessageFeed, limit: usize) -> Value {
    let list: Vec<Value> = feed.latest(limit).map(|e| feed.to_json(e)).collect();
    json!({"messages": list, "count": list.len(), "limit": limit})
}

/// A search over the kept messages (`GET /api/v1/messages?q=...&agent=...`).
#[derive(Clone, Debug, Default)]
pub(super) struct Search {
    /// Text looked for, case-insensitively, in the content, type, id,
    /// sender and recipients.
    pub text: String,
    /// Only messages from or to this agent.
    pub agent: String,
}

impl Search {
    /// True when it selects every message.
    pub(super) fn is_empty(&self) -> bool {
        self.text.trim().is_empty() && self.agent.trim().is_empty()
    }

    fn matches(&self, logged: &LoggedMessage) -> bool {
        let e = logged.message();
        let agent = self.agent.trim();
        if !agent.is_empty() && e.sender != agent && !e.recipients.iter().any(|r| r == agent) {
            return false;
        }
        let text = self.text.trim().to_lowercase();
        text.is_empty()
            || [
                e.content.as_str(),
                e.msg_type.as_str(),
                e.msg_id.as_str(),
                e.sender.as_str(),
            ]
            .iter()
            .any(|f| f.to_lowercase().contains(&text))
            || e.recipients
                .iter()
                .any(|r| r.as_str().to_lowercase().contains(&text))
    }
}

/// The latest `limit` kept messages that `search` selects, oldest first,
/// in the shape of `GET /api/v1/messages` plus the search itself.
pub(super) fn search(feed: &MessageFeed, search: &Search, limit: usize) -> Value {
    let mut hits: Vec<&LoggedMessage> = feed
        .latest(usize::MAX)
        .filter(|e| search.matches(e))
        .collect();
    let skip = hits.len().saturating_sub(limit);
    hits.drain(..skip);
    let list: Vec<Value> = hits.into_iter().map(|e| feed.to_json(e)).collect();
    json!({"messages": list, "count": list.len(), "limit": limit,
           "q": search.text, "agent": search.agent})
}

/// How many messages the per-agent view carries.
pub(super) const AGENT_MESSAGES: usize = 50;

/// `GET /api/v1/agents/{id}`: one agent's registry entry (null when it is
/// not registered), its latest messages (sent or received), its live
/// locks, the acknowledgements it owes or waits for, its screen state
/// (`screen_state`: idle, busy, typing, dialog, unknown, shell, gone, ...;
/// null when it is not registered; `screen` has the details) and the
/// messages held back for it (`held_messages`); the caller adds `limited`
/// ("limited until 15:00", null) and `limited_until` (RFC 3339, null).
pub(super) fn agent_view(
    id: &str,
    registry: Option<&Registry>,
    locks: &Value,
    pending: &[PendingEntry],
    feed: &MessageFeed,
    screen: Option<&PaneState>,
    held: Vec<Value>,
) -> Value {
    let entry = registry
        .and_then(|r| r.agents.iter().find(|a| a.id == id))
        .map(|a| serde_json::to_value(a).unwrap_or(Value::Null))
        .unwrap_or(Value::Null);
    let theirs = Search {
        text: String::new(),
        agent: id.to_owned(),
    };
    let messages = search(feed, &theirs, AGENT_MESSAGES)["messages"].clone();
    let locks: Vec<Value> = locks["locks"]
        .as_array()
        .map(|l| {
            l.iter()
                .filter(|l| l["agent_id"] == json!(id))
                .cloned()
                .collect()
        })
        .unwrap_or_default();
    let acks: Vec<&PendingEntry> = pending
        .iter()
        .filter(|p| p.recipient_id.as_str() == id || p.sender_id.as_str() == id)
        .collect();
    json!({
        "id": id,
        "agent": entry,
        "messages": messages,
        "locks": locks,
        "pending_acks": acks,
        "screen_state": screen.map(|s| s.state.clone()),
        "screen": screen,
        "held_messages": held,
    })
}

/// `GET /api/v1/stats`: counts over the registry, the live locks and the
/// latest `MAX_LIMIT` messages.
pub(super) fn stats(
    registry: Option<&Registry>,
    lock_count: usize,
    feed: &MessageFeed,
    watcher_runs: Option<bool>,
) -> Value {
    json!({
        "watcher": {"running": watcher_runs},
        "agent_count": registry.map_or(0, |r| r.agents.len()),
        "lock_count": lock_count,
        "message_count": feed.len(),
        "message_types": feed.type_counts(),
        "latest_activity": feed.latest(1).next().map(LoggedMessage::timestamp),
        "session_name": registry.map(|r| r.session_name.clone()),
        "updated_at": registry.map(|r| r.updated_at.clone()),
    })
}

/// `GET /health`: whether the three main state files exist.
pub(super) fn health(paths: &Paths, now: DateTime<Utc>) -> Value {
    let exists = |p: &std::path::Path| file_stamp(p).is_some();
    json!({
        "status": "healthy",
        "timestamp": time::utc_iso(now),
        "files": {
            "agents": exists(&paths.registry()),
            "messages": exists(&paths.message_log()),
            "locks_dir": exists(&paths.locks_dir()),
        },
    })
}

/// The first event of a stream.
pub(super) fn connected(now: DateTime<Utc>) -> Value {
    json!({"status": "connected", "timestamp": time::utc_iso(now)})
}

/// The event that keeps an idle stream open.
pub(super) fn heartbeat(now: DateTime<Utc>) -> Value {
    json!({"timestamp": time::utc_iso(now)})
}

/// The event saying some state could not be read.
pub(super) fn error(problem: &str, now: DateTime<Utc>) -> Value {
    json!({"error": problem, "timestamp": time::utc_iso(now)})
}

/// `limit` as typed: absent means `DEFAULT_LIMIT`, below 1 too, above
/// `MAX_LIMIT` means `MAX_LIMIT`; anything but an integer is refused with
/// the body of a 422 answer, in the shape the original's framework used.
pub(super) fn limit(raw: Option<&str>) -> Result<usize, Value> {
    let Some(raw) = raw else {
        return Ok(DEFAULT_LIMIT);
    };
    let text = raw.trim();
    let digits = text.strip_prefix(['+', '-']).unwrap_or(text);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(json!({"detail": [{
            "type": "int_parsing",
            "loc": ["query", "limit"],
            "msg": "Input should be a valid integer, unable to parse string as an integer",
            "input": raw,
        }]}));
    }
    if text.starts_with('-') {
        return Ok(DEFAULT_LIMIT);
    }
    // Too many digits for any integer type is simply very large.
    Ok(match digits.parse::<u64>() {
        Ok(0) => DEFAULT_LIMIT,
        Ok(n) => usize::try_from(n).map_or(MAX_LIMIT, |n| n.min(MAX_LIMIT)),
        Err(_) => MAX_LIMIT,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_are_clamped_and_non_integers_refused() {
        assert_eq!(limit(None), Ok(50));
        for (raw, want) in [
            ("1", 1),
            ("10", 10),
            ("0", 50),
            ("-3", 50),
            ("-0", 50),
            ("+7", 7),
            (" 5 ", 5),
            ("1000", 1000),
            ("1001", 1000),
            ("99999999999999999999999", 1000),
        ] {
            assert_eq!(limit(Some(raw)), Ok(want), "{raw:?}");
        }
        for bad in ["", "abc", "1.5", "1e3", "--1", "0x10"] {
            let body = limit(Some(bad)).expect_err(bad);
            assert_eq!(
                body["detail"][0]["loc"],
                json!(["query", "limit"]),
                "{bad:?}"
            );
            assert_eq!(body["detail"][0]["input"], json!(bad));
        }
    }

    #[test]
    fn an_absent_registry_is_nulls() {
        assert_eq!(
            agents(None),
            json!({"session_name": null, "updated_at": null, "agents": []})
        );
    }
}
