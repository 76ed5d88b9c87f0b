//! The message log's vocabulary, shared by every store of it and every
//! reader: a parsed line (`Record`: a message or a delivery outcome), the
//! outcome of one delivery (`DeliveryOutcome`, `DeliveryStatus`), a message with its latest
//! outcomes (`MessageView`), what a read or a follow returns (`LogContents`,
//! `TailBatch`), and a place in the log (`LogPos`, `Located`).
//! docs/FORMATS.md describes the lines.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::domain::message::Message;
use crate::support::as_read::AsRead;
use crate::support::json::{self, Layout};

use super::log_line::LoggedMessage;

/// Whether a recipient got the message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DeliveryStatus {
    /// Pasted and submitted in the recipient's pane, or taken by the
    /// agent as a turn's input through its own channel.
    Delivered,
    /// Not typed into the pane; waits in the inbox (`reason` says why).
    Queued,
    /// Held back because the agent's screen was not safe to type into
    /// (`reason` says why); swarm types it as soon as it is.
    Held,
    /// Written to the agent's own channel and recorded by the agent, not
    /// taken yet (it is busy): it takes it when its turn ends.
    Accepted,
    /// Written to the agent's own channel, which holds it for the
    /// person's approval (Claude Code in bypass mode).
    AwaitingApproval,
    /// Held for the person's approval and never approved: gone.
    Expired,
    /// Recorded by the agent and then removed without being taken.
    Dropped,
    /// Written to the agent's own channel, with no record of it from the
    /// agent (yet). Never typed as well.
    Unconfirmed,
    /// The agent's own channel refused it before anything was written,
    /// and it could not be typed either (`reason` says why).
    Refused,
}

impl DeliveryStatus {
    /// Its name, as the log writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            DeliveryStatus::Delivered => "delivered",
            DeliveryStatus::Queued => "queued",
            DeliveryStatus::Held => "held",
            DeliveryStatus::Accepted => "accepted",
            DeliveryStatus::AwaitingApproval => "awaiting_approval",
            DeliveryStatus::Expired => "expired",
            DeliveryStatus::Dropped => "dropped",
            DeliveryStatus::Unconfirmed => "unconfirmed",
            DeliveryStatus::Refused => "refused",
        }
    }
}

/// Which way a message went into an agent.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Via {
    /// Claude Code's messaging socket.
    Socket,
    /// Codex CLI's app server.
    AppServer,
    /// Typed into the pane.
    Typed,
}

impl Via {
    /// Its name, as the log writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            Via::Socket => "socket",
            Via::AppServer => "app-server",
            Via::Typed => "typed",
        }
    }
}

/// What confirmed that a delivered message reached the agent.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ConfirmedBy {
    /// The recipient's own prompt hook reported the submitted text holding
    /// the message's id.
    Hook,
    /// Only the screen showed it: the text left the input box.
    Screen,
    /// The agent's transcript recorded it as a peer message it took.
    Transcript,
    /// The agent's app server reported the turn it started.
    AppServer,
}

impl ConfirmedBy {
    /// Its name, as the log writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            ConfirmedBy::Hook => "hook",
            ConfirmedBy::Screen => "screen",
            ConfirmedBy::Transcript => "transcript",
            ConfirmedBy::AppServer => "app-server",
        }
    }
}

/// The note on a delivery whose Enter was pressed a second time.
pub(crate) const SECOND_ENTER: &str =
    "Enter pressed a second time: the text was still in the input box after the first";

/// The note on a delivery pasted a second time before its Enter.
pub(crate) const PASTED_AGAIN: &str =
    "pasted a second time: the agent lost the first paste in a redraw before Enter";

