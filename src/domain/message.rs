//! Messages: their types (docs/FORMATS.md), the checked content, and how a
//! message looks in a pane and in the log (docs/FORMATS.md).

use chrono::Local;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::support::sanitize;

use super::ids::MessageId;
use super::timestamp::Timestamp;
use super::validate::ValidationError;
use crate::support::time;

/// The built-in message types, as written on the wire, in the original's
/// order (used when listing valid types).
pub const BUILTIN_TYPES: [&str; 15] = [
    "QUESTION",
    "REVIEW-REQUEST",
    "BLOCKED",
    "COMPLETED",
    "CHALLENGE",
    "INFO",
    "ACK",
    "TASK-DELEGATION",
    "TASK-RESULT",
    "CONFLICT",
    "NEGOTIATION",
    "CAPABILITY-QUERY",
    "CAPABILITY-RESPONSE",
    "REVIEW-FEEDBACK",
    "CONTEXT-UPDATE",
];

/// Largest message body accepted, in UTF-8 bytes (the original's limit,
/// so every message in the log is valid for both tools).
pub(crate) const MAX_CONTENT_BYTES: usize = 10_240;

/// A message type: one of `BUILTIN_TYPES` or a custom type from the
/// config, always in its wire form (`REVIEW-REQUEST`).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub(crate) struct MessageType(String);

impl MessageType {
    /// Parses user input: case-insensitive, `_` and `-` interchangeable
    /// (`review_request`, `Review-Request`).
    pub(crate) fn parse(input: &str, custom: &[String]) -> Result<MessageType, ValidationError> {
        let wire = input.trim().to_uppercase().replace('_', "-");
        let known = BUILTIN_TYPES.iter().any(|t| *t == wire)
            || custom
                .iter()
                .any(|c| c.to_uppercase().replace('_', "-") == wire);
        if known && !wire.is_empty() {
            Ok(MessageType(wire))
        } else {
            Err(ValidationError::MessageType {
                input: input.to_owned(),
                valid: Self::all(custom).join(", "),
            })
        }
    }

    /// A type known to be valid (built-in names only).
    pub(crate) fn builtin(wire: &'static str) -> MessageType {
        debug_assert!(BUILTIN_TYPES.contains(&wire));
        MessageType(wire.to_owned())
    }

    /// Every valid type in wire form, built-in first.
    pub(crate) fn all(custom: &[String]) -> Vec<String> {
        BUILTIN_TYPES
            .iter()
            .map(|t| t.to_string())
            .chain(custom.iter().map(|c| c.to_uppercase().replace('_', "-")))
            .collect()
    }

    /// The wire form.
    pub(crate) fn as_str(&self) -> &str {
        &self.0
    }
}

/// Sanitises and checks a message body: controls and escape sequences
/// removed (docs/FORMATS.md, stricter), then not blank and at most
/// `MAX_CONTENT_BYTES`.
pub(crate) fn clean_content(raw: &str) -> Result<String, ValidationError> {
    let clean = sanitize::message(raw);
    if clean.is_empty() {
        return Err(if raw.trim().is_empty() {
            ValidationError::ContentEmpty
        } else {
            ValidationError::ContentOnlyControls
        });
    }
    if clean.len() > MAX_CONTENT_BYTES {
        return Err(ValidationError::ContentTooLong(clean.len()));
    }
    Ok(clean)
}

/// One message, as sent.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Message {
    /// UUID v4 (the Python tool's format).
    pub msg_id: MessageId,
    /// Sender agent id.
    pub sender: String,
    /// Recipient agent ids, in order.
    pub recipients: Vec<String>,
    /// The type.
    pub msg_type: MessageType,
    /// The sanitised body.
    pub content: String,
    /// When it was created.
    pub created: Timestamp,
    /// The recipient must acknowledge it (`swarm ack`).
    pub requires_ack: bool,
    /// The message this one answers (an ACK names the acknowledged one).
    pub parent_msg_id: Option<String>,
}

impl Message {
    /// A new message with a fresh id, created now.
    pub(crate) fn new(
        sender: String,
        recipients: Vec<String>,
        msg_type: MessageType,
        content: String,
    ) -> Message {
        Message {
            msg_id: MessageId::new(),
            sender,
            recipients,
            msg_type,
            content,
            created: Timestamp::now(),
            requires_ack: false,
            parent_msg_id: None,
        }
    }

