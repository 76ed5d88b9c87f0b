//! What a watcher that starts notifies of what commands wrote to the feed
//! while none ran: the entries of the last `WINDOW`, at most `MOST` of
//! them (the newest), each older than `FRESH` marked with its age so that
//! a person reads "from 5m ago" rather than "now" (docs/RELIABILITY.md).

use std::time::Duration;

use crate::acks::format_age;
use crate::attention::event::FeedEntry;
use crate::domain::Timestamp;

/// How far back a watcher that starts looks: what was written earlier is
/// left to `swarm feed`.
pub(super) const WINDOW: Duration = Duration::from_secs(60 * 60);

/// At most this many notifications caught up at a start, the newest: a
/// person back after a long gap gets the latest, not a flood.
pub(super) const MOST: usize = 20;

/// An entry at most this old is sent as it is: the command that started
/// the watcher has just written it.
const FRESH: Duration = Duration::from_secs(60);

/// The earliest time a starting watcher notifies, at `now` (`None` only
/// past the calendar's ends).
pub(super) fn since(now: Timestamp) -> Option<Timestamp> {
    Timestamp::from_unix_seconds(now.unix_seconds() - WINDOW.as_secs_f64())
}

/// `entry` as it is notified late, at `now`: its detail starts with its
/// age when it is older than `FRESH` (its time, and so its claim, stay).
pub(super) fn marked(mut entry: FeedEntry, now: Timestamp) -> FeedEntry {
    let age = now.unix_seconds() - entry.time.unix_seconds();
    if age > FRESH.as_secs_f64() {
        let mark = format!("[from {} ago]", format_age(age));
        entry.detail = if entry.detail.is_empty() {
            mark
        } else {
            format!("{mark} {}", entry.detail)
        };
    }
    entry
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::attention::event::EventKind;

    #[test]
    fn an_old_entry_says_its_age_and_a_fresh_one_is_left_alone() {
        let now = Timestamp::now();
        let at = |secs: f64| {
            let mut e = FeedEntry::new(EventKind::Message, Some("agent-0"), "done");
            e.time = Timestamp::from_unix_seconds(now.unix_seconds() - secs).expect("time");
            e
        };
        assert_eq!(marked(at(75.0), now).detail, "[from 1m15s ago] done");
        assert_eq!(marked(at(5.0), now).detail, "done");
        let mut empty = at(7300.0);
        empty.detail.clear();
        assert_eq!(marked(empty, now).detail, "[from 2h01m ago]");
        assert!(since(now).expect("since") < at(3500.0).time);
        assert!(since(now).expect("since") > at(3700.0).time);
    }
}
