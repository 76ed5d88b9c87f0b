//! Acknowledgements: messages that need an answer are recorded in the
//! pending list (an `AckStore`; the files are `PENDING_ACKS.json` and
//! `.swarm/ack_due`, docs/FORMATS.md), re-delivered with the same id on an
//! exponential schedule until the recipient runs `swarm ack`, and
//! escalated to every agent when nobody answers. This file holds the
//! entry, the schedule and the decisions; the store claims due work
//! atomically, so however many processes run the retry loop, each retry
//! goes out at most once.

use std::time::Duration;

use backon::{BackoffBuilder, ExponentialBuilder};
use chrono::{DateTime, SubsecRound, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::domain::message::Message;
use crate::domain::message_dict::{self, DictDefaults};
use crate::domain::{AgentId, MessageId, Timestamp};
use crate::error::Result;
use crate::support::as_read::AsRead;

use super::ack_store::{AckStore, Claim, NextDue};

/// The marker put before the content of a message that needs an answer.
pub fn ack_marker(msg_id: &str) -> String {
    format!("[REQUIRES-ACK id={msg_id}]")
}

/// The line telling the recipient how to answer.
pub(crate) fn hint(msg_id: &str) -> String {
    format!("(acknowledge with: swarm ack {})", short(msg_id))
}

pub(crate) use crate::domain::short;

/// Retry schedule settings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AckSettings {
    /// Wait before the first retry when `--ack-timeout` is not given.
    pub timeout: Duration,
    /// Waits before the second, third, ... retry; when the list runs out,
    /// the waits keep doubling (the wait before the escalation too).
    pub delays: Vec<Duration>,
    /// Retries before escalating.
    pub max_retries: u32,
}

impl AckSettings {
    /// The retry schedule a project's config gives.
    pub fn from_config(c: &crate::config::Config) -> AckSettings {
        let secs = |s: u32| Duration::from_secs(u64::from(s));
        AckSettings {
            timeout: secs(c.acks.timeout_seconds),
            delays: c.acks.retry_delays.iter().copied().map(secs).collect(),
            max_retries: c.acks.max_retries,
        }
    }
}

impl Default for AckSettings {
    fn default() -> Self {
        AckSettings {
            timeout: Duration::from_secs(30),
            delays: Vec::new(),
            max_retries: 3,
        }
    }
}

impl AckSettings {
    /// The wait before step `k` (1-based) after the first retry: step 2 is
    /// the second retry, step `max_retries + 1` the escalation. Configured
    /// delays first, then an exponential continuation (factor 2, computed
    /// with backon) from the last known wait, `first_wait` when no delays
    /// are configured: with a 30 s timeout that is 60, 120, 240 s.
    pub(crate) fn wait_before(&self, step: u32, first_wait: Duration) -> Duration {
        let index = step.saturating_sub(2) as usize;
        if let Some(d) = self.delays.get(index) {
            return *d;
        }
        let last = self.delays.last().copied().unwrap_or(first_wait);
        let extra = index - self.delays.len();
        ExponentialBuilder::new()
            .with_min_delay(last.saturating_mul(2))
            .with_factor(2.0)
            .without_max_delay()
            .with_max_times(extra + 1)
            .build()
            .last()
            .unwrap_or(last)
    }
}

/// One pending acknowledgement (docs/FORMATS.md; times are naive local
/// ISO in the file, as the Python tool writes and compares them).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(from = "StoredEntry", into = "StoredEntry")]
pub struct PendingEntry {
    /// The message.
    pub msg_id: MessageId,
    /// Who sent it.
    pub sender_id: AgentId,
    /// Who must acknowledge it.
    pub recipient_id: AgentId,
    /// The message itself, kept as the Python tool's `to_dict`
    /// (`domain::message_dict`).
    pub(crate) message: Message,
    /// When it was sent.
    pub sent_at: Timestamp,
    /// Retries sent so far.
    pub retry_count: u32,
    /// When the next retry (or the escalation) is due.
    pub next_retry_at: Timestamp,
    /// The dict the message was read from, written back as it was while
    /// the message is unchanged (keys another tool wrote survive).
    read_from: AsRead<Value>,
}

/// The entry as the file holds it.
#[derive(Serialize, Deserialize)]
struct StoredEntry {
    msg_id: MessageId,
    sender_id: AgentId,
    recipient_id: AgentId,
    message: Value,
    #[serde(with = "crate::domain::local_naive_iso")]
    sent_at: Timestamp,
    retry_count: u32,
    #[serde(with = "crate::domain::local_naive_iso")]
    next_retry_at: Timestamp,
}