/// The outcome of one delivery attempt to one recipient.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeliveryOutcome {
    /// Delivered or queued.
    pub status: DeliveryStatus,
    /// Why it was queued or held; for a delivery, what it took beyond a
    /// paste and one Enter (`SECOND_ENTER`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// For a delivery into an agent whose screen swarm reads: whether the
    /// text was seen leaving the input box.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confirmed: Option<bool>,
    /// Held only until the agent's busy turn ends (a normal message):
    /// accepted, it goes in by itself then.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn_end: Option<bool>,
    /// For a confirmed delivery: what confirmed it (`hook`, `screen`,
    /// `transcript`, `app-server`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confirmed_by: Option<ConfirmedBy>,
    /// Which way it went in (`socket`, `app-server`, `typed`); unset on
    /// records written before swarm had native channels, and where nothing
    /// went in (queued, held).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub via: Option<Via>,
}

impl DeliveryOutcome {
    /// Delivered.
    pub fn delivered() -> DeliveryOutcome {
        DeliveryOutcome {
            status: DeliveryStatus::Delivered,
            reason: None,
            confirmed: None,
            turn_end: None,
            confirmed_by: None,
            via: None,
        }
    }

    /// Delivered, and whether the text was seen leaving the input box.
    pub fn delivered_confirmed(confirmed: bool) -> DeliveryOutcome {
        DeliveryOutcome {
            confirmed: Some(confirmed),
            confirmed_by: confirmed.then_some(ConfirmedBy::Screen),
            ..DeliveryOutcome::delivered()
        }
    }

    /// Delivered, as the recipient's own prompt hook reported: the agent
    /// took the text as a prompt.
    pub fn confirmed_by_hook(self) -> DeliveryOutcome {
        DeliveryOutcome {
            status: DeliveryStatus::Delivered,
            confirmed: Some(true),
            confirmed_by: Some(ConfirmedBy::Hook),
            ..self
        }
    }

    /// This delivery's Enter was pressed a second time: the text was still
    /// in the input box after the first (the agent had dropped it).
    pub fn after_second_enter(self) -> DeliveryOutcome {
        DeliveryOutcome {
            reason: Some(SECOND_ENTER.to_owned()),
            ..self
        }
    }

    /// The same, noting that the text was pasted again before Enter (a
    /// reason already there, such as a second Enter, stays).
    pub(crate) fn after_second_paste(self) -> DeliveryOutcome {
        DeliveryOutcome {
            reason: self.reason.or_else(|| Some(PASTED_AGAIN.to_owned())),
            ..self
        }
    }

    /// Queued, with the reason.
    pub fn queued(reason: impl Into<String>) -> DeliveryOutcome {
        DeliveryOutcome {
            status: DeliveryStatus::Queued,
            reason: Some(reason.into()),
            confirmed: None,
            turn_end: None,
            confirmed_by: None,
            via: None,
        }
    }

    /// Kept in the person's inbox (they have no pane): delivered there.
    pub fn to_person() -> DeliveryOutcome {
        DeliveryOutcome {
            status: DeliveryStatus::Delivered,
            reason: Some(
                "kept in the operator's inbox (a person has no pane; they were told)".into(),
            ),
            confirmed: None,
            turn_end: None,
            confirmed_by: None,
            via: None,
        }
    }

    /// Held until the pane is safe, with the reason.
    pub fn held(reason: impl Into<String>) -> DeliveryOutcome {
        DeliveryOutcome {
            status: DeliveryStatus::Held,
            reason: Some(reason.into()),
            confirmed: None,
            turn_end: None,
            confirmed_by: None,
            via: None,
        }
    }

    /// Held until the agent's turn ends, with the reason: a normal
    /// message to a busy agent, accepted.
    pub fn held_for_turn(reason: impl Into<String>) -> DeliveryOutcome {
        DeliveryOutcome {
            turn_end: Some(true),
            ..DeliveryOutcome::held(reason)
        }
    }

    /// True when it waits only for the end of the agent's turn.
    pub fn waits_for_turn(&self) -> bool {
        self.status == DeliveryStatus::Held && self.turn_end == Some(true)
    }

