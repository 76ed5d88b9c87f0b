//! Following the messages an agent accepted through its own channel but
//! had not taken yet (busy, holding them for the person's approval, or no
//! record of them yet): `.swarm/native_following.json` lists them, and
//! each round of the watcher (`follow`) looks at their receipts once more,
//! records what changed (taken, expired, dropped) in the message log, and
//! returns the changes (`Round`): the watcher writes the feed lines they
//! make. swarm never sends such a message again by itself.

use std::path::PathBuf;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use crate::attention::event::{EventKind, FeedEntry};
use crate::log::log_store::LogStore;
use crate::log::record::{DeliveryOutcome, DeliveryRecord, DeliveryStatus, Record};
use crate::store::{DEFAULT_LOCK_TIMEOUT, Paths, StateFile, StoreError};

use super::claude::Inbound;
use super::{Confirmation, Receipt, outcome_of};

/// How long Claude Code keeps a message held for the person's approval.
const HOLD_EXPIRY: Duration = Duration::from_secs(5 * 60);

/// Past the expiry, a moment more before a held message counts as
/// expired (the agent's clock and swarm's look).
const EXPIRY_SLACK: Duration = Duration::from_secs(30);

/// How long a message with no record at all is looked for.
const UNCONFIRMED_FOR: Duration = Duration::from_secs(5 * 60);

/// The most messages followed at once (the oldest go first).
const MAX_FOLLOWED: usize = 1000;

/// One message an agent has through its own channel and has not taken.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Followed {
    /// The recipient.
    pub agent: String,
    /// Where its record of the message is found.
    pub receipt: Receipt,
    /// The agent's session file: gone, the session ended.
    pub session_file: PathBuf,
    /// Its state as last recorded (`accepted`, `awaiting_approval`,
    /// `unconfirmed`).
    pub status: DeliveryStatus,
    /// When it was posted (seconds since the epoch).
    pub since: u64,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
struct FollowFile {
    #[serde(default)]
    following: Vec<Followed>,
}

/// Seconds since the epoch now.
pub(crate) fn now_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

fn file(paths: &Paths) -> StateFile {
    StateFile::new(paths.native_following())
}

/// Starts following `followed`.
pub(crate) fn track(paths: &Paths, followed: Followed) -> Result<(), StoreError> {
    let f = file(paths);
    let lock = f.lock(DEFAULT_LOCK_TIMEOUT)?;
    let mut all: FollowFile = f.load_for_change(&lock, ", and nothing is followed")?;
    all.following.push(followed);
    if all.following.len() > MAX_FOLLOWED {
        let extra = all.following.len() - MAX_FOLLOWED;
        all.following.drain(..extra);
    }
    write(&f, &lock, &all)
}

fn write(
    f: &StateFile,
    lock: &crate::store::StateLock,
    all: &FollowFile,
) -> Result<(), StoreError> {
    let bytes = serde_json::to_vec_pretty(all).unwrap_or_default();
    f.write(lock, &bytes)
}

/// What the confirmation state of a followed status is.
fn confirmation_of(status: DeliveryStatus) -> Confirmation {
    match status {
        DeliveryStatus::Accepted => Confirmation::Accepted,
        DeliveryStatus::AwaitingApproval => Confirmation::AwaitingApproval,
        _ => Confirmation::Unconfirmed,
    }
}

/// What became of one followed message in a round.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Change {
    /// The recipient.
    pub agent: String,
    /// The message.
    pub msg_id: String,
    /// What the agent's records say of it now.
    pub state: Confirmation,
    /// The outcome logged for it (a delivery record noted `followed`).
    pub outcome: DeliveryOutcome,
}

impl Change {
    /// The activity feed's line for it.
    pub(crate) fn feed_entry(&self) -> FeedEntry {
        let kind = match self.state {
            Confirmation::Delivered(_) => EventKind::MessageTaken,
            Confirmation::Expired => EventKind::MessageExpired,
            Confirmation::Dropped => EventKind::MessageDropped,
            _ => EventKind::MessageAccepted,
        };
        FeedEntry::new(
            kind,
            Some(self.agent.as_str()),
            format!("{}: {}", self.msg_id, self.outcome.describe()),
        )
        .with_message(&self.msg_id)
    }
}