fn dict_defaults(
    msg_id: &MessageId,
    sender: &AgentId,
    recipient: &AgentId,
    sent_at: Timestamp,
) -> DictDefaults {
    DictDefaults {
        msg_id: msg_id.clone(),
        sender: sender.clone(),
        recipients: vec![recipient.clone()],
        created: sent_at,
    }
}

impl From<StoredEntry> for PendingEntry {
    fn from(s: StoredEntry) -> PendingEntry {
        let defaults = dict_defaults(&s.msg_id, &s.sender_id, &s.recipient_id, s.sent_at);
        PendingEntry {
            message: message_dict::read(&s.message, &defaults),
            msg_id: s.msg_id,
            sender_id: s.sender_id,
            recipient_id: s.recipient_id,
            sent_at: s.sent_at,
            retry_count: s.retry_count,
            next_retry_at: s.next_retry_at,
            read_from: AsRead::kept(s.message),
        }
    }
}

impl From<PendingEntry> for StoredEntry {
    fn from(e: PendingEntry) -> StoredEntry {
        let defaults = dict_defaults(&e.msg_id, &e.sender_id, &e.recipient_id, e.sent_at);
        StoredEntry {
            message: message_dict::write(&e.message, e.read_from.get().map(|d| (d, &defaults))),
            msg_id: e.msg_id,
            sender_id: e.sender_id,
            recipient_id: e.recipient_id,
            sent_at: e.sent_at,
            retry_count: e.retry_count,
            next_retry_at: e.next_retry_at,
        }
    }
}

impl PendingEntry {
    /// A new entry: `recipient` must acknowledge `message` from `sender`,
    /// sent `now`, within `timeout`.
    pub(crate) fn new(
        mut message: Message,
        sender: AgentId,
        recipient: AgentId,
        now: Timestamp,
        timeout: Duration,
    ) -> PendingEntry {
        // The file keeps microseconds: so does the entry, so that it
        // compares equal to itself read back.
        let micros = |t: Timestamp| Timestamp::from_utc(t.utc().trunc_subsecs(6));
        message.created = micros(message.created);
        let now = micros(now);
        let due = now.utc()
            + chrono::Duration::from_std(timeout).unwrap_or(chrono::Duration::seconds(30));
        PendingEntry {
            msg_id: message.msg_id.clone(),
            sender_id: sender,
            recipient_id: recipient,
            message,
            sent_at: now,
            retry_count: 0,
            next_retry_at: Timestamp::from_utc(due),
            read_from: AsRead::none(),
        }
    }

    /// The message.
    pub fn message(&self) -> &Message {
        &self.message
    }

    /// The message as it is delivered again to its recipient: that one
    /// recipient, and an answer required.
    pub(crate) fn redelivery(&self) -> Message {
        Message {
            msg_id: self.msg_id.clone(),
            sender: self.sender_id.clone(),
            recipients: vec![self.recipient_id.clone()],
            msg_type: self.message.msg_type.clone(),
            content: self.message.content.clone(),
            created: self.message.created,
            requires_ack: true,
            parent_msg_id: None,
            context_id: None,
            task: None,
        }
    }
}

/// Records that `recipient` must acknowledge `message` within `timeout`.
/// Returns warnings (a damaged pending list that was set aside).
pub(crate) fn register(
    store: &dyn AckStore,
    message: &Message,
    recipient: &AgentId,
    timeout: Duration,
) -> Result<Vec<String>> {
    let entry = PendingEntry::new(
        message.clone(),
        message.sender.clone(),
        recipient.clone(),
        Timestamp::now(),
        timeout,
    );
    Ok(store.record(entry)?)
}

/// Cheap check (one small file read for the files) whether any retry or
/// escalation is due at `now`.
pub(crate) fn work_due(store: &dyn AckStore, now: DateTime<Utc>) -> bool {
    match store.next_due() {
        NextDue::At(t) => t.utc() <= now,
        NextDue::Nothing => false,
        NextDue::Unknown => true,
    }
}

