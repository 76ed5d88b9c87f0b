//! The Python tool's `to_dict` shape of a message (docs/FORMATS.md), as
//! `PENDING_ACKS.json` keeps it: read into a `Message`, and written back
//! so that a dict another tool wrote (its key order, `signature`,
//! `delivery_status`, keys swarm does not know) survives a rewrite of the
//! file byte for byte as long as the message itself is unchanged.

use serde_json::{Map, Value};

use super::ids::{AgentId, MessageId};
use super::message::{Message, MessageType};
use super::timestamp::Timestamp;

/// What a dict that lacks a key falls back to: the facts the record around
/// it holds (a pending entry's id, sender, recipient and send time). The
/// Python tool writes `{}` while an entry is being created; a file edited
/// by hand may hold anything.
#[derive(Clone, Debug)]
pub(crate) struct DictDefaults {
    /// The message id.
    pub msg_id: MessageId,
    /// The sender.
    pub sender: AgentId,
    /// The recipients.
    pub recipients: Vec<AgentId>,
    /// When it was created.
    pub created: Timestamp,
}

/// Reads a message from its dict; missing or unreadable keys (an id that
/// is not a valid agent id among them) take the defaults (type `INFO`,
/// empty content, `requires_ack` true: the dict of a pending entry belongs
/// to a message that needs an answer).
pub(crate) fn read(dict: &Value, defaults: &DictDefaults) -> Message {
    let text = |k: &str| dict.get(k).and_then(Value::as_str);
    let msg_type = text("msg_type")
        .filter(|t| !t.is_empty())
        .and_then(|t| serde_json::from_value::<MessageType>(Value::String(t.to_owned())).ok())
        .unwrap_or_else(|| MessageType::builtin("INFO"));
    let recipients = dict
        .get("recipients")
        .and_then(Value::as_array)
        .and_then(|a| {
            a.iter()
                .map(|r| r.as_str().and_then(|r| AgentId::parse(r).ok()))
                .collect::<Option<Vec<AgentId>>>()
        })
        .unwrap_or_else(|| defaults.recipients.clone());
    Message {
        msg_id: text("msg_id")
            .map(MessageId::from_stored)
            .unwrap_or_else(|| defaults.msg_id.clone()),
        sender: text("sender_id")
            .and_then(|s| AgentId::parse(s).ok())
            .unwrap_or_else(|| defaults.sender.clone()),
        recipients,
        msg_type,
        content: text("content").unwrap_or_default().to_owned(),
        created: text("timestamp")
            .and_then(Timestamp::parse_iso)
            .unwrap_or(defaults.created),
        requires_ack: dict
            .get("requires_ack")
            .and_then(Value::as_bool)
            .unwrap_or(true),
        parent_msg_id: text("parent_msg_id").map(MessageId::from_stored),
        // The log's A2A keys; in a dict they are keys `write` keeps.
        context_id: None,
        task: None,
    }
}

/// The dict to write for `message`. `read_from` is the dict it was read
/// from, if any: when it still reads as the same message it is written
/// as it was; otherwise the message's own dict, followed by the keys of
/// the old dict that the message does not model.
pub(crate) fn write(message: &Message, read_from: Option<(&Value, &DictDefaults)>) -> Value {
    let Some((old, defaults)) = read_from else {
        return message.to_dict();
    };
    if read(old, defaults) == *message {
        return old.clone();
    }
    let mut dict = match message.to_dict() {
        Value::Object(m) => m,
        _ => Map::new(),
    };
    if let Value::Object(old) = old {
        for (k, v) in old {
            if !dict.contains_key(k) && !MODELLED.contains(&k.as_str()) {
                dict.insert(k.clone(), v.clone());
            }
        }
    }
    Value::Object(dict)
}

/// Keys `read` takes into the message (a changed message rewrites them).
const MODELLED: [&str; 8] = [
    "sender_id",
    "timestamp",
    "msg_type",
    "content",
    "recipients",
    "msg_id",
    "requires_ack",
    "parent_msg_id",
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::support::json::{self, Layout};

    fn id(s: &str) -> AgentId {
        AgentId::parse(s).expect("an agent id")
    }

    fn defaults() -> DictDefaults {
        DictDefaults {
            msg_id: MessageId::from_stored("m-1"),
            sender: id("agent-0"),
            recipients: vec![id("agent-1")],
            created: Timestamp::parse_iso("2026-11-21T13:27:14.941981").expect("time"),
        }
    }

    #[test]
    fn swarm_dicts_round_trip_to_the_same_bytes() {
        let mut m = Message::new(
            id("agent-0"),
            vec![id("agent-1")],
            MessageType::builtin("QUESTION"),
            "which schema?".into(),
        );
        m.requires_ack = true;
        let dict = write(&m, None);
        let d = DictDefaults {
            msg_id: m.msg_id.clone(),
            ..defaults()
        };
        let back = read(&dict, &d);
        assert_eq!(back, m);
        let again = write(&back, Some((&dict, &d)));
        assert_eq!(
            json::to_vec(&again, Layout::Indent2).expect("json"),
            json::to_vec(&dict, Layout::Indent2).expect("json")
        );
    }

    #[test]
    fn a_python_dict_keeps_its_keys_order_and_signature() {
        let text = r#"{"sender_id": "agent-0", "timestamp": "2026-11-21T13:27:14", "msg_type": "BLOCKED", "content": "x", "recipients": ["agent-1"], "msg_id": "m-1", "signature": "abc", "delivery_status": {"agent-1": true}, "context_id": "c-9", "requires_ack": true, "metadata": {"k": 1}}"#;
        let dict: Value = serde_json::from_str(text).expect("json");
        let m = read(&dict, &defaults());
        assert_eq!((m.content.as_str(), m.msg_type.as_str()), ("x", "BLOCKED"));
        let same = write(&m, Some((&dict, &defaults())));
        assert_eq!(
            json::to_vec(&same, Layout::Line).expect("json"),
            json::to_vec(&dict, Layout::Line).expect("json")
        );
        // A changed message rewrites what it models and keeps the rest.
        let mut changed = m.clone();
        changed.content = "y".into();
        let out = write(&changed, Some((&dict, &defaults())));
        assert_eq!(out["content"], "y");
        assert_eq!(out["signature"], "", "swarm's own dict has no signature");
        assert_eq!(out["context_id"], "c-9");
        assert_eq!(out["metadata"]["k"], 1);
    }

    #[test]
    fn a_partial_or_empty_dict_falls_back_to_the_record() {
        let bad_ids =
            serde_json::json!({"sender_id": "not an id!", "recipients": ["agent-1", "../x"]});
        for dict in [
            serde_json::json!({}),
            Value::Null,
            serde_json::json!([1]),
            bad_ids,
        ] {
            let m = read(&dict, &defaults());
            assert_eq!(m.msg_id.as_str(), "m-1");
            assert_eq!(
                (m.sender.as_str(), m.recipients.as_slice()),
                ("agent-0", &[id("agent-1")][..])
            );
            assert_eq!((m.msg_type.as_str(), m.content.as_str()), ("INFO", ""));
            assert_eq!(m.created, defaults().created);
            // Written back unchanged.
            assert_eq!(write(&m, Some((&dict, &defaults()))), dict);
        }
    }
}
