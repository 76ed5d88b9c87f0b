//! Acknowledging a message that asked for it: the pending entry is removed
//! and its sender gets an `ACK` message naming the id. One function for
//! every front end (`swarm ack`, the dashboard), so that both refuse and
//! answer exactly alike.

use crate::acks::{AckResult, PendingEntry};
use crate::agents::registry::Registry;
use crate::domain::AgentId;
use crate::domain::message::MessageType;
use crate::error::Result;
use crate::support::sanitize;

use super::messenger::Messenger;
use super::send::{Recipients, SendReport, SendRequest};

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
    /// Nothing was changed (not pending, not the recipient, ambiguous).
    Refused(AckResult),
}

/// Acknowledges the pending message whose id starts with `prefix` as
/// `agent`, who must be its recipient, with an optional short `note`
/// sent along; returns what happened and warnings about the pending list.
pub fn acknowledge(
    messenger: &Messenger<'_>,
    registry: &Registry,
    prefix: &str,
    agent: &str,
    note: Option<&str>,
) -> Result<(Acknowledgement, Vec<String>)> {
    let (result, mut warnings) = messenger
        .acks
        .acknowledge(prefix, &AgentId::parse(agent)?)?;
    let entry = match result {
        AckResult::Acknowledged(entry) => entry,
        other => return Ok((Acknowledgement::Refused(other), warnings)),
    };
    let note = note
        .map(sanitize::one_line)
        .filter(|n| !n.trim().is_empty())
        .map(|n| format!(": {}", n.trim()))
        .unwrap_or_default();
    let mut req = SendRequest::new(
        agent.to_owned(),
        Recipients::One(entry.sender_id.to_string()),
        MessageType::builtin("ACK"),
        format!("ACK {}{note}", entry.msg_id),
    );
    req.parent_msg_id = Some(entry.msg_id.to_string());
    req.system = true;
    let report = messenger.send(registry, req)?;
    warnings.extend(report.warnings.iter().cloned());
    Ok((
        Acknowledgement::Sent {
            entry,
            report: Box::new(report),
        },
        warnings,
    ))
}
