//! `HeldStore`: messages held back from a pane because its agent's screen
//! was not safe to type into (someone typing, a dialog open, a screen swarm
//! cannot read), and the guarantees any place that keeps them must give.
//! `FileHeld` (`on_files.rs`) keeps them in `.swarm/held.json`.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::domain::message::Urgency;
use crate::domain::{AgentId, MessageId, Timestamp};
use crate::store::StoreError;

/// One held message for one recipient.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HeldMessage {
    /// Order of holding, across all agents.
    pub seq: u64,
    /// The message.
    pub msg_id: MessageId,
    /// The recipient.
    pub agent: AgentId,
    /// Exactly what will be typed into the pane.
    pub text: String,
    /// A piece of the text that identifies it on screen (its header).
    pub marker: String,
    /// Why it waits, for a person.
    pub reason: String,
    /// When it was first held.
    #[serde(with = "crate::domain::utc_iso")]
    pub since: Timestamp,
    /// How urgently it goes in: a normal message waits for the end of a
    /// busy agent's turn, an urgent one does not.
    #[serde(default, skip_serializing_if = "Urgency::is_normal")]
    pub urgency: Urgency,
}

impl HeldMessage {
    /// How long it has waited.
    pub fn age(&self, now: Timestamp) -> Duration {
        Duration::from_secs_f64(self.since.seconds_until(now))
    }
}

/// A message to hold.
#[derive(Clone, Copy, Debug)]
pub struct ToHold<'a> {
    /// The message.
    pub msg_id: &'a MessageId,
    /// The recipient.
    pub agent: &'a AgentId,
    /// Exactly what will be typed into the pane.
    pub text: &'a str,
    /// A piece of the text that identifies it on screen.
    pub marker: &'a str,
    /// Why it waits.
    pub reason: &'a str,
    /// How urgently it goes in.
    pub urgency: Urgency,
}

/// What `hold` did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Holding {
    /// Messages now held for the agent, this one included.
    pub count: usize,
    /// True the first time in an episode (until nothing is held for the
    /// agent any more): the person at the pane should be told, once.
    pub first_notice: bool,
}

/// The queue as every store keeps it (the `held` and `notified` of
/// `.swarm/held.json`), with the rules of holding and releasing, which
/// each store applies under its own exclusion.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct HeldQueue {
    /// The held messages, in the order of release.
    pub held: Vec<HeldMessage>,
    /// Agents whose pane was told that messages wait (told once per
    /// episode: the mark goes when nothing is held for them any more).
    #[serde(default)]
    pub notified: Vec<String>,
}

impl HeldQueue {
    /// Adds `msg` as number `seq`, held since `since`, after everything
    /// held, and marks its agent as told.
    pub fn hold(&mut self, seq: u64, msg: ToHold<'_>, since: Timestamp) -> Holding {
        self.held.push(HeldMessage {
            seq,
            msg_id: msg.msg_id.clone(),
            agent: msg.agent.clone(),
            text: msg.text.to_owned(),
            marker: msg.marker.to_owned(),
            reason: msg.reason.to_owned(),
            since,
            urgency: msg.urgency,
        });
        let count = self.held.iter().filter(|h| h.agent == *msg.agent).count();
        let first_notice = !self.notified.iter().any(|a| msg.agent == a.as_str());
        if first_notice {
            self.notified.push(msg.agent.to_string());
        }
        Holding {
            count,
            first_notice,
        }
    }

    /// Sets why everything held for `agent` waits; true when a reason
    /// changed.
    pub fn set_reason(&mut self, agent: &AgentId, reason: &str) -> bool {
        let mut changed = false;
        for h in self.held.iter_mut().filter(|h| h.agent == *agent) {
            if h.reason != reason {
                h.reason = reason.to_owned();
                changed = true;
            }
        }
        changed
    }

    /// Takes out the message `seq`; true when it was there.
    pub fn release(&mut self, seq: u64) -> bool {
        let before = self.held.len();
        self.held.retain(|h| h.seq != seq);
        self.forget_notices();
        self.held.len() != before
    }

    /// Takes out everything held for `agent`, in order.
    pub fn release_all(&mut self, agent: &AgentId) -> Vec<HeldMessage> {
        let (gone, kept) = std::mem::take(&mut self.held)
            .into_iter()
            .partition(|h| h.agent == *agent);
        self.held = kept;
        self.forget_notices();
        gone
    }

    /// Forgets the notices of agents that have nothing held any more.
    fn forget_notices(&mut self) {
        let held = &self.held;
        self.notified
            .retain(|a| held.iter().any(|h| h.agent.as_str() == a));
    }
}

