//! `ReplyTarget`: the message a reply answers, named as a person or an
//! agent types it (its id or a unique beginning of it, at least 4
//! characters), found in the message index: its full id for the reply's
//! `parent_msg_id`, who sent it and to whom, and its thread. Every front
//! door that answers a message (`swarm msg --reply-to`, the MCP tool
//! `reply`) names it through this one lookup, so they cannot differ on
//! which message an id means or on whom an answer goes to.

use crate::backend::Operator;
use crate::error::{Error, Result};
use crate::messaging::conversation;

/// The message a reply answers, as the index holds it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReplyTarget {
    /// Its full id: the reply's `parent_msg_id`.
    pub msg_id: String,
    /// Who sent it.
    pub sender: String,
    /// Whom it was sent to, in the log's order.
    pub recipients: Vec<String>,
    /// The id of its thread's first message (the reply joins that thread).
    pub thread: String,
}

impl ReplyTarget {
    /// The one kept message `raw` names (its id or a unique beginning of
    /// it); `what` names the argument in errors (`--reply-to`, `argument
    /// \`message_id\``). An id too short or not plain is `Error::Invalid`,
    /// one that begins several ids too; one naming no kept message is
    /// `Error::UnknownMessage`.
    pub fn find(op: &Operator, raw: &str, what: &str) -> Result<ReplyTarget> {
        let index = conversation::message_index(&op.paths, op.backend.log.as_ref())?;
        let msg_id = conversation::resolve_message(&index, raw, what)?;
        let m = index
            .message(&msg_id)?
            .ok_or_else(|| Error::UnknownMessage(msg_id.clone()))?;
        Ok(ReplyTarget {
            msg_id: m.msg_id,
            sender: m.sender,
            recipients: m.recipients,
            thread: m.thread,
        })
    }

    /// Whom `me`'s answer goes to when the reply names no recipient: the
    /// message's sender, or, for a message `me` sent, the first of those
    /// it went to (answering your own message continues the conversation
    /// with them).
    pub fn answer_to(&self, me: &str) -> Result<&str> {
        if self.sender != me {
            return Ok(&self.sender);
        }
        self.recipients
            .first()
            .map(String::as_str)
            .ok_or_else(|| Error::Invalid("the message has no recipient to answer".into()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn target(sender: &str, recipients: &[&str]) -> ReplyTarget {
        ReplyTarget {
            msg_id: "9c2c68bd-0000".into(),
            sender: sender.into(),
            recipients: recipients.iter().map(|r| (*r).to_owned()).collect(),
            thread: "9c2c68bd-0000".into(),
        }
    }

    #[test]
    fn an_answer_goes_to_the_sender_or_for_your_own_message_to_its_recipient() {
        let theirs = target("agent-1", &["agent-2", "agent-3"]);
        assert_eq!(theirs.answer_to("agent-2").expect("to"), "agent-1");
        assert_eq!(theirs.answer_to("agent-9").expect("to"), "agent-1");
        assert_eq!(theirs.answer_to("agent-1").expect("to"), "agent-2");
        assert!(matches!(
            target("agent-1", &[]).answer_to("agent-1"),
            Err(Error::Invalid(_))
        ));
    }
}
