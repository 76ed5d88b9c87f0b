//! The activity feed's vocabulary: what happened (`EventKind`), and one
//! line of the feed (`FeedEntry`), the JSON object `swarm feed --json`
//! prints, a webhook receives and docs/FORMATS.md describes. Attention
//! events (someone is needed) and the record of what the swarm did share
//! one shape, so one reader follows both.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::domain::Timestamp;

/// What a feed line records.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EventKind {
    /// An agent's pane opened a dialog: a permission prompt or a menu.
    NeedsInput,
    /// An agent ended its turn and waits, with nothing queued for it.
    Finished,
    /// An agent's process is gone: its pane died or shows a shell.
    Exited,
    /// An agent's turn ended on an error from its model's API (a rate or
    /// usage limit, a refused key, an overloaded server), as its own hook
    /// reported it.
    TurnFailed,
    /// An agent has been busy with nothing new on its screen for long.
    Stuck,
    /// A message to the person (`swarm msg operator ...`).
    Message,
    /// An agent crossed a share of its budget.
    Budget,
    /// An agent joined the registry.
    Joined,
    /// An agent left the registry.
    Left,
    /// A lock was taken.
    LockTaken,
    /// A lock was released by its holder.
    LockReleased,
    /// A stale or expired lock was removed.
    LockExpired,
    /// A lock was released by someone other than its holder.
    LockForced,
    /// A message was sent.
    MessageSent,
    /// A message was held back from a pane that was not safe.
    MessageHeld,
    /// A held message went in.
    MessageReleased,
    /// An agent accepted a message through its own channel and has not
    /// taken it yet (busy, or holding it for the person's approval).
    MessageAccepted,
    /// A message written to an agent's own channel left no record there.
    MessageUnconfirmed,
    /// An agent took a message it had accepted.
    MessageTaken,
    /// A message an agent held for the person's approval expired.
    MessageExpired,
    /// An agent removed a message it had accepted without taking it.
    MessageDropped,
    /// A message asking for an acknowledgement got none in time.
    AckEscalated,
    /// A person answered a dialog (`swarm answer`).
    Answered,
    /// A notification could not be sent.
    NotifyFailed,
    /// An agent hit its vendor's usage limit.
    Limited,
    /// A usage limit's reset time passed.
    LimitReset,
}

/// Every kind, in the order of `swarm feed --help`.
pub const ALL_KINDS: [EventKind; 26] = [
    EventKind::NeedsInput,
    EventKind::Finished,
    EventKind::Exited,
    EventKind::TurnFailed,
    EventKind::Stuck,
    EventKind::Limited,
    EventKind::LimitReset,
    EventKind::Message,
    EventKind::Budget,
    EventKind::Joined,
    EventKind::Left,
    EventKind::LockTaken,
    EventKind::LockReleased,
    EventKind::LockExpired,
    EventKind::LockForced,
    EventKind::MessageSent,
    EventKind::MessageHeld,
    EventKind::MessageReleased,
    EventKind::MessageAccepted,
    EventKind::MessageUnconfirmed,
    EventKind::MessageTaken,
    EventKind::MessageExpired,
    EventKind::MessageDropped,
    EventKind::AckEscalated,
    EventKind::Answered,
    EventKind::NotifyFailed,
];

/// The kinds that tell the person someone needs them, and are notified.
pub(crate) const ATTENTION_KINDS: [EventKind; 9] = [
    EventKind::NeedsInput,
    EventKind::Finished,
    EventKind::Exited,
    EventKind::TurnFailed,
    EventKind::Stuck,
    EventKind::Message,
    EventKind::Budget,
    EventKind::Limited,
    EventKind::LimitReset,
];

