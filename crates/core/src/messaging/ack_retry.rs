//! The ACK retry engine: sends the retries and escalations that the
//! pending list says are due. Claiming happens in `acks` under the pending
//! file's lock before anything is sent, so however many processes run this
//! at once, each retry goes out at most once.

use chrono::{DateTime, Utc};

use crate::acks::{self, AckSettings, DueAction, PendingEntry, format_age, marker};
use crate::agents::registry::Registry;
use crate::domain::message::{MessageType, Urgency};
use crate::error::Result;
use crate::support::time;

use super::messenger::Messenger;
use super::pane_text::pane_header;
use super::send::{Recipients, SendRequest, Typed};
use crate::log::record::Outcome;

/// What one processing pass did.
#[derive(Clone, Debug, Default)]
pub struct ProcessReport {
    /// Retries sent: message id, recipient, retry number, outcome.
    pub retried: Vec<(String, String, u32, Outcome)>,
    /// Escalations: message id, recipient, escalation message id.
    pub escalated: Vec<(String, String, String)>,
    /// Problems worth reporting.
    pub warnings: Vec<String>,
}

/// Sends every retry and escalation that is due, each exactly once even
/// with several processes doing this at the same time.
pub(crate) fn process_due(
    messenger: &Messenger<'_>,
    registry: &Registry,
    settings: &AckSettings,
    now: DateTime<Utc>,
) -> Result<ProcessReport> {
    let mut report = ProcessReport::default();
    let limits = messenger.limits.read().unwrap_or_default();
    let (actions, warnings) = acks::claim_due(
        messenger.acks,
        |id| registry.find(id).is_some(),
        |id| limits.of_agent(id).is_some(),
        settings,
        now,
    )?;
    report.warnings.extend(warnings);
    for action in actions {
        match action {
            DueAction::Retry { entry, n } => {
                let Some(target) = registry.find(entry.recipient_id.as_str()).cloned() else {
                    continue;
                };
                let message = entry.redelivery();
                let mark = format!("[RETRY {n}/{}]", settings.max_retries);
                let (text, _) = messenger.pane_text(&message, Some(&mark))?;
                let marker = pane_header(&message);
                // A retry was waited for long enough: it goes in at once.
                let typed = Typed {
                    msg_id: entry.msg_id.as_str(),
                    text: &text,
                    marker: &marker,
                    urgency: Urgency::Urgent,
                    from_person: false,
                };
                let (outcomes, warnings) = messenger.deliver_logged(
                    typed,
                    &[target],
                    Some(format!("retry {n}/{}", settings.max_retries)),
                    None,
                )?;
                report.warnings.extend(warnings);
                for (r, o) in outcomes {
                    report.retried.push((entry.msg_id.to_string(), r, n, o));
                }
            }
            DueAction::Escalate {
                entry,
                recipient_gone,
            } => {
                let sent = escalate(messenger, registry, &entry, recipient_gone, now, settings)?;
                report.warnings.extend(sent.1);
                report.escalated.push((
                    entry.msg_id.to_string(),
                    entry.recipient_id.to_string(),
                    sent.0,
                ));
            }
        }
    }
    Ok(report)
}

fn escalate(
    messenger: &Messenger<'_>,
    registry: &Registry,
    entry: &PendingEntry,
    recipient_gone: bool,
    now: DateTime<Utc>,
    settings: &AckSettings,
) -> Result<(String, Vec<String>)> {
    let age = format_age(time::age_seconds(entry.sent_at.utc(), now));
    let original = &entry.message().content;
    let original = original
        .strip_prefix(&format!("{} ", marker(entry.msg_id.as_str())))
        .unwrap_or(original);
    let content = if recipient_gone {
        format!(
            "[UNACKNOWLEDGED] {} has left the swarm: message {} from {} ({age} old) was never acknowledged. Original: {original}",
            entry.recipient_id, entry.msg_id, entry.sender_id
        )
    } else {
        format!(
            "[UNACKNOWLEDGED] Message {} from {} to {} unacknowledged after {} retries ({age} old). Original: {original}",
            entry.msg_id, entry.sender_id, entry.recipient_id, settings.max_retries
        )
    };
    let stored = entry.message().msg_type.as_str();
    let msg_type = MessageType::parse(stored, &[stored.to_owned()])
        .unwrap_or_else(|_| MessageType::builtin("INFO"));
    let mut req = SendRequest::new(
        entry.sender_id.to_string(),
        Recipients::All { include_self: true },
        msg_type,
        content,
    );
    req.system = true;
    req.parent_msg_id = Some(entry.msg_id.to_string());
    match messenger.send(registry, req) {
        Ok(report) => Ok((report.message.msg_id.to_string(), report.warnings)),
        // Nobody left to tell: the entry is closed all the same.
        Err(crate::error::Error::NoRecipients(why)) => Ok((
            String::new(),
            vec![format!(
                "escalation of {} reached nobody: {why}",
                entry.msg_id
            )],
        )),
        Err(e) => Err(e),
    }
}