/// The held messages of one project.
pub trait HeldStore: Send + Sync {
    /// Everything held, in the order it was held (empty when damaged: a
    /// damaged queue is replaced at the next change).
    fn list(&self) -> Result<Vec<HeldMessage>, StoreError>;

    /// True when anything is held. Called after every command, so it must
    /// be cheap (for the files: one failed `open` when nothing is held).
    fn any(&self) -> bool;

    /// Holds one more message for its agent, after every message already
    /// held (the order of `hold` calls is the order of release), and marks
    /// the agent as told. Atomic: racing holds lose nothing and get
    /// distinct places in the order; exactly one of them sees
    /// `first_notice`.
    fn hold(&self, msg: ToHold<'_>) -> Result<Holding, StoreError>;

    /// Updates why everything held for `agent` waits.
    fn set_reason(&self, agent: &AgentId, reason: &str) -> Result<(), StoreError>;

    /// Takes the message `seq` out of the queue to deliver it. Released
    /// exactly once: of racing calls for one message, across all
    /// processes, exactly one gets `true`; the others must not type it.
    fn release(&self, seq: u64) -> Result<bool, StoreError>;

    /// Takes every message held for `agent` out of the queue, in order
    /// (its pane went away: they become ordinary queued messages). Each
    /// message is returned to exactly one caller.
    fn release_all(&self, agent: &AgentId) -> Result<Vec<HeldMessage>, StoreError>;
}

/// The contract every `HeldStore` keeps, written against the trait.
#[cfg(any(test, feature = "testing"))]
pub mod contract {
    use std::sync::{Arc, Barrier};

    use super::*;

    fn agent(s: &str) -> AgentId {
        AgentId::parse(s).expect("agent id")
    }

    fn hold(store: &dyn HeldStore, id: &str, to: &str) -> Holding {
        store
            .hold(ToHold {
                msg_id: &MessageId::from_stored(id),
                agent: &agent(to),
                text: &format!("text of {id}"),
                marker: "[h]",
                reason: "typing",
                urgency: Urgency::Normal,
            })
            .expect("hold")
    }

    fn ids(held: &[HeldMessage]) -> Vec<&str> {
        held.iter().map(|h| h.msg_id.as_str()).collect()
    }

    /// Order is kept, notices come once per episode, releases happen once.
    pub fn holds_in_order_and_releases_once(store: &dyn HeldStore) {
        assert!(!store.any());
        assert_eq!(
            hold(store, "m1", "agent-1"),
            Holding {
                count: 1,
                first_notice: true
            }
        );
        hold(store, "m2", "agent-2");
        assert_eq!(
            hold(store, "m3", "agent-1"),
            Holding {
                count: 2,
                first_notice: false
            }
        );
        assert!(store.any());
        let all = store.list().expect("list");
        assert_eq!(ids(&all), ["m1", "m2", "m3"]);
        assert_eq!(all[0].text, "text of m1");
        store
            .set_reason(&agent("agent-1"), "a dialog is open")
            .expect("reason");
        let all = store.list().expect("list");
        assert_eq!(all[2].reason, "a dialog is open");
        assert_eq!(all[1].reason, "typing");
        assert!(store.release(all[0].seq).expect("release"));
        assert!(!store.release(all[0].seq).expect("release"));
        let gone = store.release_all(&agent("agent-1")).expect("release all");
        assert_eq!(ids(&gone), ["m3"]);
        assert_eq!(ids(&store.list().expect("list")), ["m2"]);
        // Nothing held for agent-1 any more: the next hold is a new episode.
        assert!(hold(store, "m4", "agent-1").first_notice);
    }

    /// Many callers release the same messages at once: each message goes
    /// to exactly one of them.
    pub fn racing_releases_have_one_winner(store: Arc<dyn HeldStore>) {
        for i in 0..6 {
            hold(&*store, &format!("m{i}"), "agent-1");
        }
        let seqs: Vec<u64> = store.list().expect("list").iter().map(|h| h.seq).collect();
        let racers = 6;
        let barrier = Arc::new(Barrier::new(racers));
        let handles: Vec<_> = (0..racers)
            .map(|_| {
                let store = Arc::clone(&store);
                let barrier = Arc::clone(&barrier);
                let seqs = seqs.clone();
                std::thread::spawn(move || {
                    barrier.wait();
                    seqs.into_iter()
                        .filter(|s| store.release(*s).expect("release"))
                        .collect::<Vec<u64>>()
                })
            })
            .collect();
        let mut won: Vec<u64> = handles
            .into_iter()
            .flat_map(|h| h.join().expect("thread"))
            .collect();
        won.sort_unstable();
        assert_eq!(won, seqs, "every message released exactly once");
        assert!(!store.any());
    }
}
