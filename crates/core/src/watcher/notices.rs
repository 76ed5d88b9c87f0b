//! The watcher's notices to the person: what it raised, through the
//! throttle (`throttle.rs`), a notice held back sent at the window's end
//! while its episode is open, and what commands and hooks wrote to the
//! feed for the person (`feed_notices.rs`); each claimed once across
//! every watcher where more than one path could send it.

use crate::attention::event::{EventKind, FeedEntry};
use crate::attention::feed::feed_store::FeedCursor;
use crate::backend::Operator;
use crate::domain::Timestamp;
use crate::notify::{Notifier, NotifySettings};

use super::outage::Tell;
use super::throttle::{self, Throttle};

mod feed_notices;

/// The notifier and what it remembers between rounds.
pub(super) struct Notices {
    settings: NotifySettings,
    notifier: Notifier,
    throttle: Throttle,
    /// How far the feed was read for what commands wrote to notify
    /// (`None` until the first read).
    feed_cursor: Option<FeedCursor>,
}

impl Notices {
    /// Notices as `settings` say, with `link` (the dashboard's) in them;
    /// with what setting up the channels found worth telling.
    pub(super) fn new(settings: NotifySettings, link: Option<String>) -> (Notices, Vec<String>) {
        let (notifier, warnings) = Notifier::new(&settings, link);
        let throttle = Throttle::new(settings.throttle);
        let notices = Notices {
            settings,
            notifier,
            throttle,
            feed_cursor: None,
        };
        (notices, warnings)
    }

    /// Goes on from where an earlier watcher's notices stopped.
    pub(super) fn resume_from(&mut self, feed: Option<FeedCursor>, throttle: throttle::Memory) {
        self.feed_cursor = feed;
        self.throttle.resume_from(throttle);
    }

    /// What the next watcher's notices go on from.
    pub(super) fn carried(&self) -> (Option<FeedCursor>, throttle::Memory) {
        (self.feed_cursor.clone(), self.throttle.memory())
    }

    /// Says what this watcher raised, and notifies it as `[notify]` says:
    /// an exit only when claimed, since the agent's own hook may have
    /// raised it too.
    pub(super) fn raised(&mut self, op: &Operator, raised: &[FeedEntry], tell: &mut Tell<'_>) {
        for entry in raised {
            tell.did(entry.text());
            if self.settings.notifies(entry.event)
                && (entry.event != EventKind::Exited || self.claim(op, entry, tell))
            {
                self.notify_or_defer(entry);
            }
        }
    }

    /// Notifies `entry` unless the throttle holds it back.
    fn notify_or_defer(&mut self, entry: &FeedEntry) {
        if self.throttle.admit(entry) {
            self.notifier.notify(entry);
        }
    }

    /// Sends the notices the throttle held back whose window has ended, if
    /// their episode is still open.
    pub(super) fn send_deferred(&mut self, op: &Operator, tell: &mut Tell<'_>) {
        let now = Timestamp::now();
        if !self.throttle.any_due(now) {
            return;
        }
        let open = match op.backend.episodes.open() {
            Ok(o) => o,
            Err(e) => return tell.failed("could not read open episodes", &e.into()),
        };
        let still_open = |entry: &FeedEntry| {
            open.iter().any(|o| {
                Some(o.agent.as_str()) == entry.agent.as_deref()
                    && o.kind == entry.event
                    && Some(o.episode) == entry.episode
            })
        };
        for entry in self.throttle.due(now, &still_open) {
            tell.did(format!(
                "notified after the throttle window: {}",
                entry.text()
            ));
            self.notifier.notify(&entry);
        }
    }

    /// The notifications that failed since the last call, as feed lines.
    pub(super) fn failures(&self) -> Vec<FeedEntry> {
        self.notifier.failures()
    }

    /// Claims the notice of `entry`: true for the one watcher (and the one
    /// path: raised here, or read from the feed) that sends it.
    fn claim(&self, op: &Operator, entry: &FeedEntry, tell: &mut Tell<'_>) -> bool {
        let who = entry.agent.clone().unwrap_or_default();
        match op.backend.printed.claim(&who, &claim_key(entry)) {
            Ok(claimed) => claimed,
            Err(e) => {
                tell.failed("could not claim a notification", &e.into());
                false
            }
        }
    }
}

/// The key a notice is claimed by: the same for every watcher and path
/// that could send it.
fn claim_key(entry: &FeedEntry) -> String {
    format!(
        "notify:{}:{}:{}:{}",
        entry.event.as_str(),
        entry.msg_id.as_deref().unwrap_or_default(),
        entry.episode.unwrap_or_default(),
        entry.time.utc_iso()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_notice_is_claimed_by_what_it_is_about_and_when_it_happened() {
        let mut a = FeedEntry::new(EventKind::Exited, Some("agent-1"), "exited");
        a.episode = Some(3);
        let mut b = a.clone();
        b.detail = "exited (its hook said so)".into();
        assert_eq!(claim_key(&a), claim_key(&b), "the detail is no part of it");
        let mut later = a.clone();
        later.episode = Some(4);
        assert_ne!(claim_key(&a), claim_key(&later));
        let message = a.clone().with_message("m-1");
        assert_ne!(claim_key(&a), claim_key(&message));
        assert!(
            claim_key(&a).starts_with("notify:exited::3:"),
            "{}",
            claim_key(&a)
        );
    }
}
