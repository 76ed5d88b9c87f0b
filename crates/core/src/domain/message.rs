//! Messages: their types (docs/FORMATS.md), the checked content, and the
//! one `Message` type that the log, the pending ACKs and every view share.

use chrono::SubsecRound;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::support::sanitize;

use super::ids::{AgentId, MessageId};
use super::timestamp::Timestamp;
use super::validate::ValidationError;

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
pub const MAX_CONTENT_BYTES: usize = 10_240;

/// A message type: one of `BUILTIN_TYPES` or a custom type from the
/// config, always in its wire form (`REVIEW-REQUEST`).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct MessageType(String);

impl MessageType {
    /// Parses user input: case-insensitive, `_` and `-` interchangeable
    /// (`review_request`, `Review-Request`).
    pub fn parse(input: &str, custom: &[String]) -> Result<MessageType, ValidationError> {
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
    pub fn builtin(wire: &'static str) -> MessageType {
        debug_assert!(BUILTIN_TYPES.contains(&wire));
        MessageType(wire.to_owned())
    }

    /// Every valid type in wire form, built-in first.
    pub fn all(custom: &[String]) -> Vec<String> {
        BUILTIN_TYPES
            .iter()
            .map(|t| t.to_string())
            .chain(custom.iter().map(|c| c.to_uppercase().replace('_', "-")))
            .collect()
    }

    /// The wire form.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// How urgently a message goes into the pane of an agent that is busy
/// with a turn (docs/guide/conversations.md).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Urgency {
    /// Waits until the agent's turn ends, then goes in by itself, so the
    /// agent reads it between turns.
    #[default]
    Normal,
    /// Typed in at once: a busy agent's own input queue takes it.
    Urgent,
    /// The agent's turn is stopped first (where its profile names the
    /// key for it), then it is typed in.
    Interrupt,
}

impl Urgency {
    /// True for a message that waits for the end of a busy agent's turn.
    pub(crate) fn waits_for_turn(self) -> bool {
        self == Urgency::Normal
    }

    /// True for the default, which files leave out.
    pub(crate) fn is_normal(&self) -> bool {
        *self == Urgency::Normal
    }
}

/// Sanitises and checks a message body: controls and escape sequences
/// removed (docs/FORMATS.md, stricter), then not blank and at most
/// `MAX_CONTENT_BYTES`.
pub fn clean_content(raw: &str) -> Result<String, ValidationError> {
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

/// One message: what `swarm msg` sends, what the log holds, what a
/// pending ACK keeps and what every view shows. Each file writes it in its
/// own shape (docs/FORMATS.md); `message_dict` is the pending ACKs' one.
#[derive(Clone, Debug, PartialEq)]
pub struct Message {
    /// UUID v4 for swarm's messages; any string for lines of other tools.
    pub msg_id: MessageId,
    /// Sender agent id.
    pub sender: AgentId,
    /// Recipient agent ids, in order (`all`, which only other tools
    /// write, names everyone).
    pub recipients: Vec<AgentId>,
    /// The type.
    pub msg_type: MessageType,
    /// The sanitised body.
    pub content: String,
    /// When it was created: swarm's lines keep the creation time, the
    /// Python tool's the time it logged the message (docs/FORMATS.md).
    pub created: Timestamp,
    /// The recipient must acknowledge it (`swarm ack`).
    pub requires_ack: bool,
    /// The message this one answers (an ACK names the acknowledged one).
    pub parent_msg_id: Option<MessageId>,
    /// The A2A context of a line another tool wrote; swarm never sets it.
    pub context_id: Option<String>,
    /// The A2A task of a line another tool wrote; swarm never sets it.
    pub task: Option<Value>,
}

impl Message {
    /// A new message with a fresh id, created now (to the microsecond,
    /// what every file keeps, so that it reads back equal to itself).
    pub fn new(
        sender: AgentId,
        recipients: Vec<AgentId>,
        msg_type: MessageType,
        content: String,
    ) -> Message {
        Message {
            msg_id: MessageId::new(),
            sender,
            recipients,
            msg_type,
            content,
            created: Timestamp::from_utc(Timestamp::now().utc().trunc_subsecs(6)),
            requires_ack: false,
            parent_msg_id: None,
            context_id: None,
            task: None,
        }
    }

    /// True when the message is addressed to `agent` (directly or `all`).
    pub fn is_for(&self, agent: &str) -> bool {
        self.recipients.iter().any(|r| r == agent || r == "all")
    }

    /// The Python tool's `to_dict` (docs/FORMATS.md), as kept in
    /// `PENDING_ACKS.json`. swarm does not sign messages: `signature` is
    /// empty.
    pub(crate) fn to_dict(&self) -> Value {
        let mut m = Map::new();
        m.insert("sender_id".into(), Value::String(self.sender.to_string()));
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
            Value::Array(
                self.recipients
                    .iter()
                    .map(|r| Value::String(r.to_string()))
                    .collect(),
            ),
        );
        m.insert("msg_id".into(), Value::String(self.msg_id.to_string()));
        m.insert("signature".into(), Value::String(String::new()));
        m.insert("delivery_status".into(), Value::Object(Map::new()));
        if self.requires_ack {
            m.insert("requires_ack".into(), Value::Bool(true));
        }
        if let Some(parent) = &self.parent_msg_id {
            m.insert("parent_msg_id".into(), Value::String(parent.to_string()));
        }
        Value::Object(m)
    }

    /// `[agent-0][2026-11-21 14:30:15][QUESTION]`, the time local: the
    /// header every delivered message starts with, and how views name a
    /// message. Starting with `[` matters: agents treat a leading `!` or
    /// `/` as a command.
    pub fn header(&self) -> String {
        format!(
            "[{}][{}][{}]",
            self.sender,
            self.created.local_display(),
            self.msg_type.as_str()
        )
    }

    /// `header: content`, the text typed into a pane (the Python tool's
    /// display format).
    #[cfg(test)]
    pub(crate) fn display(&self) -> String {
        format!("{}: {}", self.header(), self.content)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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

    fn id(s: &str) -> AgentId {
        AgentId::parse(s).expect("an agent id")
    }

    #[test]
    fn display_starts_with_the_header() {
        let m = Message::new(
            id("a"),
            vec![id("b")],
            MessageType::builtin("BLOCKED"),
            "!rm".into(),
        );
        assert!(m.display().starts_with("[a]["));
        assert!(m.display().ends_with("][BLOCKED]: !rm"));
        let local = m.created.utc().with_timezone(&chrono::Local);
        assert!(
            m.header()
                .contains(&local.format("[%Y-%m-%d %H:%M:%S]").to_string())
        );
    }

    #[test]
    fn all_names_everyone() {
        let mut m = Message::new(
            id("a"),
            vec![id("b")],
            MessageType::builtin("INFO"),
            "x".into(),
        );
        assert!(m.is_for("b") && !m.is_for("a"));
        m.recipients = vec![id("all")];
        assert!(m.is_for("a") && m.is_for("zed"));
    }
}
