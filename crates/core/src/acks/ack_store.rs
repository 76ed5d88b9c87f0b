//! `AckStore`: where the pending acknowledgements live, and the guarantees
//! any place that keeps them must give. `FileAcks` (`on_files.rs`) keeps them
//! in `PENDING_ACKS.json` and `.swarm/ack_due` (docs/FORMATS.md); a store
//! on a networked server would keep the same promises with its own
//! atomic operations (a compare-and-set per entry, say).

use serde::{Deserialize, Serialize};

use crate::domain::{AgentId, MessageId, Timestamp};
use crate::store::StoreError;

use super::pending::PendingEntry;

/// The pending list as every store keeps it: the shape of
/// `PENDING_ACKS.json` (docs/FORMATS.md), and the rules of acknowledging
/// and claiming, which each store applies under its own exclusion.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PendingDoc {
    /// Incremented on every save.
    #[serde(default)]
    pub version: u64,
    /// The entries, oldest first.
    pub pending_acks: Vec<PendingEntry>,
}

impl PendingDoc {
    /// Removes the one entry whose id starts with `prefix` (trimmed, any
    /// case) when `agent` is its recipient; otherwise changes nothing and
    /// says why.
    pub fn acknowledge(&mut self, prefix: &str, agent: &AgentId) -> AckResult {
        let prefix = prefix.trim().to_lowercase();
        let hits: Vec<usize> = self
            .pending_acks
            .iter()
            .enumerate()
            .filter(|(_, e)| e.msg_id.starts_with(&prefix))
            .map(|(i, _)| i)
            .collect();
        match hits.as_slice() {
            [] => AckResult::NotPending,
            [i] if self.pending_acks[*i].recipient_id != *agent => AckResult::NotRecipient {
                msg_id: self.pending_acks[*i].msg_id.clone(),
                recipient: self.pending_acks[*i].recipient_id.clone(),
            },
            [i] => AckResult::Acknowledged(Box::new(self.pending_acks.remove(*i))),
            many => AckResult::Ambiguous(
                many.iter()
                    .map(|&i| self.pending_acks[i].msg_id.clone())
                    .collect(),
            ),
        }
    }

    /// Claims the entries due at `now`, oldest obligation first (the
    /// earliest due, then the earliest sent), and applies `decide`'s
    /// verdict to each: a retry advances it, an escalation removes it, and
    /// `Leave` keeps it as it is, still due. The entries keep their order
    /// in the list; the claims come back in the order they were decided.
    pub fn claim_due(
        &mut self,
        now: Timestamp,
        decide: &dyn Fn(&PendingEntry) -> Claim,
    ) -> Vec<Claimed> {
        let mut order: Vec<usize> = (0..self.pending_acks.len())
            .filter(|&i| self.pending_acks[i].next_retry_at <= now)
            .collect();
        order.sort_by_key(|&i| {
            let e = &self.pending_acks[i];
            (e.next_retry_at, e.sent_at)
        });
        let mut claimed = Vec::new();
        let mut gone = vec![false; self.pending_acks.len()];
        for i in order {
            let entry = &mut self.pending_acks[i];
            let claim = decide(entry);
            match claim {
                Claim::Leave => {}
                Claim::Escalate { .. } => {
                    gone[i] = true;
                    claimed.push(Claimed {
                        entry: entry.clone(),
                        claim,
                    });
                }
                Claim::Postpone { next_retry_at } => entry.next_retry_at = next_retry_at,
                Claim::Retry { next_retry_at } => {
                    entry.retry_count += 1;
                    entry.next_retry_at = next_retry_at;
                    claimed.push(Claimed {
                        entry: entry.clone(),
                        claim,
                    });
                }
            }
        }
        let mut gone = gone.into_iter();
        self.pending_acks.retain(|_| !gone.next().unwrap_or(false));
        claimed
    }
}

/// The pending list as it is now.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PendingList {
    /// The entries, oldest first.
    pub entries: Vec<PendingEntry>,
    /// Set when the stored list is damaged: it reads as empty, and the
    /// next change moves it aside.
    pub problem: Option<String>,
}

/// When the next retry or escalation falls due, as far as a cheap look
/// can tell.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum NextDue {
    /// Nothing is pending.
    Nothing,
    /// The earliest entry falls due then.
    At(Timestamp),
    /// The store cannot tell cheaply (a list written by another tool):
    /// treat it as due now; `claim_due` finds out and makes it known.
    Unknown,
}

/// What to do with one due entry, decided by the caller (the retry
/// schedule and who is still registered are not the store's business).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Claim {
    /// Retry it: its retry count goes up by one and it falls due again then.
    Retry {
        /// The next due time.
        next_retry_at: Timestamp,
    },
    /// Escalate it: it leaves the list.
    Escalate {
        /// Its recipient is no longer registered.
        recipient_gone: bool,
    },
    /// Not now (its recipient is at its usage limit): it falls due again
    /// then, its retry count unchanged, and nobody claims it.
    Postpone {
        /// The next due time.
        next_retry_at: Timestamp,
    },
    /// Not by this caller: the entry stays as it is, still due, for a
    /// later one (its recipient cannot be judged now, or this caller's
    /// share of the work is spent).
    Leave,
}