/// A retry or an escalation taken from the pending list. It is claimed
/// (the entry advanced or removed, atomically in the store) before
/// anything is sent, so each goes out at most once.
#[derive(Clone, Debug)]
pub(crate) enum DueAction {
    /// Deliver the message again: the `n`th retry.
    Retry {
        /// The entry, already advanced.
        entry: PendingEntry,
        /// The retry's number, from 1.
        n: u32,
    },
    /// Tell everyone nobody answered; the entry is gone from the list.
    Escalate {
        /// The entry, removed.
        entry: PendingEntry,
        /// The recipient is no longer registered.
        recipient_gone: bool,
    },
}

/// Whether the registry read says an agent is still in the swarm.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Known {
    /// It is registered.
    Registered,
    /// A complete registry does not list it: it left.
    Gone,
    /// The registry read is damaged, missing or incomplete and does not
    /// list it: nobody can tell, so its obligations wait.
    Unsure,
}

/// What one claiming pass found.
#[derive(Debug, Default)]
pub(crate) struct ClaimedWork {
    /// The retries and escalations claimed, oldest obligation first.
    pub(crate) actions: Vec<DueAction>,
    /// Problems worth telling (a damaged pending list set aside).
    pub(crate) warnings: Vec<String>,
    /// Due entries left as they are because their recipient could not be
    /// judged (`Known::Unsure`): (message id, recipient).
    pub(crate) unsure: Vec<(String, String)>,
}

/// Claims the retries and escalations due at `now`, oldest obligation
/// first and at most `most` of them (`None`: all), deciding each by the
/// schedule in `settings`. `known` says whether an agent is still in the
/// registry; `paused`, whether it is at its usage limit (its retries and
/// escalation wait, uncounted, until it is not). An entry whose recipient
/// is `Unsure` is never escalated: it stays due, untouched, until a good
/// registry says where its recipient is.
pub(crate) fn claim_due(
    store: &dyn AckStore,
    known: impl Fn(&str) -> Known,
    paused: impl Fn(&str) -> bool,
    settings: &AckSettings,
    now: DateTime<Utc>,
    most: Option<usize>,
) -> Result<ClaimedWork> {
    let taken = std::cell::Cell::new(0usize);
    let unsure = std::cell::RefCell::new(Vec::new());
    let decide = |entry: &PendingEntry| {
        let recipient = entry.recipient_id.as_str();
        let presence = known(recipient);
        if presence == Known::Unsure {
            unsure
                .borrow_mut()
                .push((entry.msg_id.to_string(), recipient.to_owned()));
            return Claim::Leave;
        }
        let recipient_gone = presence == Known::Gone;
        if !recipient_gone && paused(recipient) {
            let wait = settings.wait_before(entry.retry_count + 1, settings.timeout);
            let next =
                now + chrono::Duration::from_std(wait).unwrap_or(chrono::Duration::seconds(60));
            return Claim::Postpone {
                next_retry_at: Timestamp::from_utc(next),
            };
        }
        if most.is_some_and(|most| taken.get() >= most) {
            return Claim::Leave;
        }
        taken.set(taken.get() + 1);
        if recipient_gone || entry.retry_count >= settings.max_retries {
            return Claim::Escalate { recipient_gone };
        }
        // `--ack-timeout` sets the first wait only; the rest of the
        // schedule comes from the settings.
        let wait = settings.wait_before(entry.retry_count + 2, settings.timeout);
        let next = now + chrono::Duration::from_std(wait).unwrap_or(chrono::Duration::seconds(60));
        Claim::Retry {
            next_retry_at: Timestamp::from_utc(next),
        }
    };
    let (claimed, warnings) = store.claim_due(Timestamp::from_utc(now), &decide)?;
    let actions = claimed
        .into_iter()
        .filter_map(|c| match c.claim {
            Claim::Retry { .. } => Some(DueAction::Retry {
                n: c.entry.retry_count,
                entry: c.entry,
            }),
            Claim::Escalate { recipient_gone } => Some(DueAction::Escalate {
                entry: c.entry,
                recipient_gone,
            }),
            // Never claimed: the store keeps them.
            Claim::Postpone { .. } | Claim::Leave => None,
        })
        .collect();
    Ok(ClaimedWork {
        actions,
        warnings,
        unsure: unsure.into_inner(),
    })
}

