//! The watcher as the one notifier of what commands and hooks wrote to
//! the feed for the person: read from where it last read, each entry
//! claimed once across every watcher, and at a start the entries written
//! while none ran, within `catch_up`'s bounds.

use std::time::Duration;

use crate::attention::event::{EventKind, FeedEntry, Source};
use crate::domain::Timestamp;
use crate::watcher::catch_up;

use super::{Said, Watcher};

impl Watcher<'_> {
    /// Notifies what commands wrote to the feed for the person (a message
    /// to them, a budget crossed): the watcher is the one notifier. Of
    /// several watchers (one per host), the one that claims an entry first
    /// sends it. A watcher that starts catches up on what was written
    /// while none ran, within `catch_up`'s bounds, each late one marked
    /// with its age.
    pub(super) fn notify_from_feed(&mut self, say: &mut dyn FnMut(Said)) {
        let feed = &*self.op.backend.feed;
        let now = Timestamp::now();
        let starting = self.feed_cursor.is_none();
        let read = match &self.feed_cursor {
            Some(cursor) => feed.read_after(cursor, Duration::ZERO),
            None => feed.read_all(),
        };
        let read = match read {
            Ok(r) => r,
            Err(e) => {
                self.outage
                    .failed(say, "could not read the activity feed", &e.into());
                return;
            }
        };
        self.feed_cursor = Some(read.cursor);
        let since = if starting { catch_up::since(now) } else { None };
        let mut due: Vec<FeedEntry> = read
            .entries
            .into_iter()
            .filter(|entry| {
                // What an agent's hook raised is notified from the feed
                // too: the hook run is a short process, the watcher the
                // notifier.
                (entry.source == Some(Source::Hook)
                    || matches!(
                        entry.event,
                        EventKind::Message | EventKind::Budget | EventKind::Exited
                    ))
                    && self.settings.notify.notifies(entry.event)
                    && since.is_none_or(|s| entry.time >= s)
            })
            .collect();
        if starting {
            // The newest first, each claimed, until the bound: what an
            // earlier watcher sent is claimed already and costs nothing.
            let mut claimed = Vec::new();
            let mut left = 0;
            while let Some(entry) = due.pop() {
                if claimed.len() >= catch_up::MOST {
                    left += 1;
                } else if self.claim_notice(&entry, say) {
                    claimed.push(catch_up::marked(entry, now));
                }
            }
            if left > 0 {
                say(Said::Warning(format!(
                    "{left} older notifications written while no watcher ran were not sent \
                     (at most {} at a start): see `swarm feed`",
                    catch_up::MOST
                )));
            }
            claimed.reverse();
            for entry in claimed {
                self.send_from_feed(&entry, say);
            }
            return;
        }
        for entry in due {
            if self.claim_notice(&entry, say) {
                self.send_from_feed(&entry, say);
            }
        }
    }

    /// Sends a claimed entry read from the feed: a hook's through the
    /// throttle, a command's at once.
    fn send_from_feed(&mut self, entry: &FeedEntry, say: &mut dyn FnMut(Said)) {
        if entry.source == Some(Source::Hook) {
            say(Said::Did(entry.text()));
            self.notify_or_defer(entry);
        } else {
            self.notifier.notify(entry);
        }
    }

    /// Claims the notice of `entry`: true for the one watcher (and the one
    /// path: raised here, or read from the feed) that sends it.
    pub(super) fn claim_notice(&mut self, entry: &FeedEntry, say: &mut dyn FnMut(Said)) -> bool {
        let who = entry.agent.clone().unwrap_or_default();
        let key = format!(
            "notify:{}:{}:{}:{}",
            entry.event.as_str(),
            entry.msg_id.as_deref().unwrap_or_default(),
            entry.episode.unwrap_or_default(),
            entry.time.utc_iso()
        );
        match self.op.backend.printed.claim(&who, &key) {
            Ok(claimed) => claimed,
            Err(e) => {
                self.outage
                    .failed(say, "could not claim a notification", &e.into());
                false
            }
        }
    }
}
