//! A message line of `agent_messages.log` (docs/FORMATS.md): the Python
//! tool's keys in its order, read into a `Message` and written from one. A
//! line read from a log is kept as it was read and written back so, byte
//! for byte; only the messages swarm logs are written from their fields.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::domain::message::{Message, MessageType};
use crate::domain::{AgentId, MessageId, Timestamp};
use crate::support::as_read::AsRead;
use crate::support::json::{self, Layout};

/// The keys of a message line, in the Python tool's order; the optional
/// ones are written only when set. Reading it decides which lines are
/// messages (docs/FORMATS.md): a `sender` or a recipient that is not a
/// valid agent id makes it a foreign line.
#[derive(Serialize, Deserialize)]
struct LogLine {
    sender: AgentId,
    timestamp: String,
    msg_type: MessageType,
    content: String,
    recipients: Vec<AgentId>,
    msg_id: MessageId,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    context_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    task: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    requires_ack: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    parent_msg_id: Option<MessageId>,
    #[serde(default)]
    delivery_status: Map<String, Value>,
    #[serde(default)]
    success_count: u64,
    #[serde(default)]
    failure_count: u64,
}

/// A message as a log holds it: the `Message`, the verdicts its line
/// carries, the line's time as written, and the line itself when it was
/// read from a log. Read-only, so that the line kept always says what the
/// fields say.
#[derive(Clone, Debug, PartialEq)]
pub struct LoggedMessage {
    message: Message,
    delivery_status: Map<String, Value>,
    timestamp: String,
    line: AsRead<Box<str>>,
}

impl LoggedMessage {
    /// A message swarm logs: before any delivery, so its line carries no
    /// verdict at all (docs/FORMATS.md: a `false` would read as a failure
    /// to the Python tool), and its time in UTC with an offset.
    pub fn new(message: Message) -> LoggedMessage {
        LoggedMessage {
            timestamp: message.created.utc_iso(),
            message,
            delivery_status: Map::new(),
            line: AsRead::none(),
        }
    }

    /// The same message with a real-time verdict for its first recipients,
    /// as the Python tool's lines carry them.
    #[cfg(any(test, feature = "testing"))]
    pub fn with_verdicts(mut self, delivered: &[bool]) -> LoggedMessage {
        for (r, d) in self.message.recipients.iter().zip(delivered) {
            self.delivery_status.insert(r.to_string(), Value::Bool(*d));
        }
        self.line = AsRead::none();
        self
    }

    /// Reads the message line `line`, already parsed as `value`; `None`
    /// when it is not one. A time that does not parse is the Unix epoch
    /// (docs/FORMATS.md): the message is still shown, and its line kept.
    pub(crate) fn read(value: Value, line: &str) -> Option<LoggedMessage> {
        let l: LogLine = serde_json::from_value(value).ok()?;
        let (created, timestamp) = match Timestamp::parse_iso(&l.timestamp) {
            Some(t) => (t, l.timestamp),
            None => (Timestamp::UNIX_EPOCH, Timestamp::UNIX_EPOCH.utc_iso()),
        };
        Some(LoggedMessage {
            message: Message {
                msg_id: l.msg_id,
                sender: l.sender,
                recipients: l.recipients,
                msg_type: l.msg_type,
                content: l.content,
                created,
                requires_ack: l.requires_ack == Some(true),
                parent_msg_id: l.parent_msg_id,
                context_id: l.context_id,
                task: l.task,
            },
            delivery_status: l.delivery_status,
            timestamp,
            line: AsRead::kept(line.into()),
        })
    }

    /// The message.
    pub fn message(&self) -> &Message {
        &self.message
    }

    /// The message, for keeping.
    pub fn into_message(self) -> Message {
        self.message
    }

    /// The line's `delivery_status`: recipient to whether it got the
    /// message in real time (only the Python tool's lines have verdicts).
    pub fn delivery_status(&self) -> &Map<String, Value> {
        &self.delivery_status
    }

