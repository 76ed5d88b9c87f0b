//! Acknowledgements: messages that need an answer are recorded in
//! `PENDING_ACKS.json` (project root; docs/FORMATS.md), re-delivered with the
//! same id on an exponential schedule until the recipient runs `swarm ack`,
//! and escalated to every agent when nobody answers.
//!
//! Every change to the pending file happens under its sidecar lock
//! (read, modify, write), so no acknowledgement or retry is lost. Due work
//! is claimed under the lock (the entry is advanced before anything is
//! sent) and delivered after it is released: however many processes run
//! the retry loop, each retry goes out at most once. `.swarm/ack_due` holds
//! the earliest due time so that every command can check for due work by
//! reading one small file.

use std::time::Duration;

use backon::{BackoffBuilder, ExponentialBuilder};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::domain::message::{LogEntry, Message};
use crate::error::Result;
use crate::store::{
    DEFAULT_LOCK_TIMEOUT, Loaded, Paths, StateFile, StateLock, StoreError, ensure_private_dir,
    open_for_read,
};
use crate::support::json::{self, Layout};
use crate::support::time;

/// The marker put before the content of a message that needs an answer.
pub fn marker(msg_id: &str) -> String {
    format!("[REQUIRES-ACK id={msg_id}]")
}

/// The line telling the recipient how to answer.
pub(crate) fn hint(msg_id: &str) -> String {
    format!("(acknowledge with: swarm ack {})", short(msg_id))
}

pub(crate) use crate::domain::short;

/// Retry schedule settings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct AckSettings {
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
    pub(crate) fn from_config(c: &crate::config::Config) -> AckSettings {
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

/// One pending acknowledgement (docs/FORMATS.md; times are naive local ISO, as the
/// Python tool writes and compares them).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PendingEntry {
    /// The message.
    pub msg_id: String,
    /// Who sent it.
    pub sender_id: String,
    /// Who must acknowledge it.
    pub recipient_id: String,
    /// The message's `to_dict` (docs/FORMATS.md).
    pub message: Value,
    /// When it was sent.
    pub sent_at: String,
    /// Retries sent so far.
    pub retry_count: u32,
    /// When the next retry (or the escalation) is due.
    pub next_retry_at: String,
}

impl PendingEntry {
    /// The message as a log entry (for re-delivery).
    pub fn log_entry(&self) -> LogEntry {
        let text = |k: &str| {
            self.message
                .get(k)
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned()
        };
        LogEntry {
            sender: self.sender_id.clone(),
            timestamp: text("timestamp"),
            msg_type: Some(text("msg_type"))
                .filter(|t| !t.is_empty())
                .unwrap_or_else(|| "INFO".into()),
            content: text("content"),
            recipients: vec![self.recipient_id.clone()],
            msg_id: self.msg_id.clone(),
            context_id: None,
            task: None,
            requires_ack: Some(true),
            parent_msg_id: None,
            delivery_status: serde_json::Map::new(),
            success_count: 0,
            failure_count: 0,
        }
    }

    /// When it was first sent, if the stored time is readable.
    pub fn sent(&self) -> Option<DateTime<Utc>> {
        time::parse_iso(&self.sent_at)
    }

    fn due_at(&self) -> Option<DateTime<Utc>> {
        time::parse_iso(&self.next_retry_at)
    }
}

/// `PENDING_ACKS.json`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct PendingFile {
    /// Incremented on every save.
    #[serde(default)]
    pub version: u64,
    /// The entries.
    pub pending_acks: Vec<PendingEntry>,
}

struct Store {
    file: StateFile,
    due: StateFile,
}

impl Store {
    fn new(paths: &Paths) -> Store {
        Store {
            file: StateFile::new(paths.pending_acks()),
            due: StateFile::new(paths.swarm_dir().join("ack_due")),
        }
    }

    /// Reads under the lock; a damaged file is moved aside (kept for
    /// inspection) and reported, and the list starts empty.
    fn load(&self, lock: &StateLock) -> Result<(PendingFile, Vec<String>), StoreError> {
        let why = match self.file.read_json::<PendingFile>() {
            Ok(Loaded::Valid(p)) => return Ok((p, Vec::new())),
            Ok(Loaded::Missing) => return Ok((PendingFile::default(), Vec::new())),
            Ok(Loaded::Corrupt(why)) | Err(StoreError::Corrupt { reason: why, .. }) => why,
            Err(e) => return Err(e),
        };
        let aside = self.file.preserve(lock)?;
        let warning = format!(
            "{} was damaged ({why}); {} and started an empty list of pending acknowledgements",
            self.file.path().display(),
            aside
                .map(|p| format!("moved it to {}", p.display()))
                .unwrap_or_else(|| "it could not be moved aside".into())
        );
        Ok((PendingFile::default(), vec![warning]))
    }