/// One due entry this caller claimed, with the decision applied.
#[derive(Clone, Debug, PartialEq)]
pub struct Claimed {
    /// The entry after the decision: advanced for a retry, as it was for an
    /// escalation (it is gone from the list).
    pub entry: PendingEntry,
    /// The decision.
    pub claim: Claim,
}

/// What `acknowledge` found.
#[derive(Clone, Debug, PartialEq)]
pub enum AckResult {
    /// The entry was removed; the sender should be told.
    Acknowledged(Box<PendingEntry>),
    /// Nothing pending matches the id.
    NotPending,
    /// Only someone else may acknowledge it.
    NotRecipient {
        /// The full id.
        msg_id: MessageId,
        /// Who may.
        recipient: AgentId,
    },
    /// The prefix matches several pending messages.
    Ambiguous(Vec<MessageId>),
}

/// The pending acknowledgements of one project. Every method may return
/// warnings: a damaged list that was set aside (it then counts as empty).
pub trait AckStore: Send + Sync {
    /// Adds `entry` to the list. Atomic with every other change: racing
    /// records and acknowledgements never lose one another's entries.
    fn record(&self, entry: PendingEntry) -> Result<Vec<String>, StoreError>;

    /// Removes the one entry whose id starts with `prefix` when `agent` is
    /// its recipient; otherwise changes nothing and says why. The check
    /// and the removal are one atomic step: of racing acknowledgements of
    /// one entry, exactly one gets `Acknowledged`.
    fn acknowledge(
        &self,
        prefix: &str,
        agent: &AgentId,
    ) -> Result<(AckResult, Vec<String>), StoreError>;

    /// Every entry as it is now (a consistent snapshot; changes nothing).
    fn list(&self) -> Result<PendingList, StoreError>;

    /// The earliest due time. Called by every command that changes state,
    /// so it must be cheap (one small read for the files); it may be
    /// `Unknown`, never later than the truth.
    fn next_due(&self) -> NextDue;

    /// Claims the entries due at `now` (`next_retry_at` not after it),
    /// oldest obligation first, applies `decide`'s verdict to each (a
    /// retry advances it, an escalation removes it, `Leave` keeps it due)
    /// and returns the claims in that order (`PendingDoc::claim_due`). Each due entry is claimed
    /// by exactly one caller across all processes: the claim and the
    /// change are one atomic step, and the entry is no longer due to
    /// anyone else before the caller sends anything.
    fn claim_due(
        &self,
        now: Timestamp,
        decide: &dyn Fn(&PendingEntry) -> Claim,
    ) -> Result<(Vec<Claimed>, Vec<String>), StoreError>;
}

/// The contract every `AckStore` keeps, written against the trait so that
/// each implementation runs the same checks.
#[cfg(any(test, feature = "testing"))]
pub mod contract {
    use std::sync::{Arc, Barrier};
    use std::time::Duration;

    use super::*;
    use crate::domain::message::{Message, MessageType};

    fn id(s: &str) -> AgentId {
        AgentId::parse(s).expect("agent id")
    }

    /// An entry for a new message from agent-0 to `to`, due `after` from `now`.
    pub fn entry(to: &str, now: Timestamp, after: Duration) -> PendingEntry {
        let mut m = Message::new(
            id("agent-0"),
            vec![id(to)],
            MessageType::builtin("BLOCKED"),
            "x".into(),
        );
        m.requires_ack = true;
        PendingEntry::new(m, id("agent-0"), id(to), now, after)
    }

    fn later(t: Timestamp, secs: i64) -> Timestamp {
        Timestamp::from_utc(t.utc() + chrono::Duration::seconds(secs))
    }

    /// Now, to the microsecond (what a store must keep).
    fn now() -> Timestamp {
        use chrono::SubsecRound;
        Timestamp::from_utc(Timestamp::now().utc().trunc_subsecs(6))
    }

    /// Record, list, acknowledge by prefix (only the recipient), due times.
    pub fn records_and_acknowledges(store: &dyn AckStore) {
        let now = now();
        assert_eq!(store.next_due(), NextDue::Nothing);
        let e = entry("agent-1", now, Duration::from_secs(30));
        store.record(e.clone()).expect("record");
        let listed = store.list().expect("list");
        assert_eq!(listed.entries, vec![e.clone()]);
        assert_eq!(store.next_due(), NextDue::At(e.next_retry_at));
        let (r, _) = store
            .acknowledge(e.msg_id.short(), &id("agent-2"))
            .expect("ack");
        assert_eq!(
            r,
            AckResult::NotRecipient {
                msg_id: e.msg_id.clone(),
                recipient: id("agent-1"),
            }
        );
        let (r, _) = store
            .acknowledge(e.msg_id.short(), &id("agent-1"))
            .expect("ack");
        assert_eq!(r, AckResult::Acknowledged(Box::new(e.clone())));
        let (r, _) = store
            .acknowledge(e.msg_id.as_str(), &id("agent-1"))
            .expect("ack");
        assert_eq!(r, AckResult::NotPending);
        assert!(store.list().expect("list").entries.is_empty());
        assert_eq!(store.next_due(), NextDue::Nothing);
    }

