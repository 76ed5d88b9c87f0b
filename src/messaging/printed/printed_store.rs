//! `PrintedStore`: the shared record of the printed lines already sent
//! (print-to-send, docs/PROFILES.md). A line is named by its agent and its
//! key (`PrintRules::printed`); of any number of watchers that claim the
//! same line, exactly one is told it claimed it, and only that one sends.

use crate::store::StoreError;

/// The most claims kept per agent; the oldest go first. A claim dropped
/// while its line is still in the rows read would send it again, so the
/// limit is far above the lines a watcher reads (docs/FORMATS.md).
pub(crate) const KEPT_PER_AGENT: usize = 5000;

/// Where the claims are kept.
pub(crate) trait PrintedStore: Send + Sync {
    /// Claims `agent`'s printed line `key`: true for the one caller that
    /// claims it first, false for every later one.
    fn claim(&self, agent: &str, key: &str) -> Result<bool, StoreError>;

    /// Drops the claims of agents that left the swarm.
    fn forget(&self, agents: &[String]) -> Result<(), StoreError>;
}