    fn save(&self, lock: &StateLock, pending: &mut PendingFile) -> Result<(), StoreError> {
        pending.version += 1;
        let bytes =
            json::to_vec(pending, Layout::Indent2).map_err(|source| StoreError::Encode {
                path: self.file.path().to_owned(),
                source,
            })?;
        self.file.write(lock, &bytes)?;
        // The earliest due time, for the cheap check every command makes.
        let earliest = pending
            .pending_acks
            .iter()
            .filter_map(|e| e.due_at())
            .min()
            .map(|t| format!("{}", time::unix_seconds(t)))
            .unwrap_or_else(|| "none".into());
        if let Some(dir) = self.due.path().parent() {
            ensure_private_dir(dir).map_err(|source| StoreError::Write {
                path: dir.to_owned(),
                source,
            })?;
        }
        let due_lock = self.due.lock(DEFAULT_LOCK_TIMEOUT)?;
        self.due.write_unsynced(&due_lock, earliest.as_bytes())
    }
}

/// Records that `recipient` must acknowledge `message` within `timeout`.
/// Returns warnings (a damaged pending file that was moved aside).
pub(crate) fn register(
    paths: &Paths,
    message: &Message,
    recipient: &str,
    timeout: Duration,
) -> Result<Vec<String>> {
    let store = Store::new(paths);
    let lock = store.file.lock(DEFAULT_LOCK_TIMEOUT)?;
    let (mut pending, warnings) = store.load(&lock)?;
    let now = time::now();
    let due = now + chrono::Duration::from_std(timeout).unwrap_or(chrono::Duration::seconds(30));
    pending.pending_acks.push(PendingEntry {
        msg_id: message.msg_id.to_string(),
        sender_id: message.sender.clone(),
        recipient_id: recipient.to_owned(),
        message: message.to_dict(),
        sent_at: time::local_naive_iso(now),
        retry_count: 0,
        next_retry_at: time::local_naive_iso(due),
    });
    store.save(&lock, &mut pending)?;
    Ok(warnings)
}

/// What `acknowledge` found.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum AckResult {
    /// The entry was removed; the sender should be told.
    Acknowledged(PendingEntry),
    /// Nothing pending matches the id.
    NotPending,
    /// Only someone else may acknowledge it.
    NotRecipient {
        /// The full id.
        msg_id: String,
        /// Who may.
        recipient: String,
    },
    /// The prefix matches several pending messages.
    Ambiguous(Vec<String>),
}

/// Acknowledges the pending message whose id starts with `prefix`, as
/// `agent`: only its recipient may.
pub(crate) fn acknowledge(
    paths: &Paths,
    prefix: &str,
    agent: &str,
) -> Result<(AckResult, Vec<String>)> {
    let store = Store::new(paths);
    let lock = store.file.lock(DEFAULT_LOCK_TIMEOUT)?;
    let (mut pending, warnings) = store.load(&lock)?;
    let prefix = prefix.trim().to_lowercase();
    let hits: Vec<usize> = pending
        .pending_acks
        .iter()
        .enumerate()
        .filter(|(_, e)| e.msg_id.starts_with(&prefix))
        .map(|(i, _)| i)
        .collect();
    let result = match hits.as_slice() {
        [] => AckResult::NotPending,
        [i] => {
            let entry = &pending.pending_acks[*i];
            if entry.recipient_id != agent {
                AckResult::NotRecipient {
                    msg_id: entry.msg_id.clone(),
                    recipient: entry.recipient_id.clone(),
                }
            } else {
                let entry = pending.pending_acks.remove(*i);
                store.save(&lock, &mut pending)?;
                AckResult::Acknowledged(entry)
            }
        }
        many => AckResult::Ambiguous(
            many.iter()
                .map(|&i| pending.pending_acks[i].msg_id.clone())
                .collect(),
        ),
    };
    Ok((result, warnings))
}

/// The pending list as it is now (read without locking: writes are atomic).
pub(crate) fn list(paths: &Paths) -> Result<(PendingFile, Option<String>)> {
    let file = StateFile::new(paths.pending_acks());
    Ok(match file.read_json::<PendingFile>() {
        Ok(Loaded::Valid(p)) => (p, None),
        Ok(Loaded::Missing) => (PendingFile::default(), None),
        Ok(Loaded::Corrupt(why)) | Err(StoreError::Corrupt { reason: why, .. }) => (
            PendingFile::default(),
            Some(format!(
                "{} is damaged ({why})",
                paths.pending_acks().display()
            )),
        ),
        Err(e) => return Err(e.into()),
    })
}