    /// Its state in the log's own words, for the monitor's and the
    /// dashboard's feeds: the status, then which way it went in and what
    /// confirmed it (`accepted (socket)`, `delivered (app-server, confirmed
    /// by app-server)`). `None` for an outcome in one of the states that
    /// came before native channels (delivered, queued, held) that was
    /// typed or has no `via` (written before there were native channels):
    /// those feeds show such outcomes as they always did.
    pub fn state_words(&self) -> Option<String> {
        let before_native = matches!(
            self.status,
            DeliveryStatus::Delivered | DeliveryStatus::Queued | DeliveryStatus::Held
        );
        if before_native && self.via.is_none_or(|v| v == Via::Typed) {
            return None;
        }
        let mut how: Vec<String> = self.via.iter().map(|v| v.as_str().to_owned()).collect();
        if let Some(by) = self.confirmed_by {
            how.push(format!("confirmed by {}", by.as_str()));
        }
        let word = self.status.as_str();
        Some(if how.is_empty() {
            word.to_owned()
        } else {
            format!("{word} ({})", how.join(", "))
        })
    }

    /// How a person reads it: `delivered and confirmed`, `delivered
    /// (unconfirmed)`, `delivered`, `held: why`, `queued: why`.
    pub fn describe(&self) -> String {
        let why = self.reason.as_deref().unwrap_or("no reason recorded");
        let how = self
            .reason
            .as_deref()
            .map(|r| format!(" ({r})"))
            .unwrap_or_default();
        match (self.status, self.confirmed) {
            (DeliveryStatus::Delivered, Some(true))
                if self.confirmed_by == Some(ConfirmedBy::Hook) =>
            {
                format!("delivered and confirmed by the agent's hook{how}")
            }
            (DeliveryStatus::Delivered, Some(true)) => format!("delivered and confirmed{how}"),
            (DeliveryStatus::Delivered, Some(false)) => format!("delivered (unconfirmed){how}"),
            (DeliveryStatus::Delivered, None) => format!("delivered{how}"),
            (DeliveryStatus::Held, _) => format!("held: {why}"),
            (DeliveryStatus::Queued, _) => format!("queued: {why}"),
            (DeliveryStatus::Accepted, _) => format!("accepted by the agent{how}"),
            (DeliveryStatus::AwaitingApproval, _) => {
                format!("accepted, awaiting the person's approval in the agent{how}")
            }
            (DeliveryStatus::Expired, _) => format!("expired: {why}"),
            (DeliveryStatus::Dropped, _) => format!("dropped: {why}"),
            (DeliveryStatus::Unconfirmed, _) => format!("sent, unconfirmed{how}"),
            (DeliveryStatus::Refused, _) => format!("refused: {why}"),
        }
    }

    /// Through an agent's own channel: `status`, which way, what confirmed
    /// it (for a delivery) and a note.
    pub fn native(
        status: DeliveryStatus,
        via: Via,
        confirmed_by: Option<ConfirmedBy>,
        reason: Option<String>,
    ) -> DeliveryOutcome {
        DeliveryOutcome {
            status,
            reason,
            confirmed: (status == DeliveryStatus::Delivered).then_some(confirmed_by.is_some()),
            turn_end: (status == DeliveryStatus::Accepted).then_some(true),
            confirmed_by,
            via: Some(via),
        }
    }

    /// The same outcome, noting which way it went in.
    pub fn with_via(self, via: Via) -> DeliveryOutcome {
        DeliveryOutcome {
            via: Some(via),
            ..self
        }
    }

    /// True when the agent has it through its own channel but has not
    /// taken it yet (accepted, awaiting approval, unconfirmed): swarm will
    /// never send it again, so a sender must not either.
    pub fn is_with_agent(&self) -> bool {
        matches!(
            self.status,
            DeliveryStatus::Accepted
                | DeliveryStatus::AwaitingApproval
                | DeliveryStatus::Unconfirmed
        )
    }

    /// This outcome, recorded after `earlier` for the same recipient: the
    /// latest one stands, except that a delivery the recipient's hook
    /// confirmed stays so when a sender's own record of it (the screen's
    /// word) comes later.
    pub fn after(self, earlier: &DeliveryOutcome) -> DeliveryOutcome {
        if earlier.confirmed_by == Some(ConfirmedBy::Hook)
            && self.is_delivered()
            && self.confirmed_by != Some(ConfirmedBy::Hook)
        {
            earlier.clone()
        } else {
            self
        }
    }

