//! Following the messages an agent accepted through its own channel but
//! had not taken yet (busy, holding them for the person's approval, or no
//! record of them yet): `.swarm/native_following.json` lists them, and
//! each round of the watcher (`follow`) looks at their receipts once more
//! and records what changed (taken, expired, dropped) in the message log
//! and the feed. swarm never sends such a message again by itself.

use std::path::PathBuf;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use crate::attention::event::{EventKind, FeedEntry};
use crate::attention::feed::feed_store::FeedStore;
use crate::log::log_store::LogStore;
use crate::log::record::{DeliveryRecord, DeliveryStatus, Record};
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

/// One round: looks at every followed message's receipt, records each
/// change in the log (a delivery record noted `followed`) and the feed,
/// and stops following those that are settled. Returns the warnings.
pub(crate) fn follow(paths: &Paths, log: &dyn LogStore, feed: &dyn FeedStore) -> Vec<String> {
    let f = file(paths);
    if !f.path().exists() {
        return Vec::new();
    }
    let mut warnings = Vec::new();
    let lock = match f.lock(DEFAULT_LOCK_TIMEOUT) {
        Ok(l) => l,
        Err(e) => return vec![format!("could not follow accepted messages: {e}")],
    };
    let mut all: FollowFile = match f.load_for_change(&lock, ", and nothing is followed") {
        Ok(a) => a,
        Err(e) => return vec![format!("could not follow accepted messages: {e}")],
    };
    if all.following.is_empty() {
        return warnings;
    }
    let now = now_secs();
    let mut records = Vec::new();
    let mut entries = Vec::new();
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
        let kind = match state {
            Confirmation::Delivered(_) => EventKind::MessageTaken,
            Confirmation::Expired => EventKind::MessageExpired,
            Confirmation::Dropped => EventKind::MessageDropped,
            _ => EventKind::MessageAccepted,
        };
        entries.push(
            FeedEntry::new(
                kind,
                Some(m.agent.as_str()),
                format!("{}: {}", m.receipt.msg_id, outcome.describe()),
            )
            .with_message(&m.receipt.msg_id),
        );
        records.push(Record::Delivery(DeliveryRecord::new(
            &m.receipt.msg_id,
            &[(m.agent.clone(), outcome.clone())],
            Some("followed".into()),
        )));
        m.status = outcome.status;
        !state.is_final()
    });
    if !records.is_empty() {
        match log.append(&records) {
            Ok(more) => warnings.extend(more),
            Err(e) => warnings.push(format!("could not log what accepted messages came to: {e}")),
        }
    }
    if !entries.is_empty()
        && let Err(e) = feed.append(&entries)
    {
        warnings.push(format!("could not write the activity feed: {e}"));
    }
    if changed && let Err(e) = write(&f, &lock, &all) {
        warnings.push(format!(
            "could not record the accepted messages followed: {e}"
        ));
    }
    warnings
}