/// The earliest due time, from `.swarm/ack_due`: `Some(None)` when nothing
/// is pending, `None` when unknown (then the pending file decides).
fn earliest_due(paths: &Paths) -> Option<Option<f64>> {
    use std::io::Read;
    // Never followed through a link or waited on as a FIFO: anything but a
    // small regular file is "unknown", and the pending file decides (the
    // next save replaces it).
    let file = open_for_read(&paths.swarm_dir().join("ack_due")).ok()??;
    let mut text = String::new();
    file.take(64).read_to_string(&mut text).ok()?;
    let text = text.trim();
    if text == "none" {
        return Some(None);
    }
    text.parse().ok().map(Some)
}

/// Cheap check (one small file read) whether any retry or escalation is
/// due at `now`.
pub(crate) fn work_due(paths: &Paths, now: DateTime<Utc>) -> bool {
    match earliest_due(paths) {
        Some(Some(t)) => time::unix_seconds(now) >= t,
        Some(None) => false,
        // No due file (first use, or a pending file written by the Python
        // tool): look once; processing writes the due file.
        None => paths.pending_acks().exists(),
    }
}

/// How long until the next due work, if anything is pending.
pub(crate) fn next_due_in(paths: &Paths, now: DateTime<Utc>) -> Option<Duration> {
    match earliest_due(paths) {
        Some(Some(t)) => Some(Duration::from_secs_f64(
            (t - time::unix_seconds(now)).max(0.0),
        )),
        Some(None) => None,
        None => paths.pending_acks().exists().then_some(Duration::ZERO),
    }
}

/// A retry or an escalation taken from the pending list. It is claimed
/// (the entry advanced or removed, under the file's lock) before anything
/// is sent, so each goes out at most once.
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

/// Claims every retry and escalation due at `now`. `registered` says
/// whether an agent is still in the registry.
pub(crate) fn claim_due(
    paths: &Paths,
    registered: impl Fn(&str) -> bool,
    settings: &AckSettings,
    now: DateTime<Utc>,
) -> Result<(Vec<DueAction>, Vec<String>)> {
    let store = Store::new(paths);
    let lock = store.file.lock(DEFAULT_LOCK_TIMEOUT)?;
    let (mut pending, warnings) = store.load(&lock)?;
    let mut actions = Vec::new();
    let mut keep = Vec::new();
    for mut entry in std::mem::take(&mut pending.pending_acks) {
        // An unreadable due time is due now: better a retry than a
        // message that waits forever.
        if entry.due_at().is_some_and(|t| t > now) {
            keep.push(entry);
            continue;
        }
        let recipient_gone = !registered(&entry.recipient_id);
        if recipient_gone || entry.retry_count >= settings.max_retries {
            actions.push(DueAction::Escalate {
                entry,
                recipient_gone,
            });
            continue;
        }
        entry.retry_count += 1;
        // `--ack-timeout` sets the first wait only; the rest of the
        // schedule comes from the settings.
        let wait = settings.wait_before(entry.retry_count + 1, settings.timeout);
        let next = now + chrono::Duration::from_std(wait).unwrap_or(chrono::Duration::seconds(60));
        entry.next_retry_at = time::local_naive_iso(next);
        actions.push(DueAction::Retry {
            entry: entry.clone(),
            n: entry.retry_count,
        });
        keep.push(entry);
    }
    pending.pending_acks = keep;
    if !actions.is_empty() || !warnings.is_empty() || earliest_due(paths).is_none() {
        store.save(&lock, &mut pending)?;
    }
    Ok((actions, warnings))
}

