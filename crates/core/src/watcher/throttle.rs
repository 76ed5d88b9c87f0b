//! The notification throttle (`notify.throttle`): one notice per agent and
//! kind of event within the window; one that comes sooner waits for the
//! window's end and goes then if its episode is still open, several of
//! one agent and kind as one notice that counts the earlier ones.

use std::collections::BTreeMap;
use std::time::Duration;

use crate::attention::event::{EventKind, FeedEntry};
use crate::domain::Timestamp;

/// What the throttle remembers, carried over to the next watcher of the
/// same process.
#[derive(Clone, Debug, Default)]
pub(super) struct Memory {
    /// The notices held back.
    deferred: Vec<Deferred>,
    /// When each agent's kind of event was last notified: the window
    /// counts from there.
    last: BTreeMap<(String, EventKind), Timestamp>,
}

/// A notice the throttle held back: sent when the window ends if its
/// episode is still open.
#[derive(Clone, Debug)]
struct Deferred {
    entry: FeedEntry,
    not_before: Timestamp,
}

/// The throttle and its window.
#[derive(Debug)]
pub(super) struct Throttle {
    window: Duration,
    memory: Memory,
}

impl Throttle {
    /// One notice per agent and kind within `window`.
    pub(super) fn new(window: Duration) -> Throttle {
        Throttle {
            window,
            memory: Memory::default(),
        }
    }

    /// Goes on from what an earlier throttle remembered.
    pub(super) fn resume_from(&mut self, memory: Memory) {
        self.memory = memory;
    }

    /// What the next throttle goes on from.
    pub(super) fn memory(&self) -> Memory {
        self.memory.clone()
    }

    /// Whether `entry` is notified now (it is then counted); if not, it
    /// waits for the end of the window of its agent and kind.
    pub(super) fn admit(&mut self, entry: &FeedEntry) -> bool {
        let key = key(entry);
        let window_end = self
            .memory
            .last
            .get(&key)
            .and_then(|last| {
                Timestamp::from_unix_seconds(last.unix_seconds() + self.window.as_secs_f64())
            })
            .filter(|end| *end > entry.time);
        match window_end {
            Some(not_before) => {
                self.memory.deferred.push(Deferred {
                    entry: entry.clone(),
                    not_before,
                });
                false
            }
            None => {
                self.memory.last.insert(key, entry.time);
                true
            }
        }
    }

    /// Whether a notice held back is due at `now`.
    pub(super) fn any_due(&self, now: Timestamp) -> bool {
        self.memory.deferred.iter().any(|d| d.not_before <= now)
    }

    /// The notices due at `now` whose episode is still open (`open`), one
    /// per agent and kind: the latest, with the count of the earlier ones
    /// in its detail. Each is counted as notified at `now`; the rest wait.
    pub(super) fn due(
        &mut self,
        now: Timestamp,
        open: &dyn Fn(&FeedEntry) -> bool,
    ) -> Vec<FeedEntry> {
        let (due, waiting): (Vec<Deferred>, Vec<Deferred>) =
            std::mem::take(&mut self.memory.deferred)
                .into_iter()
                .partition(|d| d.not_before <= now);
        self.memory.deferred = waiting;
        let mut by_condition: BTreeMap<(Option<String>, String), Vec<FeedEntry>> = BTreeMap::new();
        for d in due.into_iter().filter(|d| open(&d.entry)) {
            by_condition
                .entry((d.entry.agent.clone(), d.entry.event.as_str().to_owned()))
                .or_default()
                .push(d.entry);
        }
        let mut out = Vec::new();
        for (_, mut entries) in by_condition {
            let Some(mut last) = entries.pop() else {
                continue;
            };
            if !entries.is_empty() {
                last.detail = format!(
                    "{} (and {} earlier within the throttle window)",
                    last.detail,
                    entries.len()
                );
            }
            self.memory.last.insert(key(&last), now);
            out.push(last);
        }
        out
    }
}

/// The agent and kind an entry is throttled by.
fn key(entry: &FeedEntry) -> (String, EventKind) {
    (entry.agent.clone().unwrap_or_default(), entry.event)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(secs: f64) -> Timestamp {
        Timestamp::from_unix_seconds(1_800_000_000.0 + secs).expect("time")
    }

    fn entry(agent: &str, kind: EventKind, secs: f64, detail: &str) -> FeedEntry {
        let mut e = FeedEntry::new(kind, Some(agent), detail);
        e.time = at(secs);
        e
    }

    #[test]
    fn one_notice_per_agent_and_kind_within_the_window() {
        let mut t = Throttle::new(Duration::from_secs(60));
        assert!(t.admit(&entry("agent-1", EventKind::Stuck, 0.0, "a")));
        assert!(!t.admit(&entry("agent-1", EventKind::Stuck, 10.0, "b")));
        assert!(t.admit(&entry("agent-2", EventKind::Stuck, 10.0, "c")));
        assert!(t.admit(&entry("agent-1", EventKind::Finished, 10.0, "d")));
        assert!(t.admit(&entry("agent-1", EventKind::Stuck, 61.0, "e")));
        assert!(!t.any_due(at(59.0)));
        assert!(t.any_due(at(60.0)));
    }

    #[test]
    fn what_waited_goes_at_the_windows_end_as_one_notice_if_still_open() {
        let mut t = Throttle::new(Duration::from_secs(60));
        assert!(t.admit(&entry("agent-1", EventKind::Stuck, 0.0, "first")));
        assert!(t.admit(&entry("agent-2", EventKind::Stuck, 0.0, "first")));
        for (secs, detail) in [(5.0, "second"), (6.0, "third")] {
            assert!(!t.admit(&entry("agent-1", EventKind::Stuck, secs, detail)));
        }
        assert!(!t.admit(&entry("agent-2", EventKind::Stuck, 7.0, "closed")));
        assert!(t.due(at(30.0), &|_| true).is_empty(), "not yet");
        let open = |e: &FeedEntry| e.agent.as_deref() == Some("agent-1");
        let sent = t.due(at(60.0), &open);
        assert_eq!(sent.len(), 1, "{sent:?}");
        assert_eq!(
            sent[0].detail,
            "third (and 1 earlier within the throttle window)"
        );
        assert!(
            !t.any_due(at(1000.0)),
            "a closed episode's notice is dropped"
        );
        // The window of agent-1 counts from the notice at the window's end.
        assert!(!t.admit(&entry("agent-1", EventKind::Stuck, 100.0, "again")));
        assert!(t.admit(&entry("agent-1", EventKind::Stuck, 121.0, "later")));
    }

    #[test]
    fn the_next_throttle_goes_on_from_what_this_one_remembered() {
        let mut t = Throttle::new(Duration::from_secs(60));
        assert!(t.admit(&entry("agent-1", EventKind::Stuck, 0.0, "a")));
        assert!(!t.admit(&entry("agent-1", EventKind::Stuck, 1.0, "b")));
        let mut next = Throttle::new(Duration::from_secs(60));
        next.resume_from(t.memory());
        assert!(!next.admit(&entry("agent-1", EventKind::Stuck, 2.0, "c")));
        assert_eq!(next.due(at(60.0), &|_| true).len(), 1);
    }
}
