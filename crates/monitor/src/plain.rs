//! The plain stream (`swarm monitor --plain`, or stdout not a terminal):
//! one line per message, `[sender][HH:MM:SS][TYPE] -> recipients: content`,
//! and one per status change, `-- HH:MM:SS what changed`. Lines are built
//! here from sanitised text; the command prints them, colouring the type
//! only when stdout is a terminal.

use chrono::{DateTime, FixedOffset, Utc};

use super::feed_message::FeedMessage;
use swarm_core::AgentId;
use swarm_core::support::sanitize;

/// A message line in three parts, so that the type can be coloured.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MessageLine {
    /// `[sender][HH:MM:SS][`
    pub head: String,
    /// The type.
    pub msg_type: String,
    /// `] -> recipients: content`
    pub tail: String,
}

impl MessageLine {
    /// The whole line, uncoloured.
    #[cfg(test)]
    pub(crate) fn plain(&self) -> String {
        format!("{}{}{}", self.head, self.msg_type, self.tail)
    }
}

/// The line of one message; times are shown in `tz`.
pub fn message_line(msg: &FeedMessage, tz: &FixedOffset) -> MessageLine {
    let m = &msg.message;
    let recipients: Vec<&str> = m.recipients.iter().map(AgentId::as_str).collect();
    let when = msg
        .when
        .map(|t| t.with_timezone(tz).format("%H:%M:%S").to_string())
        .unwrap_or_else(|| "--:--:--".into());
    MessageLine {
        head: format!("[{}][{when}][", m.sender),
        msg_type: sanitize::one_line(m.msg_type.as_str()),
        tail: format!(
            "] -> {}: {}",
            recipients.join(", "),
            sanitize::one_line(&m.content)
        ),
    }
}

/// A status line: `-- HH:MM:SS text`.
pub fn status_line(at: DateTime<Utc>, tz: &FixedOffset, text: &str) -> String {
    format!(
        "-- {} {}",
        at.with_timezone(tz).format("%H:%M:%S"),
        sanitize::one_line(text)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use swarm_core::LoggedMessage;
    use swarm_core::{Message, MessageType};
    use swarm_core::{Record, parse_line};

    #[test]
    fn one_safe_line_per_message() {
        let id = |s: &str| AgentId::parse(s).expect("an agent id");
        let mut m = Message::new(
            id("agent-0"),
            vec![id("agent-1"), id("agent-2")],
            MessageType::builtin("BLOCKED"),
            "need\x1b[2J src/a.py\x1b]0;t\x07\nplease".into(),
        );
        m.created = swarm_core::Timestamp::from_unix_seconds(1_795_267_578.0).expect("time");
        let line = message_line(
            &FeedMessage::new(LoggedMessage::new(m)),
            &FixedOffset::east_opt(0).expect("utc"),
        );
        assert_eq!(
            line.plain(),
            "[agent-0][13:26:18][BLOCKED] -> agent-1, agent-2: need src/a.py please"
        );
    }

    #[test]
    fn a_line_whose_time_does_not_parse_shows_no_time() {
        let text = r#"{"sender": "agent-0", "timestamp": "soon", "msg_type": "INFO", "content": "x", "recipients": ["agent-1"], "msg_id": "m"}"#;
        let Some(Record::Message(logged)) = parse_line(text) else {
            panic!("a message line")
        };
        let msg = FeedMessage::new(logged);
        assert_eq!(msg.when, None);
        let line = message_line(&msg, &FixedOffset::east_opt(0).expect("utc"));
        assert_eq!(line.plain(), "[agent-0][--:--:--][INFO] -> agent-1: x");
    }
}