impl EventKind {
    /// The name in the feed (`needs_input`, `lock_taken`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            EventKind::NeedsInput => "needs_input",
            EventKind::Finished => "finished",
            EventKind::Exited => "exited",
            EventKind::TurnFailed => "turn_failed",
            EventKind::Stuck => "stuck",
            EventKind::Message => "message",
            EventKind::Budget => "budget",
            EventKind::Joined => "joined",
            EventKind::Left => "left",
            EventKind::LockTaken => "lock_taken",
            EventKind::LockReleased => "lock_released",
            EventKind::LockExpired => "lock_expired",
            EventKind::LockForced => "lock_forced",
            EventKind::MessageSent => "message_sent",
            EventKind::MessageHeld => "message_held",
            EventKind::MessageReleased => "message_released",
            EventKind::MessageAccepted => "message_accepted",
            EventKind::MessageUnconfirmed => "message_unconfirmed",
            EventKind::MessageTaken => "message_taken",
            EventKind::MessageExpired => "message_expired",
            EventKind::MessageDropped => "message_dropped",
            EventKind::AckEscalated => "ack_escalated",
            EventKind::Answered => "answered",
            EventKind::NotifyFailed => "notify_failed",
            EventKind::Limited => "limited",
            EventKind::LimitReset => "limit_reset",
        }
    }

    /// The kind a name stands for.
    pub fn parse(name: &str) -> Option<EventKind> {
        ALL_KINDS.into_iter().find(|k| k.as_str() == name)
    }

    /// Whether this kind tells the person that someone needs them.
    pub fn is_attention(self) -> bool {
        ATTENTION_KINDS.contains(&self)
    }

    /// A few words for people: "needs you", "finished its turn", ...
    pub fn headline(self) -> &'static str {
        match self {
            EventKind::NeedsInput => "needs you",
            EventKind::Finished => "finished its turn",
            EventKind::Exited => "exited",
            EventKind::TurnFailed => "had its turn fail",
            EventKind::Stuck => "looks stuck",
            EventKind::Message => "wrote to you",
            EventKind::Budget => "is near its budget",
            EventKind::Joined => "joined",
            EventKind::Left => "left",
            EventKind::LockTaken => "took a lock",
            EventKind::LockReleased => "released a lock",
            EventKind::LockExpired => "lost a lock",
            EventKind::LockForced => "had a lock released",
            EventKind::MessageSent => "sent a message",
            EventKind::MessageHeld => "has a message held",
            EventKind::MessageReleased => "got a held message",
            EventKind::MessageAccepted => "accepted a message",
            EventKind::MessageUnconfirmed => "left a message unconfirmed",
            EventKind::MessageTaken => "took an accepted message",
            EventKind::MessageExpired => "let a held message expire",
            EventKind::MessageDropped => "dropped an accepted message",
            EventKind::AckEscalated => "did not acknowledge",
            EventKind::Answered => "was answered",
            EventKind::NotifyFailed => "could not be notified",
            EventKind::Limited => "hit its usage limit",
            EventKind::LimitReset => "can work again: its usage limit reset",
        }
    }
}

impl fmt::Display for EventKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What saw an attention event: the agent's own hook, or a look at its
/// screen. An episode is raised once, by whichever saw it first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    /// The agent's own hook (its settings run `swarm hook`).
    Hook,
    /// swarm's look at the agent's screen.
    Screen,
}

impl Source {
    /// The name in the feed (`hook`, `screen`).
    pub fn as_str(self) -> &'static str {
        match self {
            Source::Hook => "hook",
            Source::Screen => "screen",
        }
    }
}

/// One option of a dialog, as read from the screen.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DialogOption {
    /// Its number on screen (`1.`), or its position from 1 when the
    /// dialog does not number its options.
    pub number: u32,
    /// Its label (`Yes, proceed (y)`).
    pub label: String,
    /// Whether it is the highlighted one (what Enter would pick).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub highlighted: bool,
}

