//! The ACK retry engine: sends the retries and escalations that the
//! pending list says are due, oldest obligation first, all of them or a
//! bounded portion. Claiming happens in `acks` under the pending file's
//! lock before anything is sent, so however many processes run this at
//! once, each retry goes out at most once.

use std::collections::BTreeSet;
use std::time::Instant;

use chrono::{DateTime, Utc};

use crate::acks::{self, AckSettings, DueAction, Known, PendingEntry, ack_marker, format_age};
use crate::agents::registry::Registry;
use crate::domain::message::{MessageType, Urgency};
use crate::error::Result;
use crate::support::time;

use super::messenger::Messenger;
use super::pane_text::pane_header;
use super::send::{Recipients, SendRequest, Typed};
use crate::log::record::DeliveryOutcome;

/// What one processing pass did.
#[derive(Clone, Debug, Default)]
pub struct ProcessReport {
    /// Retries sent: message id, recipient, retry number, outcome.
    pub retried: Vec<(String, String, u32, DeliveryOutcome)>,
    /// Escalations: message id, recipient, escalation message id.
    pub escalated: Vec<(String, String, String)>,
    /// Problems worth reporting.
    pub warnings: Vec<String>,
    /// Due entries left for later because the registry read could not say
    /// whether their recipient is still there: message id, recipient.
    pub waiting: Vec<(String, String)>,
}

impl ProcessReport {
    /// Retries and escalations sent.
    pub fn obligations(&self) -> usize {
        self.retried.len() + self.escalated.len()
    }
}

/// The registry a pass judges recipients by, and whether it can be
/// trusted to say who left: only a registry read whole, with no entry
/// skipped, can. Any other (missing, damaged, entries skipped) only says
/// who is there.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Roster<'r> {
    /// The agents read.
    pub(crate) registry: &'r Registry,
    /// Read whole: an agent it does not list has left.
    pub(crate) complete: bool,
}

impl Roster<'_> {
    fn known(&self, id: &str) -> Known {
        match self.registry.find(id) {
            Some(_) => Known::Registered,
            None if self.complete => Known::Gone,
            None => Known::Unsure,
        }
    }
}

/// A bounded portion of the due work: the oldest obligation always, then
/// the next oldest one at a time while fewer than `most` were sent and
/// `until` has not passed.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Portion {
    /// At most this many retries and escalations.
    pub(crate) most: usize,
    /// None started after this.
    pub(crate) until: Instant,
}

/// Sends the retries and escalations that are due, oldest first: every
/// one, or (with `portion`) a bounded share of them, each exactly once
/// even with several processes doing this at the same time. An entry
/// whose recipient `roster` cannot judge stays due and is reported.
pub(crate) fn process_due(
    messenger: &Messenger<'_>,
    roster: Roster<'_>,
    settings: &AckSettings,
    now: DateTime<Utc>,
    portion: Option<Portion>,
) -> Result<ProcessReport> {
    let mut report = ProcessReport::default();
    let limits = messenger.limits.read().unwrap_or_default();
    let mut waiting = BTreeSet::new();
    loop {
        let work = acks::claim_due(
            messenger.acks,
            |id| roster.known(id),
            |id| limits.of_agent(id).is_some(),
            settings,
            now,
            portion.map(|_| 1),
        )?;
        report.warnings.extend(work.warnings);
        waiting.extend(work.unsure);
        if work.actions.is_empty() {
            break;
        }
        send_claimed(
            messenger,
            roster.registry,
            settings,
            now,
            work.actions,
            &mut report,
        )?;
        match portion {
            None => break,
            Some(p) if report.obligations() >= p.most || Instant::now() >= p.until => break,
            Some(_) => {}
        }
    }
    report.waiting = waiting.into_iter().collect();
    if !report.waiting.is_empty() {
        let agents: BTreeSet<&str> = report.waiting.iter().map(|(_, a)| a.as_str()).collect();
        let agents: Vec<&str> = agents.into_iter().collect();
        report.warnings.push(format!(
            "{} due ACK retr{} for {} wait: the registry read cannot say whether {} still \
             there; nothing is escalated until a good registry lists or drops {}",
            report.waiting.len(),
            if report.waiting.len() == 1 {
                "y"
            } else {
                "ies"
            },
            agents.join(", "),
            if agents.len() == 1 {
                "it is"
            } else {
                "they are"
            },
            if agents.len() == 1 { "it" } else { "them" },
        ));
    }
    Ok(report)
}

/// Sends what was claimed, into `report`.
fn send_claimed(
    messenger: &Messenger<'_>,
    registry: &Registry,
    settings: &AckSettings,
    now: DateTime<Utc>,
    actions: Vec<DueAction>,
    report: &mut ProcessReport,
) -> Result<()> {
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
    Ok(())
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
        .strip_prefix(&format!("{} ", ack_marker(entry.msg_id.as_str())))
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