    /// True when delivered.
    pub fn is_delivered(&self) -> bool {
        self.status == DeliveryStatus::Delivered
    }
}

/// swarm's outcome line. It carries an empty `recipients` list so that
/// readers of the Python tool, which pick lines by recipient, skip it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DeliveryRecord {
    /// Always `"delivery"`.
    pub event: String,
    /// The message this is about.
    pub msg_id: String,
    /// When the attempt finished (UTC).
    pub timestamp: String,
    /// Always empty (see the type's doc).
    pub recipients: Vec<String>,
    /// The outcome per recipient attempted.
    pub outcomes: Map<String, Value>,
    /// Who sent it when an agent spoke for another (`--as-other`), or
    /// what kind of attempt this was (`redelivery`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// The topic a broadcast went to (`swarm broadcast --topic`): kept
    /// here, in swarm's own record, since the message line has the Python
    /// tool's keys only (docs/FORMATS.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub topic: Option<String>,
    /// The line it was read from, written back as it was while the
    /// record still says the same.
    #[serde(skip)]
    line: AsRead<Box<str>>,
}

impl DeliveryRecord {
    /// A record of `outcomes` for `msg_id`, stamped now.
    pub fn new(
        msg_id: &str,
        outcomes: &[(String, DeliveryOutcome)],
        note: Option<String>,
    ) -> DeliveryRecord {
        let mut map = Map::new();
        for (recipient, outcome) in outcomes {
            map.insert(
                recipient.clone(),
                serde_json::to_value(outcome).unwrap_or(Value::Null),
            );
        }
        DeliveryRecord {
            event: "delivery".into(),
            msg_id: msg_id.to_owned(),
            timestamp: crate::support::time::utc_iso(crate::support::time::now()),
            recipients: Vec::new(),
            outcomes: map,
            note,
            topic: None,
            line: AsRead::none(),
        }
    }

    /// The same record naming the topic the message went to.
    pub fn with_topic(mut self, topic: Option<String>) -> DeliveryRecord {
        self.topic = topic;
        self
    }

    /// Reads the delivery line `line`, already parsed as `value`.
    fn read(value: Value, line: &str) -> Option<DeliveryRecord> {
        let mut record: DeliveryRecord = serde_json::from_value(value).ok()?;
        record.line = AsRead::kept(line.into());
        Some(record)
    }

    /// The line's bytes, without the newline: as read, unless the record
    /// was changed since; else written from the fields.
    fn to_line(&self) -> Result<Vec<u8>, serde_json::Error> {
        if let Some(line) = self.line.get()
            && parse_line(line).is_some_and(|r| r == Record::Delivery(self.clone()))
        {
            return Ok(line.as_bytes().to_vec());
        }
        json::to_vec(self, Layout::Line)
    }
}

/// One parsed log line: a message (with the verdicts its line carries) or
/// a delivery outcome. A record read from a log is written back as the
/// line it was read from (docs/FORMATS.md).
#[derive(Clone, Debug, PartialEq)]
pub enum Record {
    /// A message (written by swarm or the Python tool).
    Message(LoggedMessage),
    /// A delivery outcome (swarm only).
    Delivery(DeliveryRecord),
}

impl Record {
    /// The line of this record, without its newline.
    pub fn to_line(&self) -> Result<Vec<u8>, serde_json::Error> {
        match self {
            Record::Message(m) => m.to_line(),
            Record::Delivery(d) => d.to_line(),
        }
    }

    /// The record of `message` logged with real-time verdicts for its
    /// first recipients.
    #[cfg(any(test, feature = "testing"))]
    pub fn logged(message: &Message, delivered: &[bool]) -> Record {
        Record::Message(LoggedMessage::new(message.clone()).with_verdicts(delivered))
    }
}

/// A message with its latest known outcome per recipient.
#[derive(Clone, Debug, PartialEq)]
pub struct MessageView {
    /// The message.
    pub message: Message,
    /// Its line's `timestamp` as written (`LoggedMessage::timestamp`):
    /// what views print and read positions record.
    pub timestamp: String,
    /// Latest outcome per recipient (from delivery records, else from the
    /// message line's `delivery_status`).
    pub outcomes: Vec<(String, DeliveryOutcome)>,
    /// The topic it was broadcast to, when a delivery record names one.
    pub topic: Option<String>,
}