/// One line of the activity feed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FeedEntry {
    /// When it happened (RFC 3339, UTC).
    #[serde(with = "crate::domain::utc_iso")]
    pub time: Timestamp,
    /// What happened.
    pub event: EventKind,
    /// The agent it is about (`None` for the swarm as a whole).
    #[serde(default)]
    pub agent: Option<String>,
    /// A short human-readable line: the dialog's question, the message's
    /// text, the lock's path.
    #[serde(default)]
    pub detail: String,
    /// The host whose watcher saw it (on a store shared by several hosts).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
    /// The episode of an attention event (per agent and kind, counting
    /// from 1), so that a reader can tell a new dialog from the same one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub episode: Option<u64>,
    /// A dialog's options, as read from the screen.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub options: Vec<DialogOption>,
    /// A dialog's other rows (the command it asks about), at most a few.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub context: Vec<String>,
    /// The message it is about.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub msg_id: Option<String>,
    /// What saw an attention event (`hook` or `screen`); absent on the
    /// record of what the swarm did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<Source>,
    /// Who else is involved: a message's sender, a forced lock's
    /// releaser, the person who answered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub by: Option<String>,
    /// For `limited`: when the limit resets, as the agent printed it.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "crate::domain::utc_iso::option"
    )]
    pub until: Option<Timestamp>,
}

impl FeedEntry {
    /// A line about `agent` (or the swarm), now.
    pub(crate) fn new(
        event: EventKind,
        agent: Option<&str>,
        detail: impl Into<String>,
    ) -> FeedEntry {
        FeedEntry {
            time: Timestamp::now(),
            event,
            agent: agent.map(str::to_owned),
            detail: detail.into(),
            host: None,
            episode: None,
            options: Vec::new(),
            context: Vec::new(),
            msg_id: None,
            source: None,
            by: None,
            until: None,
        }
    }

    /// The same, about a message.
    pub(crate) fn with_message(mut self, msg_id: &str) -> FeedEntry {
        self.msg_id = Some(msg_id.to_owned());
        self
    }

    /// The same, naming who else is involved.
    pub(crate) fn by(mut self, who: &str) -> FeedEntry {
        self.by = Some(who.to_owned());
        self
    }

    /// One readable line: `agent-1 needs you: Do you want to proceed?`.
    pub fn text(&self) -> String {
        let who = self.agent.as_deref().unwrap_or("swarm");
        // A budget's detail says itself whether it is near or over.
        if self.event == EventKind::Budget
            && let Some((word, rest)) = self
                .detail
                .strip_prefix("over its budget: ")
                .map(|r| ("over", r))
                .or_else(|| {
                    self.detail
                        .strip_prefix("near its budget: ")
                        .map(|r| ("near", r))
                })
        {
            return format!("{who} is {word} its budget: {rest}");
        }
        if self.detail.is_empty() {
            format!("{who} {}", self.event.headline())
        } else {
            format!("{who} {}: {}", self.event.headline(), self.detail)
        }
    }

    /// The JSON object of the feed line.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::to_value(self).unwrap_or(serde_json::Value::Null)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_has_a_name_that_parses_back() {
        for k in ALL_KINDS {
            assert_eq!(EventKind::parse(k.as_str()), Some(k));
            let json = serde_json::to_string(&k).expect("test value");
            assert_eq!(json, format!("\"{}\"", k.as_str()));
        }
        assert_eq!(EventKind::parse("needs-input"), None);
    }

    #[test]
    fn a_feed_line_has_the_documented_keys() {
        let mut e = FeedEntry::new(
            EventKind::NeedsInput,
            Some("agent-1"),
            "Do you want to proceed?",
        );
        // What the file keeps: microseconds.
        e.time = Timestamp::parse_iso(&e.time.utc_iso()).expect("test value");
        e.options.push(DialogOption {
            number: 1,
            label: "Yes".into(),
            highlighted: true,
        });
        let v = e.to_json();
        for key in ["time", "event", "agent", "detail", "options"] {
            assert!(v.get(key).is_some(), "{key} missing in {v}");
        }
        assert_eq!(v["event"], "needs_input");
        assert!(v["time"].as_str().expect("test value").ends_with("+00:00"));
        let back: FeedEntry = serde_json::from_value(v).expect("test value");
        assert_eq!(back, e);
        assert_eq!(e.text(), "agent-1 needs you: Do you want to proceed?");
    }

    #[test]
    fn a_line_with_unknown_keys_still_reads() {
        let line = r#"{"time":"2026-11-26T08:00:00+00:00","event":"joined","agent":"agent-3","detail":"","later":1}"#;
        let e: FeedEntry = serde_json::from_str(line).expect("test value");
        assert_eq!(e.event, EventKind::Joined);
    }
}
