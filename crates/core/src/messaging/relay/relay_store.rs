//! `Relay`: how a message reaches an agent whose pane is on another host.
//! Only the host whose tmux server has the pane can type into it, so the
//! sender hands the delivery over to that host, and a `swarm watch` (or
//! monitor, or dashboard) there types it in through the same delivery path
//! as a local send and records the outcome in the shared log.
//!
//! What an implementation must guarantee:
//!
//! * a handed-over delivery is kept until one of the recipient host's
//!   takers marks it `done`, however long no taker runs (a host that is
//!   down gets its deliveries when it comes back);
//! * each delivery is given to exactly one taker of that host at a time;
//!   it goes to another only when its taker stopped without marking it
//!   done (crashed) for `RECLAIM_AFTER`;
//! * `take` waits for new deliveries (pushed, not polled) up to the time
//!   it is given;
//! * handing over what already waits for its host (the same message, the
//!   same recipient, the same text: a `swarm redeliver` before the host
//!   took it) adds nothing, so it is typed in once.
//!
//! The state files are one host's: they have no relay. On Redis each host
//! has a stream with one consumer group (`crates/redis/src/relay.rs`).

use std::time::Duration;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::domain::message::Urgency;
use crate::store::StoreError;

/// How long a taken delivery stays with a taker that does not mark it
/// done before another taker of the host may take it over.
pub const RECLAIM_AFTER: Duration = Duration::from_secs(60);

/// A delivery for an agent on another host.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Handoff {
    /// The message (already in the shared log).
    pub msg_id: String,
    /// The recipient.
    pub agent: String,
    /// Exactly what to type into its pane.
    pub text: String,
    /// A piece of the text that identifies it on screen (its header).
    pub marker: String,
    /// The host that handed it over.
    pub from: String,
    /// What the outcome's note should say (`redelivery`, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// How urgently it goes into a busy agent's pane.
    #[serde(default, skip_serializing_if = "Urgency::is_normal")]
    pub urgency: Urgency,
}

impl Handoff {
    /// What makes two handoffs the same delivery: the message, the
    /// recipient and (hashed) the exact text, so that an ACK retry, whose
    /// text carries its retry mark, is another delivery.
    pub fn identity(&self) -> String {
        let digest = Sha256::digest(self.text.as_bytes());
        let hash: String = digest.iter().take(8).map(|b| format!("{b:02x}")).collect();
        format!("{}:{}:{hash}", self.msg_id, self.agent)
    }
}

/// What `hand_over` did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HandedOver {
    /// Queued for the host.
    Queued,
    /// The same delivery already waits for the host: nothing was added.
    AlreadyWaiting,
}

/// One delivery taken by this host.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TakenHandoff {
    /// The store's id for it, for `done`.
    pub id: String,
    /// The delivery; `None` when what was stored cannot be read (it is
    /// marked done unread: retrying would never succeed).
    pub handoff: Option<Handoff>,
}

/// The deliveries handed between the hosts of one swarm.
pub trait Relay: Send + Sync {
    /// This host's name.
    fn host(&self) -> &str;

    /// Queues `handoffs` (a broadcast's share for `host`, or one message)
    /// for the takers of `host`, together, so that its taker wakes to all
    /// of them at once; each unless the same delivery already waits there
    /// (or comes earlier in `handoffs`). Kept once this returns; what each
    /// came to, in order.
    fn hand_over_all(
        &self,
        host: &str,
        handoffs: &[Handoff],
    ) -> Result<Vec<HandedOver>, StoreError>;

    /// `hand_over_all` for one delivery.
    fn hand_over(&self, host: &str, handoff: &Handoff) -> Result<HandedOver, StoreError> {
        let said = self.hand_over_all(host, std::slice::from_ref(handoff))?;
        Ok(said.first().copied().unwrap_or(HandedOver::AlreadyWaiting))
    }

    /// Deliveries for this host, waiting up to `wait` when none is there
    /// yet (see the trait's guarantees).
    fn take(&self, wait: Duration) -> Result<Vec<TakenHandoff>, StoreError>;

    /// Marks taken deliveries finished: their outcome is recorded.
    fn done(&self, taken: &[TakenHandoff]) -> Result<(), StoreError>;
}
