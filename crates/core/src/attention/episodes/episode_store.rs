//! `EpisodeStore`: the shared record of which attention conditions are
//! open for which agent, so that an event is raised exactly once per
//! episode however many watchers (on however many hosts) look at the same
//! pane. Each watcher reports what it saw and when it looked; the store
//! accepts a change only when it differs from the record and was seen
//! after the record last changed, so a watcher that looked earlier can
//! neither raise an episode twice nor reopen one that another closed.

use serde::{Deserialize, Serialize};

use crate::attention::event::EventKind;
use crate::domain::Timestamp;
use crate::store::StoreError;

/// One agent's condition, as every store keeps it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct EpisodeRecord {
    /// Whether the condition is open now.
    pub open: bool,
    /// When the look that last changed it was taken.
    #[serde(with = "crate::domain::utc_iso")]
    pub changed: Timestamp,
    /// Episodes opened so far (the current one's number while open).
    pub episode: u64,
    /// When the current (or last) episode opened.
    #[serde(default, with = "crate::domain::utc_iso::option")]
    pub opened: Option<Timestamp>,
    /// What the person was told when it opened.
    #[serde(default)]
    pub detail: String,
    /// What tells this episode's condition from another of the same kind
    /// (a dialog's identity; empty for the others): an open record asked
    /// to open with another key is a new episode at once, and a close
    /// that names a key closes only the episode of that key. A key that
    /// starts with `HOOK_KEY` was given by an agent's hook, which cannot
    /// know how the screen will draw the dialog: the screen's first key
    /// for the open episode takes its place, so that the screen's look
    /// at the same dialog raises nothing more.
    #[serde(default)]
    pub key: String,
}

/// How a hook's episode key starts (see `EpisodeRecord::key`).
pub(crate) const HOOK_KEY: &str = "hook:";

/// What a reported change did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Transition {
    /// The caller opened episode number `episode`: it raises the event.
    Opened {
        /// The episode's number.
        episode: u64,
    },
    /// The caller closed the open episode.
    Closed,
    /// Nothing changed (another watcher got there first, or saw later).
    Unchanged,
}

impl EpisodeRecord {
    /// Applies a change seen at `seen`; the rule every store keeps under
    /// its own exclusion. The record returned is what to store (it may
    /// come with `Unchanged`: a hook's key replaced by the screen's).
    pub fn apply(
        record: Option<&EpisodeRecord>,
        open: bool,
        seen: Timestamp,
        detail: &str,
        key: &str,
    ) -> (Transition, Option<EpisodeRecord>) {
        let (was_open, changed, episode, opened) = match record {
            Some(r) => (r.open, Some(r.changed), r.episode, r.opened),
            None => (false, None, 0, None),
        };
        if changed.is_some_and(|c| seen <= c) {
            return (Transition::Unchanged, None);
        }
        let same_key = record.is_some_and(|r| r.key == key);
        // The screen's look at an episode a hook opened: the same episode,
        // now known by the screen's key.
        if was_open
            && open
            && !key.is_empty()
            && !key.starts_with(HOOK_KEY)
            && let Some(r) = record
            && r.key.starts_with(HOOK_KEY)
        {
            let adopted = EpisodeRecord {
                key: key.to_owned(),
                ..r.clone()
            };
            return (Transition::Unchanged, Some(adopted));
        }
        let unchanged = match (was_open, open) {
            // Open, and open again: the same episode unless it is another
            // condition of the kind (another dialog).
            (true, true) => same_key || key.is_empty(),
            // A close that names a key closes only that episode.
            (true, false) => !key.is_empty() && !same_key,
            (false, false) => true,
            (false, true) => false,
        };
        if unchanged {
            return (Transition::Unchanged, None);
        }
        let episode = if open { episode + 1 } else { episode };
        let next = EpisodeRecord {
            open,
            changed: seen,
            episode,
            opened: if open { Some(seen) } else { opened },
            detail: if open {
                detail.to_owned()
            } else {
                record.map(|r| r.detail.clone()).unwrap_or_default()
            },
            key: if open {
                key.to_owned()
            } else {
                record.map(|r| r.key.clone()).unwrap_or_default()
            },
        };
        let t = if open {
            Transition::Opened { episode }
        } else {
            Transition::Closed
        };
        (t, Some(next))
    }
}

/// An open condition, for the status line, the monitor and the dashboard.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpenEpisode {
    /// The agent.
    pub agent: String,
    /// The condition.
    pub kind: EventKind,
    /// Its episode number.
    pub episode: u64,
    /// Since when.
    pub since: Timestamp,
    /// What the person was told.
    pub detail: String,
}

