//! `FeedMessage`: one logged message as the feed shows it (its body made
//! safe to draw, its delivery per recipient, its acknowledgement), and
//! each sender's latest `Activity`.

use chrono::{DateTime, Utc};

use swarm_core::support::sanitize;
use swarm_core::{AgentId, LoggedMessage, Message, Timestamp, ack_marker};
use swarm_core::{DeliveryOutcome, DeliveryStatus as Delivery};

/// What became of a request for an acknowledgement, as far as the log
/// tells.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AckMark {
    /// The message did not ask for one.
    NotAsked,
    /// It asked; whether it still waits is in the pending list.
    Asked,
    /// The recipient acknowledged it.
    Acknowledged,
    /// Nobody acknowledged it and it was escalated to every agent.
    Escalated,
}

/// One message in the feed.
#[derive(Clone, Debug, PartialEq)]
pub struct FeedMessage {
    /// The message.
    pub message: Message,
    /// When it was logged, if its line's time could be read.
    pub when: Option<DateTime<Utc>>,
    /// Delivery per recipient, `None` until an outcome is known.
    pub outcomes: Vec<(String, Option<DeliveryOutcome>)>,
    /// The content made safe to draw (controls removed) and without the
    /// acknowledgement marker, which the feed shows as a tag.
    pub body: String,
    /// Lowercased sender, recipients, type and body, for `/`.
    pub haystack: String,
    /// Acknowledgement state.
    pub ack: AckMark,
}

/// When a message was logged, as the feed shows it: not known for a line
/// whose time did not parse, which carries the Unix epoch instead
/// (docs/FORMATS.md).
pub(super) fn logged_at(message: &Message) -> Option<DateTime<Utc>> {
    (message.created != Timestamp::UNIX_EPOCH).then(|| message.created.utc())
}

impl FeedMessage {
    /// Prepares a logged message for the feed.
    pub fn new(logged: LoggedMessage) -> FeedMessage {
        let m = logged.message();
        let when = logged_at(m);
        let marker = ack_marker(m.msg_id.as_str());
        let asked = m.requires_ack || m.content.starts_with(&marker);
        let content = m
            .content
            .strip_prefix(&marker)
            .map(str::trim_start)
            .unwrap_or(&m.content);
        let body = sanitize::strip_controls(content).replace('\t', "    ");
        // swarm logs a message before delivering it (no verdict yet) and
        // its outcome afterwards as a delivery record; only
        // the Python tool's lines (naive local times, no offset) carry the
        // real outcome in `delivery_status`.
        let outcome_in_line = DateTime::parse_from_rfc3339(logged.timestamp()).is_err();
        let outcomes = m
            .recipients
            .iter()
            .map(|r| {
                let known = logged
                    .delivery_status()
                    .get(r.as_str())
                    .and_then(|v| v.as_bool())
                    .filter(|_| outcome_in_line);
                let status = known.map(|d| {
                    if d {
                        DeliveryOutcome::delivered()
                    } else {
                        DeliveryOutcome {
                            reason: None,
                            ..DeliveryOutcome::queued("")
                        }
                    }
                });
                (r.to_string(), status)
            })
            .collect();
        let recipients: Vec<&str> = m.recipients.iter().map(AgentId::as_str).collect();
        let haystack = format!(
            "{} {} {} {}",
            m.sender,
            recipients.join(" "),
            m.msg_type.as_str(),
            body
        )
        .to_lowercase();
        FeedMessage {
            when,
            outcomes,
            body,
            haystack,
            ack: if asked {
                AckMark::Asked
            } else {
                AckMark::NotAsked
            },
            message: logged.into_message(),
        }
    }

    /// Recipients whose copy waits in their inbox.
    pub fn queued(&self) -> usize {
        self.outcomes
            .iter()
            .filter(|(_, o)| o.as_ref().is_some_and(|o| o.status == Delivery::Queued))
            .count()
    }

    /// What the feed says of each recipient whose copy went through an
    /// agent's own channel or ended in one of its states: the status word
    /// as the log writes it, then which way it went in and what confirmed
    /// it (`agent-2 delivered (app-server, confirmed by app-server)`).
    /// Outcomes without `via` in the old states say nothing here.
    pub fn native_states(&self) -> Vec<(String, Delivery)> {
        self.outcomes
            .iter()
            .filter_map(|(r, o)| {
                let o = o.as_ref()?;
                let word = o.state_words()?;
                Some((format!("{} {word}", sanitize::one_line(r)), o.status))
            })
            .collect()
    }
}

/// The latest message an agent sent.
#[derive(Clone, Debug, PartialEq)]
pub struct Activity {
    /// When.
    pub at: Option<DateTime<Utc>>,
    /// Its type.
    pub msg_type: String,
}