    /// The line's `timestamp` as written: UTC ISO for swarm's lines, naive
    /// local ISO for the Python tool's (which compares these strings, so
    /// read positions record them as they are); the epoch's UTC ISO for a
    /// line whose time does not parse.
    pub fn timestamp(&self) -> &str {
        &self.timestamp
    }

    /// Takes a later delivery outcome into the verdicts (the dashboard
    /// shows the line so). The line as read no longer says this, so it is
    /// no longer what is written.
    pub fn set_delivered(&mut self, recipient: &str, delivered: bool) {
        self.delivery_status
            .insert(recipient.to_owned(), Value::Bool(delivered));
        self.line = AsRead::none();
    }

    /// The line as JSON, built from the fields: the shape the dashboard's
    /// API serves.
    pub fn to_json(&self) -> Value {
        serde_json::to_value(self.log_line()).unwrap_or(Value::Null)
    }

    /// The line's bytes, without the newline: as read, or for a message
    /// swarm logs, written from its fields in the Python tool's layout.
    pub(crate) fn to_line(&self) -> Result<Vec<u8>, serde_json::Error> {
        match self.line.get() {
            Some(line) => Ok(line.as_bytes().to_vec()),
            None => json::to_vec(&self.log_line(), Layout::Line),
        }
    }