/// `42s`, `3m05s`, `2h10m`.
pub(crate) fn format_age(seconds: f64) -> String {
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
    use crate::domain::message::MessageType;
    use std::fs;

    fn secs(n: u64) -> Duration {
        Duration::from_secs(n)
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
            "agent-0".into(),
            vec![to.into()],
            MessageType::builtin("BLOCKED"),
            "x".into(),
        );
        m.requires_ack = true;
        m
    }

    #[test]
    fn register_acknowledge_by_prefix_and_refuse_others() {
        let dir = tempfile::tempdir().expect("tempdir");
        let paths = Paths::new(dir.path());
        let m = message("agent-1");
        register(&paths, &m, "agent-1", secs(30)).expect("register");
        let (p, _) = list(&paths).expect("list");
        assert_eq!((p.version, p.pending_acks.len()), (1, 1));
        let (r, _) = acknowledge(&paths, m.msg_id.short(), "agent-2").expect("ack");
        assert_eq!(
            r,
            AckResult::NotRecipient {
                msg_id: m.msg_id.to_string(),
                recipient: "agent-1".into()
            }
        );
        let (r, _) = acknowledge(&paths, m.msg_id.short(), "agent-1").expect("ack");
        assert!(matches!(r, AckResult::Acknowledged(e) if m.msg_id == *e.msg_id));
        let (r, _) = acknowledge(&paths, m.msg_id.as_str(), "agent-1").expect("ack");
        assert_eq!(r, AckResult::NotPending);
        assert_eq!(list(&paths).expect("list").0.version, 2);
        assert!(!work_due(&paths, time::now()));
    }

    #[test]
    fn a_fifo_in_place_of_the_due_file_is_never_waited_on() {
        let dir = tempfile::tempdir().expect("tempdir");
        let paths = Paths::new(dir.path());
        register(&paths, &message("agent-1"), "agent-1", secs(30)).expect("register");
        let due = paths.swarm_dir().join("ack_due");
        fs::remove_file(&due).expect("remove");
        let made = std::process::Command::new("mkfifo")
            .arg(&due)
            .status()
            .expect("mkfifo");
        assert!(made.success());
        // Unknown, so the pending file decides: something is pending, and
        // a read of the FIFO would block this test forever.
        assert!(work_due(&paths, time::now()));
        // The next save replaces the FIFO with the real due time.
        let later = time::now() + chrono::Duration::seconds(31);
        claim_due(&paths, |_| true, &AckSettings::default(), later).expect("claim");
        assert!(fs::metadata(&due).expect("due file").is_file());
    }

    #[test]
    fn due_file_tracks_the_earliest_entry() {
        let dir = tempfile::tempdir().expect("tempdir");
        let paths = Paths::new(dir.path());
        assert!(!work_due(&paths, time::now()));
        register(&paths, &message("agent-1"), "agent-1", secs(30)).expect("register");
        let now = time::now();
        assert!(!work_due(&paths, now));
        assert!(work_due(&paths, now + chrono::Duration::seconds(31)));
        let wait = next_due_in(&paths, now).expect("pending");
        assert!(wait <= secs(30) && wait >= secs(28), "{wait:?}");
    }

    #[test]
    fn retries_are_claimed_on_schedule_never_early_and_once() {
        let dir = tempfile::tempdir().expect("tempdir");
        let paths = Paths::new(dir.path());
        let settings = AckSettings {
            timeout: secs(30),
            delays: vec![secs(60)],
            max_retries: 2,
        };
        let start = time::now();
        register(&paths, &message("agent-1"), "agent-1", secs(30)).expect("register");
        let at = |s: i64| start + chrono::Duration::seconds(s);
        let claim = |now| {
            claim_due(&paths, |_| true, &settings, now)
                .expect("claim")
                .0
        };
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
        assert!(list(&paths).expect("list").0.pending_acks.is_empty());
    }

    #[test]
    fn a_recipient_who_left_is_escalated_without_a_retry() {
        let dir = tempfile::tempdir().expect("tempdir");
        let paths = Paths::new(dir.path());
        register(&paths, &message("agent-1"), "agent-1", secs(30)).expect("register");
        let later = time::now() + chrono::Duration::seconds(31);
        let (actions, _) =
            claim_due(&paths, |_| false, &AckSettings::default(), later).expect("claim");
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
    fn a_damaged_pending_file_is_kept_aside_and_reported() {
        let dir = tempfile::tempdir().expect("tempdir");
        let paths = Paths::new(dir.path());
        fs::write(paths.pending_acks(), "{\"pending_acks\": [oops").expect("write");
        let warnings =
            register(&paths, &message("agent-1"), "agent-1", secs(30)).expect("register");
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
        assert_eq!(list(&paths).expect("list").0.pending_acks.len(), 1);
    }

    #[test]
    fn concurrent_registrations_and_acks_lose_nothing() {
        let dir = tempfile::tempdir().expect("tempdir");
        let paths = Paths::new(dir.path());
        let handles: Vec<_> = (0..8)
            .map(|t| {
                let paths = paths.clone();
                std::thread::spawn(move || {
                    let mut kept = Vec::new();
                    for i in 0..20 {
                        let m = message("agent-1");
                        register(&paths, &m, "agent-1", secs(30)).expect("register");
                        if (t + i) % 2 == 0 {
                            let (r, _) =
                                acknowledge(&paths, m.msg_id.as_str(), "agent-1").expect("ack");
                            assert!(matches!(r, AckResult::Acknowledged(_)));
                        } else {
                            kept.push(m.msg_id.to_string());
                        }
                    }
                    kept
                })
            })
            .collect();
        let mut kept: Vec<String> = handles
            .into_iter()
            .flat_map(|h| h.join().expect("thread"))
            .collect();
        let (p, _) = list(&paths).expect("list");
        let mut ids: Vec<String> = p.pending_acks.into_iter().map(|e| e.msg_id).collect();
        kept.sort();
        ids.sort();
        assert_eq!(ids, kept);
        assert_eq!(p.version, 8 * 20 + 8 * 10);
    }
}