    /// The Python tool's `to_dict` (docs/FORMATS.md), as kept in
    /// `PENDING_ACKS.json`. swarm does not sign messages: `signature` is
    /// empty.
    pub(crate) fn to_dict(&self) -> Value {
        let mut m = Map::new();
        m.insert("sender_id".into(), Value::String(self.sender.clone()));
        m.insert(
            "timestamp".into(),
            Value::String(self.created.local_naive_iso()),
        );
        m.insert(
            "msg_type".into(),
            Value::String(self.msg_type.as_str().to_owned()),
        );
        m.insert("content".into(), Value::String(self.content.clone()));
        m.insert(
            "recipients".into(),
            Value::Array(self.recipients.iter().cloned().map(Value::String).collect()),
        );
        m.insert("msg_id".into(), Value::String(self.msg_id.to_string()));
        m.insert("signature".into(), Value::String(String::new()));
        m.insert("delivery_status".into(), Value::Object(Map::new()));
        if self.requires_ack {
            m.insert("requires_ack".into(), Value::Bool(true));
        }
        if let Some(parent) = &self.parent_msg_id {
            m.insert("parent_msg_id".into(), Value::String(parent.clone()));
        }
        Value::Object(m)
    }

    /// The header every delivered message starts with:
    /// The text typed into a pane (the Python tool's display format).
    #[cfg(test)]
    pub(crate) fn display(&self) -> String {
        format!("{}: {}", self.header(), self.content)
    }

    /// `[agent-0][2026-11-21 14:30:15][QUESTION]` (local time). Starting
    /// with `[` matters: agents treat a leading `!` or `/` as a command.
    pub(crate) fn header(&self) -> String {
        format!(
            "[{}][{}][{}]",
            self.sender,
            self.created.local_display(),
            self.msg_type.as_str()
        )
    }

    /// The log line for this message (docs/FORMATS.md). `delivered` holds the
    /// outcome of the first recipients so far; a recipient without one gets
    /// no verdict at all, neither in `delivery_status` nor in the counts
    /// (docs/FORMATS.md): swarm logs a message before it delivers it, and a
    /// `false` there would read as a failure to the Python tool.
    pub(crate) fn log_entry(&self, delivered: &[bool]) -> LogEntry {
        let mut status = Map::new();
        for (r, d) in self.recipients.iter().zip(delivered) {
            status.insert(r.clone(), Value::Bool(*d));
        }
        let ok = delivered.iter().filter(|d| **d).count() as u64;
        let known = delivered.len().min(self.recipients.len()) as u64;
        LogEntry {
            sender: self.sender.clone(),
            timestamp: self.created.utc_iso(),
            msg_type: self.msg_type.as_str().to_owned(),
            content: self.content.clone(),
            recipients: self.recipients.clone(),
            msg_id: self.msg_id.to_string(),
            context_id: None,
            task: None,
            requires_ack: self.requires_ack.then_some(true),
            parent_msg_id: self.parent_msg_id.clone(),
            delivery_status: status,
            success_count: ok,
            failure_count: known.saturating_sub(ok),
        }
    }
}

/// One message line of `agent_messages.log`, key for key the Python tool's
/// (docs/FORMATS.md). Optional keys are written only when set.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LogEntry {
    /// Sender id.
    pub sender: String,
    /// When it was logged. swarm writes UTC with an offset; entries of the
    /// Python tool carry naive local times (both parse with `time::parse_iso`).
    pub timestamp: String,
    /// Wire type.
    pub msg_type: String,
    /// Body.
    pub content: String,
    /// Recipient ids.
    pub recipients: Vec<String>,
    /// Message id.
    pub msg_id: String,
    /// A2A context (never set by swarm).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_id: Option<String>,
    /// A2A task (never set by swarm).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<Value>,
    /// Only written when true.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requires_ack: Option<bool>,
    /// Reply-to id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_msg_id: Option<String>,
    /// Real-time delivery per recipient.
    #[serde(default)]
    pub delivery_status: Map<String, Value>,
    /// Number of `true` in `delivery_status`.
    #[serde(default)]
    pub success_count: u64,
    /// Number of `false` in `delivery_status`.
    #[serde(default)]
    pub failure_count: u64,
}