/// Where the open episodes are kept.
pub trait EpisodeStore: Send + Sync {
    /// Reports that `agent`'s condition `kind` was seen open (or closed)
    /// by a look taken at `seen`. Of any number of callers reporting the
    /// same change, at most one gets `Opened` (or `Closed`); a report
    /// seen no later than the record's last change changes nothing.
    fn transition(
        &self,
        agent: &str,
        kind: EventKind,
        open: bool,
        seen: Timestamp,
        detail: &str,
        key: &str,
    ) -> Result<Transition, StoreError>;

    /// Every open condition, oldest first.
    fn open(&self) -> Result<Vec<OpenEpisode>, StoreError>;

    /// Drops the records of agents that left the swarm.
    fn forget(&self, agents: &[String]) -> Result<(), StoreError>;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: f64) -> Timestamp {
        Timestamp::from_unix_seconds(1_800_000_000.0 + s).expect("test value")
    }

    #[test]
    fn open_then_close_then_a_new_episode() {
        let (t, r) = EpisodeRecord::apply(None, true, at(1.0), "q?", "");
        assert_eq!(t, Transition::Opened { episode: 1 });
        let r = r.expect("test value");
        assert_eq!(
            EpisodeRecord::apply(Some(&r), true, at(2.0), "q?", "").0,
            Transition::Unchanged
        );
        let (t, r) = EpisodeRecord::apply(Some(&r), false, at(3.0), "", "");
        assert_eq!(t, Transition::Closed);
        let r = r.expect("test value");
        assert_eq!(r.detail, "q?");
        assert_eq!(
            EpisodeRecord::apply(Some(&r), true, at(4.0), "again?", "").0,
            Transition::Opened { episode: 2 }
        );
    }

    #[test]
    fn a_late_report_cannot_reopen_what_was_closed() {
        let (_, r) = EpisodeRecord::apply(None, true, at(1.0), "q?", "");
        let (_, r) = EpisodeRecord::apply(r.as_ref(), false, at(5.0), "", "");
        // A watcher that looked at 4.0 still saw the dialog.
        assert_eq!(
            EpisodeRecord::apply(r.as_ref(), true, at(4.0), "q?", "").0,
            Transition::Unchanged
        );
        assert_eq!(
            EpisodeRecord::apply(r.as_ref(), true, at(5.0), "q?", "").0,
            Transition::Unchanged
        );
    }

    #[test]
    fn another_dialog_is_a_new_episode_and_an_old_close_does_not_end_it() {
        let (_, r) = EpisodeRecord::apply(None, true, at(1.0), "q?", "first");
        let (t, r) = EpisodeRecord::apply(r.as_ref(), true, at(2.0), "q?", "second");
        assert!(matches!(t, Transition::Opened { episode: 2, .. }), "{t:?}");
        // A watcher that saw the first one close reports it late.
        assert_eq!(
            EpisodeRecord::apply(r.as_ref(), false, at(3.0), "", "first").0,
            Transition::Unchanged
        );
        assert_eq!(
            EpisodeRecord::apply(r.as_ref(), true, at(3.0), "q?", "second").0,
            Transition::Unchanged
        );
        assert_eq!(
            EpisodeRecord::apply(r.as_ref(), false, at(4.0), "", "").0,
            Transition::Closed
        );
    }

    #[test]
    fn the_screen_adopts_an_episode_a_hook_opened() {
        let (t, r) = EpisodeRecord::apply(None, true, at(1.0), "Bash: ls", "hook:1");
        assert_eq!(t, Transition::Opened { episode: 1 });
        // The screen draws the dialog a moment later: no second episode,
        // and the record now goes by the screen's key.
        let (t, r) = EpisodeRecord::apply(r.as_ref(), true, at(1.3), "q?", "screen-dialog");
        assert_eq!(t, Transition::Unchanged);
        let r = r.expect("the key is adopted");
        assert_eq!((r.key.as_str(), r.episode), ("screen-dialog", 1));
        assert_eq!(r.detail, "Bash: ls", "what the person was told stays");
        // The screen sees it close.
        let (t, r) = EpisodeRecord::apply(Some(&r), false, at(3.0), "", "screen-dialog");
        assert_eq!(t, Transition::Closed);
        // The next dialog's hook opens the next episode, even while the
        // record still says the old one is open.
        let r = r.expect("test value");
        let (t, _) = EpisodeRecord::apply(Some(&r), true, at(4.0), "again", "hook:2");
        assert_eq!(t, Transition::Opened { episode: 2 });
        let (_, open) = EpisodeRecord::apply(None, true, at(1.0), "q?", "screen-dialog");
        let (t, _) = EpisodeRecord::apply(open.as_ref(), true, at(2.0), "next", "hook:3");
        assert_eq!(t, Transition::Opened { episode: 2 });
    }

    #[test]
    fn closing_what_was_never_open_changes_nothing() {
        assert_eq!(
            EpisodeRecord::apply(None, false, at(1.0), "", "").0,
            Transition::Unchanged
        );
    }
}
