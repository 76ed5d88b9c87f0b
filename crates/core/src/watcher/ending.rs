//! When a background watcher ends by itself: once no agent pane of this
//! host has lived for `GRACE` (a launch in progress has none for a
//! moment). A watcher in the foreground runs until it is stopped.

use std::time::{Duration, Instant};

/// How long the background watcher stays once no agent pane of this host
/// lives.
const GRACE: Duration = Duration::from_secs(10);

/// Since when no agent pane of this host lives.
#[derive(Debug, Default)]
pub(super) struct Ending {
    /// Started by a command: ends once no agent pane of this host lives.
    background: bool,
    since: Option<Instant>,
}

impl Ending {
    /// The ending of a watcher started in the `background` or not.
    pub(super) fn new(background: bool) -> Ending {
        Ending {
            background,
            since: None,
        }
    }

    /// After a look that saw an agent pane of this host live or not:
    /// whether the watcher should end.
    pub(super) fn after_look(&mut self, alive: bool) -> bool {
        self.at(alive, Instant::now())
    }

    fn at(&mut self, alive: bool, now: Instant) -> bool {
        if !self.background {
            return false;
        }
        if alive {
            self.since = None;
            return false;
        }
        let since = *self.since.get_or_insert(now);
        now.saturating_duration_since(since) >= GRACE
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_background_watcher_ends_after_the_grace_without_agents_and_not_before() {
        let start = Instant::now();
        let mut ending = Ending::new(true);
        assert!(!ending.at(false, start));
        assert!(!ending.at(false, start + GRACE / 2));
        // An agent pane came back: the grace starts again.
        assert!(!ending.at(true, start + GRACE / 2));
        assert!(!ending.at(false, start + GRACE));
        assert!(!ending.at(false, start + GRACE * 2 - Duration::from_millis(1)));
        assert!(ending.at(false, start + GRACE * 2));
    }

    #[test]
    fn a_watcher_in_the_foreground_never_ends_by_itself() {
        let start = Instant::now();
        let mut ending = Ending::new(false);
        assert!(!ending.at(false, start));
        assert!(!ending.at(false, start + GRACE * 10));
    }
}
