//! `ack`: acknowledges a message that asked for it. The pending entry is
//! removed (only by its recipient) and its sender gets an `ACK` message
//! naming the id, sent as the recipient through `Operator::send`. The id
//! rule (at least 4 characters, hex digits and `-`) and the note rule
//! (one line, a blank one counting as none) live here, so that `swarm
//! ack`, the MCP tool and the dashboard refuse and answer alike.

use crate::acks::{AckResult, PendingEntry};
use crate::agents::registry::Registry;
use crate::backend::Operator;
use crate::domain::message::MessageType;
use crate::domain::{AgentId, MessageId};
use crate::error::{Error, Result};
use crate::messaging::{Recipients, SendReport, SendRequest};
use crate::support::sanitize;

/// Which message to acknowledge, as whom: checked, ready to run.
#[derive(Clone, Debug)]
pub struct AckPlan {
    prefix: String,
    agent: AgentId,
    note: Option<String>,
}

impl AckPlan {
    /// Acknowledges the pending message whose id begins with `id` (trimmed,
    /// any case) as `agent`, its recipient. An id shorter than 4
    /// characters, or with anything but hex digits and `-`, is
    /// `Error::Invalid`.
    pub fn new(id: &str, agent: &str) -> Result<AckPlan> {
        Ok(AckPlan {
            prefix: message_prefix(id)?,
            agent: AgentId::parse(agent)?,
            note: None,
        })
    }

    /// A short answer sent along with the ACK, on one line (a blank one
    /// counts as none).
    pub fn note(mut self, note: Option<&str>) -> AckPlan {
        self.note = note
            .map(|n| sanitize::one_line(n).trim().to_owned())
            .filter(|n| !n.is_empty());
        self
    }

    /// The id as checked: trimmed, in lower case.
    pub fn prefix(&self) -> &str {
        &self.prefix
    }
}

/// `id` as a prefix of a message id to acknowledge: trimmed, in lower
/// case, at least 4 characters of hex digits and `-` (else
/// `Error::Invalid`).
pub fn message_prefix(id: &str) -> Result<String> {
    let prefix = id.trim().to_lowercase();
    if prefix.len() < 4 || !prefix.bytes().all(|b| b.is_ascii_hexdigit() || b == b'-') {
        return Err(Error::Invalid(format!(
            "{:?} is not a message id: give at least 4 characters of it (hex digits and `-`)",
            sanitize::one_line(id)
        )));
    }
    Ok(prefix)
}

/// What acknowledging did.
#[derive(Debug)]
pub enum Acknowledgement {
    /// The entry was removed and the ACK message sent.
    Sent {
        /// The entry that was pending.
        entry: Box<PendingEntry>,
        /// How the ACK message went.
        report: Box<SendReport>,
    },
    /// Nothing was pending for the message the log has (see `Settled`).
    NotPending(Settled),
    /// Nothing was changed: another agent is the recipient, or the id
    /// matches several pending messages (`AckResult::NotRecipient`,
    /// `AckResult::Ambiguous`).
    Refused(AckResult),
}

/// A message the log has with no acknowledgement pending.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Settled {
    /// Its full id.
    pub msg_id: MessageId,
    /// Whether it asked for an acknowledgement.
    pub asked: bool,
    /// Whether the plan's agent sent an `ACK` for it already.
    pub answered: bool,
}

/// What `ack` did, and what the pending list or the send warned of.
#[derive(Debug)]
pub struct AckReport {
    /// What happened.
    pub done: Acknowledgement,
    /// Problems worth telling (a damaged pending list, the ACK's send).
    pub warnings: Vec<String>,
}

/// Acknowledges the plan's message. A prefix that matches nothing
/// pending and no message in the log is `Error::UnknownMessage`.
pub fn ack(op: &Operator, registry: &Registry, plan: &AckPlan) -> Result<AckReport> {
    let (result, mut warnings) = op.backend.acks.acknowledge(&plan.prefix, &plan.agent)?;
    let entry = match result {
        AckResult::Acknowledged(entry) => entry,
        AckResult::NotPending => {
            let settled = settled(op, plan)?;
            return Ok(AckReport {
                done: Acknowledgement::NotPending(settled),
                warnings,
            });
        }
        other => {
            return Ok(AckReport {
                done: Acknowledgement::Refused(other),
                warnings,
            });
        }
    };
    let note = plan
        .note
        .as_deref()
        .map(|n| format!(": {n}"))
        .unwrap_or_default();
    let mut req = SendRequest::new(
        plan.agent.to_string(),
        Recipients::One(entry.sender_id.to_string()),
        MessageType::builtin("ACK"),
        format!("ACK {}{note}", entry.msg_id),
    );
    req.parent_msg_id = Some(entry.msg_id.to_string());
    req.system = true;
    let report = op.send(registry, req)?;
    warnings.extend(report.warnings.iter().cloned());
    Ok(AckReport {
        done: Acknowledgement::Sent {
            entry,
            report: Box::new(report),
        },
        warnings,
    })
}

/// The logged message the plan's prefix names, with nothing pending.
fn settled(op: &Operator, plan: &AckPlan) -> Result<Settled> {
    let views = op.backend.log.read_all()?.messages();
    let Some(original) = views
        .iter()
        .find(|v| v.message.msg_id.starts_with(&plan.prefix))
    else {
        return Err(Error::UnknownMessage(plan.prefix.clone()));
    };
    let id = &original.message.msg_id;
    let answered = views.iter().any(|v| {
        v.message.msg_type.as_str() == "ACK"
            && v.message.parent_msg_id.as_ref() == Some(id)
            && v.message.sender == plan.agent.as_str()
    });
    Ok(Settled {
        msg_id: id.clone(),
        asked: original.message.requires_ack,
        answered,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_id_is_four_hex_digits_or_more() {
        for bad in ["", "ab", "  abc ", "../../etc/passwd", "zzzz1234", "12 34"] {
            let e = AckPlan::new(bad, "agent-0").expect_err(bad);
            assert!(e.to_string().contains("not a message id"), "{bad:?}: {e}");
        }
        let plan = AckPlan::new(" 9C2C-68bd ", "agent-0").expect("an id");
        assert_eq!(plan.prefix(), "9c2c-68bd");
    }

    #[test]
    fn a_note_is_one_line_and_a_blank_one_is_none() {
        let plan = AckPlan::new("abcd", "agent-0").expect("an id");
        assert_eq!(plan.clone().note(Some(" \t ")).note, None);
        assert_eq!(plan.clone().note(None).note, None);
        let note = plan.note(Some("on it\n\x1b[31mnow")).note.expect("a note");
        assert!(!note.contains('\n') && !note.contains('\x1b'), "{note:?}");
        assert!(note.starts_with("on it"), "{note:?}");
    }
}
