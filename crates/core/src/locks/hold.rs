//! `Hold`: one agent's claim on a lock: since when, why, and, for a lease,
//! until when. An exclusive lock has one; a shared lock has one per agent
//! that holds it.

use serde::{Deserialize, Serialize};

/// One agent's claim on a lock.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Hold {
    /// The agent.
    pub agent_id: String,
    /// When it took or last refreshed (or renewed) its claim, Unix seconds.
    pub locked_at: f64,
    /// Why, as the agent said (may be empty).
    pub reason: String,
    /// The end of its lease, Unix seconds; `None`: the stale timeout
    /// applies instead.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<f64>,
}

impl Hold {
    /// When it stops holding: the end of its lease, else `stale_after`
    /// seconds after it was taken.
    pub fn lapses_at(&self, stale_after: f64) -> f64 {
        self.expires_at.unwrap_or(self.locked_at + stale_after)
    }

    /// True once it holds nothing at `now`: its lease has ended, or it
    /// has none and is strictly older than `stale_after` (parity).
    pub fn has_lapsed(&self, now: f64, stale_after: f64) -> bool {
        match self.expires_at {
            Some(end) => now > end,
            None => now - self.locked_at > stale_after,
        }
    }

    /// How long its lease is (from `locked_at` to its end), if it has one.
    pub fn ttl(&self) -> Option<f64> {
        self.expires_at.map(|end| (end - self.locked_at).max(0.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lease_ends_at_its_end_and_a_plain_hold_after_the_stale_timeout() {
        let plain = Hold {
            agent_id: "agent-1".into(),
            locked_at: 1000.0,
            ..Hold::default()
        };
        assert!(!plain.has_lapsed(1300.0, 300.0));
        assert!(plain.has_lapsed(1300.5, 300.0));
        assert_eq!(plain.lapses_at(300.0), 1300.0);
        assert_eq!(plain.ttl(), None);
        let lease = Hold {
            expires_at: Some(5000.0),
            ..plain
        };
        assert!(
            !lease.has_lapsed(4999.0, 300.0),
            "a lease outlives the stale timeout"
        );
        assert!(lease.has_lapsed(5000.5, 300.0));
        assert_eq!(lease.lapses_at(300.0), 5000.0);
        assert_eq!(lease.ttl(), Some(4000.0));
    }
}