impl MessageView {
    /// The latest outcome for one recipient.
    pub fn outcome_for(&self, recipient: &str) -> Option<&DeliveryOutcome> {
        self.outcomes
            .iter()
            .find(|(r, _)| r == recipient)
            .map(|(_, o)| o)
    }
}

/// Everything in the log (the rotated part first).
#[derive(Clone, Debug, Default)]
pub struct LogContents {
    /// Parsed lines in log order.
    pub records: Vec<Record>,
    /// Lines that were neither a message nor a delivery record.
    pub skipped: usize,
}

impl LogContents {
    /// Messages in log order, each with its outcomes merged in.
    pub fn messages(&self) -> Vec<MessageView> {
        let mut views: Vec<MessageView> = Vec::new();
        let mut index: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
        for record in &self.records {
            match record {
                Record::Message(logged) => {
                    let message = logged.message();
                    let status = logged.delivery_status();
                    let outcomes = message
                        .recipients
                        .iter()
                        .map(|r| {
                            let delivered =
                                status.get(r.as_str()).and_then(Value::as_bool) == Some(true);
                            let o = if delivered {
                                DeliveryOutcome::delivered()
                            } else {
                                DeliveryOutcome::queued("not delivered in real time")
                            };
                            (r.to_string(), o)
                        })
                        .collect();
                    index.insert(message.msg_id.as_str(), views.len());
                    views.push(MessageView {
                        message: message.clone(),
                        timestamp: logged.timestamp().to_owned(),
                        outcomes,
                        topic: None,
                    });
                }
                Record::Delivery(d) => {
                    let Some(&i) = index.get(d.msg_id.as_str()) else {
                        continue;
                    };
                    if views[i].topic.is_none() {
                        views[i].topic.clone_from(&d.topic);
                    }
                    for (recipient, value) in &d.outcomes {
                        let Ok(outcome) = serde_json::from_value::<DeliveryOutcome>(value.clone())
                        else {
                            continue;
                        };
                        let view = &mut views[i];
                        match view.outcomes.iter_mut().find(|(r, _)| r == recipient) {
                            Some(slot) => slot.1 = outcome.after(&slot.1),
                            None => view.outcomes.push((recipient.clone(), outcome)),
                        }
                    }
                }
            }
        }
        views
    }
}

/// Parses one line; `None` for blank or foreign lines (docs/FORMATS.md
/// says which lines are messages).
pub fn parse_line(line: &str) -> Option<Record> {
    let line = line.trim();
    if line.is_empty() {
        return None;
    }
    let value: Value = serde_json::from_str(line).ok()?;
    if value.get("event").and_then(Value::as_str) == Some("delivery") {
        return DeliveryRecord::read(value, line).map(Record::Delivery);
    }
    LoggedMessage::read(value, line).map(Record::Message)
}

/// New lines read from the log, parsed.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TailBatch {
    /// Parsed records in log order.
    pub records: Vec<Record>,
    /// Non-blank lines that were neither a message nor a delivery record.
    pub skipped: usize,
    /// The log was rotated or truncated since the last read.
    pub rotated: bool,
}

/// A place in the log: just after a line, usually.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LogPos {
    /// The segment's number (the live log's is the index's `next`).
    pub segment: u64,
    /// The segment's inode.
    pub ino: u64,
    /// Bytes into the segment.
    pub offset: u64,
}

impl LogPos {
    /// Whether `self` is past `other` (segments by number, then offset).
    pub fn after(&self, other: &LogPos) -> bool {
        (self.segment, self.offset) > (other.segment, other.offset)
    }
}

/// A record with where it is in the log.
#[derive(Clone, Debug)]
pub struct Located {
    /// The record.
    pub record: Record,
    /// Index of its segment in the `SegmentSet`.
    pub seg: usize,
    /// Its segment's position and the offset just past its line.
    pub end: LogPos,
}
