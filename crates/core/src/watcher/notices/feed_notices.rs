//! The watcher as the one notifier of what commands and hooks wrote to
//! the feed for the person: read from where it last read, each entry
//! claimed once across every watcher, and at a start the entries written
//! while none ran, within `catch_up`'s bounds.

use std::time::Duration;

use crate::attention::event::{EventKind, FeedEntry, Source};
use crate::backend::Operator;
use crate::domain::Timestamp;
use crate::notify::NotifySettings;
use crate::watcher::catch_up;
use crate::watcher::outage::Tell;

use super::Notices;

impl Notices {
    /// Notifies what commands wrote to the feed for the person (a message
    /// to them, a budget crossed): the watcher is the one notifier. Of
    /// several watchers (one per host), the one that claims an entry first
    /// sends it. A watcher that starts catches up on what was written
    /// while none ran, within `catch_up`'s bounds, each late one marked
    /// with its age.
    pub(in crate::watcher) fn notify_from_feed(&mut self, op: &Operator, tell: &mut Tell<'_>) {
        let feed = &*op.backend.feed;
        let now = Timestamp::now();
        let starting = self.feed_cursor.is_none();
        let read = match &self.feed_cursor {
            Some(cursor) => feed.read_after(cursor, Duration::ZERO),
            None => feed.read_all(),
        };
        let read = match read {
            Ok(r) => r,
            Err(e) => return tell.failed("could not read the activity feed", &e.into()),
        };
        self.feed_cursor = Some(read.cursor);
        let since = if starting { catch_up::since(now) } else { None };
        let mut due: Vec<FeedEntry> = read
            .entries
            .into_iter()
            .filter(|entry| wanted(entry, &self.settings, since))
            .collect();
        if starting {
            // The newest first, each claimed, until the bound: what an
            // earlier watcher sent is claimed already and costs nothing.
            let mut claimed = Vec::new();
            let mut left = 0;
            while let Some(entry) = due.pop() {
                if claimed.len() >= catch_up::MOST {
                    left += 1;
                } else if self.claim(op, &entry, tell) {
                    claimed.push(catch_up::marked(entry, now));
                }
            }
            if left > 0 {
                tell.warn(format!(
                    "{left} older notifications written while no watcher ran were not sent \
                     (at most {} at a start): see `swarm feed`",
                    catch_up::MOST
                ));
            }
            claimed.reverse();
            for entry in claimed {
                self.send_from_feed(&entry, tell);
            }
            return;
        }
        for entry in due {
            if self.claim(op, &entry, tell) {
                self.send_from_feed(&entry, tell);
            }
        }
    }

    /// Sends a claimed entry read from the feed: a hook's through the
    /// throttle, a command's at once.
    fn send_from_feed(&mut self, entry: &FeedEntry, tell: &mut Tell<'_>) {
        if entry.source == Some(Source::Hook) {
            tell.did(entry.text());
            self.notify_or_defer(entry);
        } else {
            self.notifier.notify(entry);
        }
    }
}

/// Whether `entry`, read from the feed, is the watcher's to notify: what
/// an agent's hook raised (the hook run is a short process, the watcher
/// the notifier), and the kinds commands write for the person, as
/// `settings` say, and not written before `since`.
fn wanted(entry: &FeedEntry, settings: &NotifySettings, since: Option<Timestamp>) -> bool {
    (entry.source == Some(Source::Hook)
        || matches!(
            entry.event,
            EventKind::Message | EventKind::Budget | EventKind::Exited
        ))
        && settings.notifies(entry.event)
        && since.is_none_or(|s| entry.time >= s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hooks_lines_and_the_commands_lines_for_the_person_are_notified() {
        let settings = NotifySettings::from_config(&crate::config::Config::default());
        let line = |kind: EventKind, hook: bool| {
            let mut e = FeedEntry::new(kind, Some("agent-1"), "x");
            e.source = hook.then_some(Source::Hook);
            e
        };
        for kind in [EventKind::Message, EventKind::Exited] {
            assert!(settings.notifies(kind), "{kind:?} is notified by default");
            assert!(wanted(&line(kind, false), &settings, None), "{kind:?}");
        }
        assert!(settings.notifies(EventKind::NeedsInput));
        assert!(wanted(&line(EventKind::NeedsInput, true), &settings, None));
        assert!(!wanted(
            &line(EventKind::NeedsInput, false),
            &settings,
            None
        ));
        let old = line(EventKind::Message, false);
        let after = Timestamp::from_unix_seconds(old.time.unix_seconds() + 1.0);
        assert!(!wanted(&old, &settings, after));
        let mut quiet = settings.clone();
        quiet.events.retain(|k| *k != EventKind::Message);
        assert!(!wanted(&old, &quiet, None));
    }
}
