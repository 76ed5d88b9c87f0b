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
pub trait PrintedStore: Send + Sync {
    /// Claims `agent`'s printed line `key`: true for the one caller that
    /// claims it first, false for every later one.
    fn claim(&self, agent: &str, key: &str) -> Result<bool, StoreError>;

    /// Drops the claims of agents that left the swarm.
    fn forget(&self, agents: &[String]) -> Result<(), StoreError>;
}

/// The rules every store keeps, run by each store's tests.
#[cfg(any(test, feature = "testing"))]
pub mod contract {
    use super::PrintedStore;
    use std::sync::{Arc, Barrier};

    /// `open()` opens the same claims each time; four of them race for
    /// five lines, each claimed once; a claim is per agent; `forget` drops
    /// an agent's claims only.
    pub fn each_line_is_claimed_once(open: impl Fn() -> Box<dyn PrintedStore>) {
        let barrier = Arc::new(Barrier::new(4));
        let handles: Vec<_> = (0..4)
            .map(|_| {
                let store = open();
                let barrier = Arc::clone(&barrier);
                std::thread::spawn(move || {
                    barrier.wait();
                    (0..5)
                        .filter(|i| store.claim("agent-1", &format!("k{i}")).expect("claim"))
                        .count()
                })
            })
            .collect();
        let won: usize = handles.into_iter().map(|h| h.join().expect("join")).sum();
        assert_eq!(won, 5);
        let store = open();
        assert!(!store.claim("agent-1", "k0").expect("claim"));
        // Another agent's line of the same key is its own.
        assert!(store.claim("agent-2", "k0").expect("claim"));
        store.forget(&["agent-1".to_owned()]).expect("forget");
        assert!(store.claim("agent-1", "k0").expect("claim"));
        assert!(!store.claim("agent-2", "k0").expect("claim"));
    }
}