    fn log_line(&self) -> LogLine {
        let m = &self.message;
        let ok = self
            .delivery_status
            .values()
            .filter(|v| v.as_bool() == Some(true))
            .count() as u64;
        LogLine {
            sender: m.sender.clone(),
            timestamp: self.timestamp.clone(),
            msg_type: m.msg_type.clone(),
            content: m.content.clone(),
            recipients: m.recipients.clone(),
            msg_id: m.msg_id.clone(),
            context_id: m.context_id.clone(),
            task: m.task.clone(),
            requires_ack: m.requires_ack.then_some(true),
            parent_msg_id: m.parent_msg_id.clone(),
            success_count: ok,
            failure_count: self.delivery_status.len() as u64 - ok,
            delivery_status: self.delivery_status.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(s: &str) -> AgentId {
        AgentId::parse(s).expect("an agent id")
    }

    fn read(line: &str) -> Option<LoggedMessage> {
        LoggedMessage::read(serde_json::from_str(line).ok()?, line)
    }

    #[test]
    fn log_line_has_the_python_keys_in_order() {
        let mut m = Message::new(
            id("agent-0"),
            vec![id("agent-1"), id("agent-2")],
            MessageType::builtin("INFO"),
            "héllo".into(),
        );
        m.msg_id = MessageId::from_stored("id");
        let logged = LoggedMessage::new(m.clone()).with_verdicts(&[true, false]);
        let line = String::from_utf8(logged.to_line().expect("json")).expect("utf8");
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
        let back = read(&line).expect("a message");
        assert!(back.message().is_for("agent-2") && !back.message().is_for("agent-0"));
        assert_eq!(back, logged);
        assert_eq!(back.message(), &m);
        // swarm's own lines carry no verdict.
        let fresh =
            String::from_utf8(LoggedMessage::new(m).to_line().expect("json")).expect("utf8");
        assert!(
            fresh.ends_with("\"delivery_status\": {}, \"success_count\": 0, \"failure_count\": 0}"),
            "{fresh}"
        );
    }

    #[test]
    fn optional_keys_are_written_only_when_set() {
        let mut m = Message::new(
            id("agent-1"),
            vec![id("agent-0")],
            MessageType::builtin("ACK"),
            "ACK x".into(),
        );
        m.requires_ack = true;
        m.parent_msg_id = Some(MessageId::from_stored("p-1"));
        let line = String::from_utf8(LoggedMessage::new(m.clone()).to_line().expect("json"))
            .expect("utf8");
        let (ts, id) = (m.created.utc_iso(), m.msg_id);
        assert_eq!(
            line,
            format!(
                "{{\"sender\": \"agent-1\", \"timestamp\": \"{ts}\", \"msg_type\": \"ACK\", \
                 \"content\": \"ACK x\", \"recipients\": [\"agent-0\"], \"msg_id\": \"{id}\", \
                 \"requires_ack\": true, \"parent_msg_id\": \"p-1\", \"delivery_status\": {{}}, \
                 \"success_count\": 0, \"failure_count\": 0}}"
            )
        );
    }

    #[test]
    fn a_foreign_line_is_written_back_byte_for_byte() {
        // The Python tool's naive local time, its verdicts, A2A keys, a key
        // swarm does not model, another layout and escapes of its own.
        let line = r#"{"sender":"agent-0","timestamp":"2026-11-21T13:27:02","msg_type":"review_request","content":"caf\u00E9 \ud83d\ude00","recipients":["agent-1","all"],"msg_id":"not-a-uuid","context_id":"c-1","task":{"id":"t-1","n":1.50},"signature":"abc","delivery_status":{"agent-1":true},"success_count":1,"failure_count":0}"#;
        let logged = read(line).expect("a message");
        assert_eq!(logged.to_line().expect("bytes"), line.as_bytes());
        let m = logged.message();
        assert_eq!(m.msg_type.as_str(), "review_request");
        assert_eq!(m.msg_id.as_str(), "not-a-uuid");
        assert_eq!(m.content, "café 😀");
        assert_eq!(m.context_id.as_deref(), Some("c-1"));
        assert!(m.is_for("agent-7"), "all names everyone");
        // The time as written, for what compares it as text.
        assert_eq!(logged.timestamp(), "2026-11-21T13:27:02");
        assert_eq!(Some(m.created), Timestamp::parse_iso("2026-11-21T13:27:02"));
        // A changed verdict is no longer the line read: written from the
        // fields, with the time as the line had it.
        let mut changed = logged.clone();
        changed.set_delivered("all", false);
        let rewritten = String::from_utf8(changed.to_line().expect("bytes")).expect("utf8");
        assert!(
            rewritten.starts_with(
                "{\"sender\": \"agent-0\", \"timestamp\": \"2026-11-21T13:27:02\", \"msg_type\": \"review_request\""
            ),
            "{rewritten}"
        );
        assert!(
            rewritten.ends_with(
                "\"delivery_status\": {\"agent-1\": true, \"all\": false}, \"success_count\": 1, \"failure_count\": 1}"
            ),
            "{rewritten}"
        );
    }

    #[test]
    fn a_time_that_does_not_parse_is_the_epoch() {
        for time in ["yesterday", "", "2026-13-45T99:00:00", "\u{1b}[2J"] {
            let line = serde_json::json!({
                "sender": "agent-0", "timestamp": time, "msg_type": "INFO", "content": "x",
                "recipients": ["agent-1"], "msg_id": "m-1",
            })
            .to_string();
            let logged = read(&line).expect("still a message");
            assert_eq!(logged.message().created, Timestamp::UNIX_EPOCH, "{time:?}");
            assert_eq!(logged.timestamp(), "1970-01-01T00:00:00.000000+00:00");
            assert_eq!(logged.to_line().expect("bytes"), line.as_bytes());
        }
    }

    #[test]
    fn ids_that_are_not_agent_ids_make_a_foreign_line() {
        let line = |sender: &str, recipients: &[&str]| {
            serde_json::json!({
                "sender": sender, "timestamp": "2026-11-21T13:27:02.029457+00:00",
                "msg_type": "INFO", "content": "x", "recipients": recipients, "msg_id": "m-1",
            })
            .to_string()
        };
        assert!(read(&line("agent-0", &["agent-1", "all"])).is_some());
        for (sender, recipients) in [
            ("agent 0", &["agent-1"][..]),
            ("", &["agent-1"][..]),
            ("-agent", &["agent-1"][..]),
            ("agent-0", &["agent-1", "../etc"][..]),
            ("agent-0", &["\u{1b}[31mred"][..]),
            ("agent-0", &["a".repeat(65).as_str()][..]),
        ] {
            assert!(
                read(&line(sender, recipients)).is_none(),
                "{sender:?} {recipients:?}"
            );
        }
    }
}