/// What one round of following found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Round {
    /// The messages whose state changed, as logged.
    pub changes: Vec<Change>,
    /// What could not be read or recorded.
    pub warnings: Vec<String>,
}

impl Round {
    fn warning(warning: String) -> Round {
        Round {
            changes: Vec::new(),
            warnings: vec![warning],
        }
    }
}

/// One round: looks at every followed message's receipt, records each
/// change in the log (a delivery record noted `followed`), and stops
/// following those that are settled. Returns the changes and warnings.
pub(crate) fn follow(paths: &Paths, log: &dyn LogStore) -> Round {
    let f = file(paths);
    if !f.path().exists() {
        return Round::default();
    }
    let lock = match f.lock(DEFAULT_LOCK_TIMEOUT) {
        Ok(l) => l,
        Err(e) => return Round::warning(format!("could not follow accepted messages: {e}")),
    };
    let mut all: FollowFile = match f.load_for_change(&lock, ", and nothing is followed") {
        Ok(a) => a,
        Err(e) => return Round::warning(format!("could not follow accepted messages: {e}")),
    };
    let mut round = Round::default();
    if all.following.is_empty() {
        return round;
    }
    let now = now_secs();
    let mut changed = false;
    all.following.retain_mut(|m| {
        let before = confirmation_of(m.status);
        let look = match m.receipt.channel {
            // The app server answers for itself: no file to read on.
            super::Channel::AppServer => super::claude::transcript::Look {
                state: super::codex::look(&m.receipt, before),
                next: m.receipt.offset,
            },
            _ => super::claude::transcript::look(
                &m.receipt.record,
                m.receipt.offset,
                &m.receipt.marker,
                before,
            ),
        };
        if look.next != m.receipt.offset {
            m.receipt.offset = look.next;
            changed = true;
        }
        let age = Duration::from_secs(now.saturating_sub(m.since));
        let mut state = look.state;
        let mut note = None;
        if !state.is_final() {
            if m.status == DeliveryStatus::AwaitingApproval
                && state == Confirmation::AwaitingApproval
                && age > HOLD_EXPIRY + EXPIRY_SLACK
            {
                state = Confirmation::Expired;
                note = Some("no record of an approval within 5 minutes".to_owned());
            } else if !m.session_file.exists() {
                state = Confirmation::Dropped;
                note = Some("the agent's session ended before it took the message".to_owned());
            } else if state == Confirmation::Unconfirmed && age > UNCONFIRMED_FOR {
                // Still no record: it stays unconfirmed, and is no longer
                // looked for.
                changed = true;
                return false;
            }
        }
        if state == before {
            return true;
        }
        changed = true;
        let mut outcome = outcome_of(state, Inbound::Accept, false, m.receipt.channel.via());
        if let Some(note) = note {
            outcome.reason = Some(note);
        }
        m.status = outcome.status;
        round.changes.push(Change {
            agent: m.agent.clone(),
            msg_id: m.receipt.msg_id.clone(),
            state,
            outcome,
        });
        !state.is_final()
    });
    if !round.changes.is_empty() {
        let records: Vec<Record> = round
            .changes
            .iter()
            .map(|c| {
                Record::Delivery(DeliveryRecord::new(
                    &c.msg_id,
                    &[(c.agent.clone(), c.outcome.clone())],
                    Some("followed".into()),
                ))
            })
            .collect();
        match log.append(&records) {
            Ok(more) => round.warnings.extend(more),
            Err(e) => round
                .warnings
                .push(format!("could not log what accepted messages came to: {e}")),
        }
    }
    if changed && let Err(e) = write(&f, &lock, &all) {
        round.warnings.push(format!(
            "could not record the accepted messages followed: {e}"
        ));
    }
    round
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::log::on_files::FileLog;
    use crate::log::record::ConfirmedBy;
    use crate::native::Channel;

    const MARKER: &str = "[agent-1][2026-12-01 10:00:00][INFO][#9c2c68bd]";

    struct Setup {
        _dir: tempfile::TempDir,
        paths: Paths,
        transcript: PathBuf,
        session_file: PathBuf,
    }

    fn setup() -> Setup {
        let dir = tempfile::tempdir().expect("tempdir");
        let paths = Paths::new(dir.path());
        std::fs::create_dir_all(paths.swarm_dir()).expect("made");
        let transcript = dir.path().join("t.jsonl");
        let session_file = dir.path().join("42.json");
        std::fs::write(&session_file, "{}").expect("written");
        std::fs::write(&transcript, "").expect("written");
        Setup {
            _dir: dir,
            paths,
            transcript,
            session_file,
        }
    }

    fn followed(s: &Setup, status: DeliveryStatus) -> Followed {
        Followed {
            agent: "agent-0".into(),
            receipt: Receipt {
                channel: Channel::Socket,
                msg_id: "9c2c68bd".into(),
                marker: MARKER.into(),
                record: s.transcript.clone(),
                offset: 0,
                cut_short: false,
            },
            session_file: s.session_file.clone(),
            status,
            since: now_secs(),
        }
    }

    fn taken_line() -> String {
        format!(
            "{{\"type\":\"attachment\",\"origin\":{{\"kind\":\"peer\"}},\"message\":{{\"content\":\"{MARKER} hi\"}}}}\n"
        )
    }

    fn followed_notes(log: &FileLog) -> Vec<(String, Option<String>)> {
        log.read()
            .expect("read")
            .records
            .into_iter()
            .filter_map(|r| match r {
                Record::Delivery(d) => Some((d.msg_id, d.note)),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn a_round_returns_what_changed_and_logs_it_but_writes_no_feed() {
        let s = setup();
        let log = FileLog::new(&s.paths);
        track(&s.paths, followed(&s, DeliveryStatus::Accepted)).expect("tracked");

        // Nothing new in the transcript: no change, still followed.
        let quiet = follow(&s.paths, &log);
        assert_eq!(quiet, Round::default());
        assert!(followed_notes(&log).is_empty());

        std::fs::write(&s.transcript, taken_line()).expect("written");
        let round = follow(&s.paths, &log);
        assert!(round.warnings.is_empty(), "{:?}", round.warnings);
        let [change] = round.changes.as_slice() else {
            panic!("one change: {round:?}");
        };
        assert_eq!(change.agent, "agent-0");
        assert_eq!(change.msg_id, "9c2c68bd");
        assert_eq!(
            change.state,
            Confirmation::Delivered(ConfirmedBy::Transcript)
        );
        assert_eq!(change.outcome.status, DeliveryStatus::Delivered);
        assert_eq!(
            followed_notes(&log),
            [("9c2c68bd".to_owned(), Some("followed".to_owned()))]
        );
        let entry = change.feed_entry();
        assert_eq!(entry.event, EventKind::MessageTaken);
        assert_eq!(entry.msg_id.as_deref(), Some("9c2c68bd"));
        assert!(
            !s.paths.feed().exists(),
            "the feed is the watcher's to write"
        );

        // Settled: no longer followed, nothing more to tell.
        assert_eq!(follow(&s.paths, &log), Round::default());
        assert_eq!(followed_notes(&log).len(), 1);
    }

    #[test]
    fn a_message_whose_session_ended_is_dropped_with_a_why() {
        let s = setup();
        let log = FileLog::new(&s.paths);
        track(&s.paths, followed(&s, DeliveryStatus::Accepted)).expect("tracked");
        std::fs::remove_file(&s.session_file).expect("removed");
        let round = follow(&s.paths, &log);
        let [change] = round.changes.as_slice() else {
            panic!("one change: {round:?}");
        };
        assert_eq!(change.state, Confirmation::Dropped);
        assert_eq!(change.outcome.status, DeliveryStatus::Dropped);
        assert_eq!(
            change.outcome.reason.as_deref(),
            Some("the agent's session ended before it took the message")
        );
        assert_eq!(change.feed_entry().event, EventKind::MessageDropped);
    }
}