/// `42s`, `3m05s`, `2h10m`.
pub fn format_age(seconds: f64) -> String {
    let s = seconds.max(0.0) as u64;
    match s {
        0..60 => format!("{s}s"),
        60..3600 => format!("{}m{:02}s", s / 60, s % 60),
        _ => format!("{}h{:02}m", s / 3600, (s % 3600) / 60),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::acks::{AckResult, AckStore, FileAcks};
    use crate::domain::message::MessageType;
    use crate::store::Paths;
    use crate::support::time;
    use std::fs;

    fn agent(s: &str) -> AgentId {
        AgentId::parse(s).expect("agent id")
    }

    fn secs(n: u64) -> Duration {
        Duration::from_secs(n)
    }

    /// Claims everything due at `now` with every recipient registered and
    /// none at its usage limit; the actions.
    fn claim_registered(
        store: &FileAcks,
        settings: &AckSettings,
        now: DateTime<Utc>,
    ) -> Vec<DueAction> {
        claim_due(store, |_| Known::Registered, |_| false, settings, now, None)
            .expect("claim")
            .actions
    }

    #[test]
    fn default_schedule_is_30_60_120_then_240_to_escalate() {
        let s = AckSettings::default();
        assert_eq!(s.wait_before(2, secs(30)), secs(60));
        assert_eq!(s.wait_before(3, secs(30)), secs(120));
        assert_eq!(s.wait_before(4, secs(30)), secs(240));
    }

    #[test]
    fn configured_delays_come_first_then_keep_doubling() {
        let s = AckSettings {
            timeout: secs(1),
            delays: vec![secs(5), secs(7)],
            max_retries: 4,
        };
        assert_eq!(s.wait_before(2, secs(1)), secs(5));
        assert_eq!(s.wait_before(3, secs(1)), secs(7));
        assert_eq!(s.wait_before(4, secs(1)), secs(14));
        assert_eq!(s.wait_before(5, secs(1)), secs(28));
        // A short --ack-timeout gives a short schedule.
        assert_eq!(AckSettings::default().wait_before(2, secs(1)), secs(2));
    }

    #[test]
    fn short_ids_never_split_a_character() {
        assert_eq!(short("9c2c68bd-7f2c-490f"), "9c2c68bd");
        assert_eq!(short("abc"), "abc");
        assert_eq!(short("ééééééééé"), "éééééééé");
    }

    #[test]
    fn ages_read_naturally() {
        assert_eq!(format_age(42.4), "42s");
        assert_eq!(format_age(185.0), "3m05s");
        assert_eq!(format_age(7800.0), "2h10m");
    }

    fn message(to: &str) -> Message {
        let mut m = Message::new(
            agent("agent-0"),
            vec![agent(to)],
            MessageType::builtin("BLOCKED"),
            "x".into(),
        );
        m.requires_ack = true;
        m
    }

    #[test]
    fn register_acknowledge_by_prefix_and_refuse_others() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = FileAcks::new(&Paths::new(dir.path()));
        let m = message("agent-1");
        register(&store, &m, &agent("agent-1"), secs(30)).expect("register");
        assert_eq!(store.list().expect("list").entries.len(), 1);
        let (r, _) = store
            .acknowledge(m.msg_id.short(), &agent("agent-2"))
            .expect("ack");
        assert_eq!(
            r,
            AckResult::NotRecipient {
                msg_id: m.msg_id.clone(),
                recipient: agent("agent-1")
            }
        );
        let (r, _) = store
            .acknowledge(m.msg_id.short(), &agent("agent-1"))
            .expect("ack");
        assert!(matches!(r, AckResult::Acknowledged(e) if e.msg_id == m.msg_id));
        let (r, _) = store
            .acknowledge(m.msg_id.as_str(), &agent("agent-1"))
            .expect("ack");
        assert_eq!(r, AckResult::NotPending);
        assert!(!work_due(&store, time::now()));
    }

    #[test]
    fn a_fifo_in_place_of_the_due_file_is_never_waited_on() {
        let dir = tempfile::tempdir().expect("tempdir");
        let paths = Paths::new(dir.path());
        let store = FileAcks::new(&paths);
        register(&store, &message("agent-1"), &agent("agent-1"), secs(30)).expect("register");
        let due = paths.ack_due();
        fs::remove_file(&due).expect("remove");
        let made = std::process::Command::new("mkfifo")
            .arg(&due)
            .status()
            .expect("mkfifo");
        assert!(made.success());
        // Unknown, so the pending file decides: something is pending, and
        // a read of the FIFO would block this test forever.
        assert!(work_due(&store, time::now()));
        // The next save replaces the FIFO with the real due time.
        let later = time::now() + chrono::Duration::seconds(31);
        claim_due(
            &store,
            |_| Known::Registered,
            |_| false,
            &AckSettings::default(),
            later,
            None,
        )
        .expect("claim");
        assert!(fs::metadata(&due).expect("due file").is_file());
    }

    #[test]
    fn a_recipient_at_its_usage_limit_is_neither_retried_nor_escalated() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = FileAcks::new(&Paths::new(dir.path()));
        register(&store, &message("agent-1"), &agent("agent-1"), secs(30)).expect("register");
        let settings = AckSettings::default();
        let mut now = time::now();
        // Well past every retry and the escalation: nothing is claimed,
        // and the entry keeps its count.
        for _ in 0..(settings.max_retries + 2) {
            now += chrono::Duration::seconds(3600);
            let work = claim_due(
                &store,
                |_| Known::Registered,
                |_| true,
                &settings,
                now,
                None,
            )
            .expect("claim");
            let actions = work.actions;
            assert!(actions.is_empty());
        }
        let kept = store.list().expect("list").entries;
        assert_eq!(kept.len(), 1);
        assert_eq!(kept[0].retry_count, 0);
        // The limit over: the first retry comes.
        now += chrono::Duration::seconds(3600);
        let actions = claim_registered(&store, &settings, now);
        assert!(matches!(
            actions.as_slice(),
            [DueAction::Retry { n: 1, .. }]
        ));
    }

    #[test]
    fn due_file_tracks_the_earliest_entry() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = FileAcks::new(&Paths::new(dir.path()));
        assert!(!work_due(&store, time::now()));
        register(&store, &message("agent-1"), &agent("agent-1"), secs(30)).expect("register");
        let now = time::now();
        assert!(!work_due(&store, now));
        assert!(work_due(&store, now + chrono::Duration::seconds(31)));
        let NextDue::At(due) = store.next_due() else {
            panic!("something is pending");
        };
        let wait = Timestamp::from_utc(now).seconds_until(due);
        assert!((28.0..=30.0).contains(&wait), "{wait}");
    }

    #[test]
    fn retries_are_claimed_on_schedule_never_early_and_once() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = FileAcks::new(&Paths::new(dir.path()));
        let settings = AckSettings {
            timeout: secs(30),
            delays: vec![secs(60)],
            max_retries: 2,
        };
        let start = time::now();
        register(&store, &message("agent-1"), &agent("agent-1"), secs(30)).expect("register");
        let at = |s: i64| start + chrono::Duration::seconds(s);
        let claim = |now| claim_registered(&store, &settings, now);
        assert!(claim(at(29)).is_empty(), "not before its 30 s");
        let first = claim(at(31));
        assert!(
            matches!(first.as_slice(), [DueAction::Retry { n: 1, .. }]),
            "{first:?}"
        );
        // Claimed once: the same moment again finds nothing.
        assert!(claim(at(31)).is_empty());
        // The next wait is the configured 60 s, counted from the claim.
        assert!(claim(at(31 + 59)).is_empty());
        let second = claim(at(31 + 61));
        assert!(
            matches!(second.as_slice(), [DueAction::Retry { n: 2, .. }]),
            "{second:?}"
        );
        // After the last retry, the escalation; then the list is empty.
        let last = claim(at(31 + 61 + 10_000));
        assert!(
            matches!(
                last.as_slice(),
                [DueAction::Escalate {
                    recipient_gone: false,
                    ..
                }]
            ),
            "{last:?}"
        );
        assert!(store.list().expect("list").entries.is_empty());
    }

    #[test]
    fn a_recipient_who_left_is_escalated_without_a_retry() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = FileAcks::new(&Paths::new(dir.path()));
        register(&store, &message("agent-1"), &agent("agent-1"), secs(30)).expect("register");
        let later = time::now() + chrono::Duration::seconds(31);
        let actions = claim_due(
            &store,
            |_| Known::Gone,
            |_| false,
            &AckSettings::default(),
            later,
            None,
        )
        .expect("claim")
        .actions;
        assert!(
            matches!(
                actions.as_slice(),
                [DueAction::Escalate {
                    recipient_gone: true,
                    ..
                }]
            ),
            "{actions:?}"
        );
    }

    #[test]
    fn a_recipient_nobody_can_judge_is_left_due_and_never_escalated() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = FileAcks::new(&Paths::new(dir.path()));
        register(&store, &message("agent-1"), &agent("agent-1"), secs(30)).expect("register");
        register(&store, &message("agent-2"), &agent("agent-2"), secs(30)).expect("register");
        let settings = AckSettings::default();
        let far = time::now() + chrono::Duration::seconds(100_000);
        // agent-1 cannot be judged: left as it was, reported; agent-2 is
        // gone by a complete registry: escalated.
        let known = |id: &str| {
            if id == "agent-1" {
                Known::Unsure
            } else {
                Known::Gone
            }
        };
        let work = claim_due(&store, known, |_| false, &settings, far, None).expect("claim");
        assert!(
            matches!(work.actions.as_slice(), [DueAction::Escalate { entry, .. }] if entry.recipient_id == "agent-2"),
            "{:?}",
            work.actions
        );
        assert_eq!(work.unsure.len(), 1);
        assert_eq!(work.unsure[0].1, "agent-1");
        let kept = store.list().expect("list").entries;
        assert_eq!(kept.len(), 1);
        assert_eq!(kept[0].retry_count, 0);
        assert!(work_due(&store, far), "it is still due");
    }

    #[test]
    fn a_limited_claim_takes_the_oldest_due_first() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = FileAcks::new(&Paths::new(dir.path()));
        // The later a message is recorded here, the sooner it falls due.
        let mut ids = Vec::new();
        for wait in [50, 40, 30] {
            let m = message("agent-1");
            ids.push(m.msg_id.clone());
            register(&store, &m, &agent("agent-1"), secs(wait)).expect("register");
        }
        let far = time::now() + chrono::Duration::seconds(100);
        let settings = AckSettings::default();
        let mut order = Vec::new();
        for _ in 0..3 {
            let work = claim_due(
                &store,
                |_| Known::Registered,
                |_| false,
                &settings,
                far,
                Some(1),
            )
            .expect("claim");
            let [DueAction::Retry { entry, n: 1 }] = work.actions.as_slice() else {
                panic!("one retry per claim: {:?}", work.actions)
            };
            order.push(entry.msg_id.clone());
        }
        ids.reverse();
        assert_eq!(order, ids, "oldest due first");
    }

    #[test]
    fn a_damaged_pending_file_is_kept_aside_and_reported() {
        let dir = tempfile::tempdir().expect("tempdir");
        let paths = Paths::new(dir.path());
        let store = FileAcks::new(&paths);
        fs::write(paths.pending_acks(), "{\"pending_acks\": [oops").expect("write");
        let warnings =
            register(&store, &message("agent-1"), &agent("agent-1"), secs(30)).expect("register");
        assert!(warnings[0].contains("damaged"), "{warnings:?}");
        let aside: Vec<_> = fs::read_dir(dir.path())
            .expect("ls")
            .filter_map(|e| e.ok())
            .filter(|e| {
                e.file_name()
                    .to_string_lossy()
                    .starts_with("PENDING_ACKS.json.corrupt-")
            })
            .collect();
        assert_eq!(aside.len(), 1);
        assert_eq!(
            fs::read_to_string(aside[0].path()).expect("read"),
            "{\"pending_acks\": [oops"
        );
        assert_eq!(store.list().expect("list").entries.len(), 1);
    }

    #[test]
    fn concurrent_registrations_and_acks_lose_nothing() {
        let dir = tempfile::tempdir().expect("tempdir");
        let paths = Paths::new(dir.path());
        let store = std::sync::Arc::new(FileAcks::new(&paths));
        let handles: Vec<_> = (0..8)
            .map(|t| {
                let store = std::sync::Arc::clone(&store);
                std::thread::spawn(move || {
                    let mut kept = Vec::new();
                    for i in 0..20 {
                        let m = message("agent-1");
                        register(&*store, &m, &agent("agent-1"), secs(30)).expect("register");
                        if (t + i) % 2 == 0 {
                            let (r, _) = store
                                .acknowledge(m.msg_id.as_str(), &agent("agent-1"))
                                .expect("ack");
                            assert!(matches!(r, AckResult::Acknowledged(_)));
                        } else {
                            kept.push(m.msg_id);
                        }
                    }
                    kept
                })
            })
            .collect();
        let mut kept: Vec<MessageId> = handles
            .into_iter()
            .flat_map(|h| h.join().expect("thread"))
            .collect();
        let p = store.list().expect("list");
        let mut ids: Vec<MessageId> = p.entries.into_iter().map(|e| e.msg_id).collect();
        kept.sort();
        ids.sort();
        assert_eq!(ids, kept);
        let file: Value =
            serde_json::from_str(&fs::read_to_string(paths.pending_acks()).expect("read"))
                .expect("json");
        assert_eq!(file["version"], 8 * 20 + 8 * 10);
    }
}
