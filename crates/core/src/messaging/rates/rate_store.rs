//! `RateStore`: the per-sender windows of recent sends that the rate limit
//! counts, shared by every process, and the guarantee any place that keeps
//! them must give. `FileRates` (`on_files.rs`) keeps them in
//! `.swarm/rate_limits.json`. The sliding-window rule itself is
//! `RateLimit::admit`, so every store applies the same one.

use std::time::Duration;

use crate::domain::{AgentId, Timestamp};
use crate::store::StoreError;

/// At most `max` sends per `window`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RateLimit {
    /// Sends allowed per window.
    pub max: u32,
    /// The window.
    pub window: Duration,
}

/// What a rate check decided.
#[derive(Clone, Debug, PartialEq)]
pub enum RateDecision {
    /// Allowed, and recorded as a send.
    Allowed,
    /// Refused; the next send is allowed after this long.
    Limited(Duration),
}

impl RateLimit {
    /// The sliding-window rule: `times` (Unix seconds of one sender's
    /// recent sends) loses what left the window before `now`; a send at
    /// `now` is allowed, and added, while fewer than `max` remain.
    pub fn admit(&self, times: &mut Vec<f64>, now: f64) -> RateDecision {
        let window = self.window.as_secs_f64();
        times.retain(|t| t.is_finite() && now - *t < window);
        if times.len() >= self.max as usize {
            let oldest = times.iter().copied().fold(f64::INFINITY, f64::min);
            RateDecision::Limited(Duration::from_secs_f64((oldest + window - now).max(0.0)))
        } else {
            times.push(now);
            RateDecision::Allowed
        }
    }
}

/// The rate windows of one project.
pub trait RateStore: Send + Sync {
    /// Decides by `limit` whether `sender` may send at `now` and, when it
    /// may, records the send: one atomic step, so of racing sends by one
    /// sender with room for `k` more, exactly `k` are allowed, across all
    /// processes. The note says when damaged state was set aside (then
    /// the window starts empty).
    fn check_and_record(
        &self,
        sender: &AgentId,
        limit: RateLimit,
        now: Timestamp,
    ) -> Result<(RateDecision, Option<String>), StoreError>;
}

/// The contract every `RateStore` keeps, written against the trait.
#[cfg(any(test, feature = "testing"))]
pub mod contract {
    use std::sync::{Arc, Barrier};

    use super::*;

    fn agent(s: &str) -> AgentId {
        AgentId::parse(s).expect("agent id")
    }

    fn at(t: Timestamp, secs: i64) -> Timestamp {
        Timestamp::from_utc(t.utc() + chrono::Duration::seconds(secs))
    }

    /// Up to the limit, then how long to wait; senders apart; the window slides.
    pub fn limits_each_sender_in_a_sliding_window(store: &dyn RateStore) {
        let limit = RateLimit {
            max: 3,
            window: Duration::from_secs(60),
        };
        let t0 = Timestamp::now();
        for i in 0..3 {
            let (v, _) = store
                .check_and_record(&agent("a"), limit, at(t0, i))
                .expect("check");
            assert_eq!(v, RateDecision::Allowed);
        }
        match store
            .check_and_record(&agent("a"), limit, at(t0, 10))
            .expect("check")
            .0
        {
            RateDecision::Limited(wait) => {
                assert!((49.0..=50.5).contains(&wait.as_secs_f64()), "{wait:?}")
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(
            store
                .check_and_record(&agent("b"), limit, t0)
                .expect("check")
                .0,
            RateDecision::Allowed
        );
        assert_eq!(
            store
                .check_and_record(&agent("a"), limit, at(t0, 61))
                .expect("check")
                .0,
            RateDecision::Allowed
        );
    }

    /// Racing sends by one sender: exactly `max` are allowed.
    pub fn racing_sends_never_exceed_the_limit(store: Arc<dyn RateStore>) {
        let limit = RateLimit {
            max: 5,
            window: Duration::from_secs(600),
        };
        let now = Timestamp::now();
        let racers = 12;
        let barrier = Arc::new(Barrier::new(racers));
        let handles: Vec<_> = (0..racers)
            .map(|_| {
                let store = Arc::clone(&store);
                let barrier = Arc::clone(&barrier);
                std::thread::spawn(move || {
                    barrier.wait();
                    store
                        .check_and_record(&agent("racer"), limit, now)
                        .expect("check")
                        .0
                })
            })
            .collect();
        let allowed = handles
            .into_iter()
            .map(|h| h.join().expect("thread"))
            .filter(|v| *v == RateDecision::Allowed)
            .count();
        assert_eq!(allowed, 5);
    }
}