    /// Nothing is claimed early; a retry advances the entry, an escalation
    /// removes it; the same moment again claims nothing.
    pub fn claims_on_time_and_once(store: &dyn AckStore) {
        let now = now();
        let e = entry("agent-1", now, Duration::from_secs(30));
        store.record(e.clone()).expect("record");
        let retry = |t: Timestamp| Claim::Retry {
            next_retry_at: later(t, 60),
        };
        let (early, _) = store
            .claim_due(later(now, 29), &|_| retry(later(now, 29)))
            .expect("claim");
        assert!(early.is_empty());
        let at = later(now, 31);
        let (first, _) = store.claim_due(at, &|_| retry(at)).expect("claim");
        assert_eq!(first.len(), 1);
        assert_eq!(first[0].entry.retry_count, 1);
        assert_eq!(first[0].entry.next_retry_at, later(at, 60));
        assert_eq!(store.next_due(), NextDue::At(later(at, 60)));
        assert!(
            store
                .claim_due(at, &|_| retry(at))
                .expect("claim")
                .0
                .is_empty()
        );
        let end = later(at, 61);
        let escalate = |_: &PendingEntry| Claim::Escalate {
            recipient_gone: false,
        };
        let (last, _) = store.claim_due(end, &escalate).expect("claim");
        assert_eq!(last.len(), 1);
        assert!(matches!(last[0].claim, Claim::Escalate { .. }));
        assert!(store.list().expect("list").entries.is_empty());
    }

    /// Due entries are decided oldest first (earliest due), whatever their
    /// place in the list; an entry left stays due and unchanged, so a
    /// caller that takes one obligation at a time reaches every one.
    pub fn claims_oldest_first_and_leaves_the_rest(store: &dyn AckStore) {
        let now = now();
        // Recorded newest-due first: the list order is not the due order.
        let entries: Vec<PendingEntry> = (0..4)
            .map(|i| entry("agent-1", now, Duration::from_secs(40 - 10 * i)))
            .collect();
        for e in &entries {
            store.record(e.clone()).expect("record");
        }
        let at = later(now, 60);
        let mut taken = Vec::new();
        for _ in 0..entries.len() {
            let seen = std::cell::Cell::new(0);
            let (won, _) = store
                .claim_due(at, &|_| {
                    seen.set(seen.get() + 1);
                    if seen.get() == 1 {
                        Claim::Retry {
                            next_retry_at: later(at, 600),
                        }
                    } else {
                        Claim::Leave
                    }
                })
                .expect("claim");
            assert_eq!(won.len(), 1, "one claimed, the rest left");
            taken.push(won[0].entry.msg_id.clone());
        }
        let oldest_first: Vec<_> = entries.iter().rev().map(|e| e.msg_id.clone()).collect();
        assert_eq!(taken, oldest_first);
        let listed = store.list().expect("list").entries;
        let ids: Vec<_> = listed.iter().map(|e| e.msg_id.clone()).collect();
        let recorded: Vec<_> = entries.iter().map(|e| e.msg_id.clone()).collect();
        assert_eq!(ids, recorded, "the list keeps its order");
        assert!(listed.iter().all(|e| e.retry_count == 1));
    }

    /// Many callers claim the same due entries at once: each entry is
    /// claimed by exactly one of them.
    pub fn racing_claims_have_one_winner(store: Arc<dyn AckStore>) {
        let now = now();
        let entries: Vec<PendingEntry> = (0..5)
            .map(|_| entry("agent-1", now, Duration::from_secs(1)))
            .collect();
        for e in &entries {
            store.record(e.clone()).expect("record");
        }
        let at = later(now, 2);
        let racers = 8;
        let barrier = Arc::new(Barrier::new(racers));
        let handles: Vec<_> = (0..racers)
            .map(|_| {
                let store = Arc::clone(&store);
                let barrier = Arc::clone(&barrier);
                std::thread::spawn(move || {
                    barrier.wait();
                    let (won, _) = store
                        .claim_due(at, &|_| Claim::Retry {
                            next_retry_at: later(at, 600),
                        })
                        .expect("claim");
                    won.into_iter().map(|c| c.entry.msg_id).collect::<Vec<_>>()
                })
            })
            .collect();
        let mut won: Vec<MessageId> = handles
            .into_iter()
            .flat_map(|h| h.join().expect("thread"))
            .collect();
        won.sort();
        let mut expected: Vec<MessageId> = entries.into_iter().map(|e| e.msg_id).collect();
        expected.sort();
        assert_eq!(won, expected, "every due entry claimed exactly once");
        let left = store.list().expect("list").entries;
        assert!(left.iter().all(|e| e.retry_count == 1), "{left:?}");
    }
}