impl LogEntry {
    /// True when the message is addressed to `agent` (directly or `"all"`).
    pub fn is_for(&self, agent: &str) -> bool {
        self.recipients.iter().any(|r| r == agent || r == "all")
    }

    /// The header of this entry as a pane shows it, rebuilt from the log.
    pub fn header(&self) -> String {
        let when = time::parse_iso(&self.timestamp)
            .map(|t| {
                t.with_timezone(&Local)
                    .format("%Y-%m-%d %H:%M:%S")
                    .to_string()
            })
            .unwrap_or_else(|| self.timestamp.clone());
        format!("[{}][{when}][{}]", self.sender, self.msg_type)
    }

    /// The text a pane shows for this entry, rebuilt from the log.
    pub fn display(&self) -> String {
        format!("{}: {}", self.header(), self.content)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::support::json::{self, Layout};

    #[test]
    fn types_parse_case_insensitively() {
        for input in ["info", "INFO", " Info "] {
            assert_eq!(
                MessageType::parse(input, &[]).map(|t| t.0),
                Ok("INFO".into())
            );
        }
        for input in ["review-request", "REVIEW_REQUEST", "Review-Request"] {
            assert_eq!(
                MessageType::parse(input, &[]).map(|t| t.0),
                Ok("REVIEW-REQUEST".into())
            );
        }
        let err = MessageType::parse("urgent", &[])
            .expect_err("unknown")
            .to_string();
        assert!(err.contains("QUESTION, REVIEW-REQUEST, BLOCKED"), "{err}");
        let custom = vec!["deploy_done".to_string()];
        assert_eq!(
            MessageType::parse("DEPLOY-DONE", &custom).map(|t| t.0),
            Ok("DEPLOY-DONE".into())
        );
        assert!(MessageType::parse("", &custom).is_err());
    }

    #[test]
    fn content_is_sanitised_and_bounded() {
        assert_eq!(clean_content("  hi;\x1b[31m  ").as_deref(), Ok("hi;"));
        assert!(
            clean_content("   ")
                .expect_err("blank")
                .to_string()
                .contains("empty")
        );
        assert!(
            clean_content("\x1b[2J")
                .expect_err("blank")
                .to_string()
                .contains("control")
        );
        assert!(clean_content(&"x".repeat(MAX_CONTENT_BYTES)).is_ok());
        assert!(
            clean_content(&"x".repeat(MAX_CONTENT_BYTES + 1))
                .expect_err("long")
                .to_string()
                .contains("too long")
        );
    }

    #[test]
    fn log_line_has_the_python_keys_in_order() {
        let mut m = Message::new(
            "agent-0".into(),
            vec!["agent-1".into(), "agent-2".into()],
            MessageType::builtin("INFO"),
            "héllo".into(),
        );
        m.msg_id = MessageId::from_stored("id");
        let line = json::to_string(&m.log_entry(&[true, false]), Layout::Line).expect("json");
        let ts = m.created.utc_iso();
        assert_eq!(
            line,
            format!(
                "{{\"sender\": \"agent-0\", \"timestamp\": \"{ts}\", \"msg_type\": \"INFO\", \
                 \"content\": \"h\\u00e9llo\", \"recipients\": [\"agent-1\", \"agent-2\"], \
                 \"msg_id\": \"id\", \"delivery_status\": {{\"agent-1\": true, \"agent-2\": false}}, \
                 \"success_count\": 1, \"failure_count\": 1}}"
            )
        );
        let back: LogEntry = serde_json::from_str(&line).expect("parse");
        assert!(back.is_for("agent-2") && !back.is_for("agent-0"));
    }

    #[test]
    fn display_starts_with_the_header() {
        let m = Message::new(
            "a".into(),
            vec!["b".into()],
            MessageType::builtin("BLOCKED"),
            "!rm".into(),
        );
        assert!(m.display().starts_with("[a]["));
        assert!(m.display().ends_with("][BLOCKED]: !rm"));
        assert_eq!(m.log_entry(&[false]).display(), m.display());
    }
}
