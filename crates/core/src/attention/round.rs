//! One watcher's attention work across rounds: its looks go through the
//! tracker, each opened or closed condition is reported to the shared
//! `EpisodeStore`, and the conditions this watcher was first to open
//! become feed entries, for the watcher to notify (it applies the
//! throttle: a flapping pane must not flood a phone).

use std::collections::BTreeSet;

use crate::attention::episodes::episode_store::{EpisodeStore, Transition};
use crate::attention::event::{FeedEntry, Source};
use crate::attention::tracker::{Look, Timing, Tracker};
use crate::store::StoreError;

/// An event this watcher raised.
#[derive(Clone, Debug)]
pub(crate) struct Raised {
    /// Its feed line.
    pub entry: FeedEntry,
}

/// What one round did.
#[derive(Debug, Default)]
pub(crate) struct RoundReport {
    /// Events raised, in order.
    pub raised: Vec<Raised>,
    /// Whether any episode opened or closed (the status line is then
    /// drawn again).
    pub changed: bool,
    /// Problems worth telling (the store did not answer, ...).
    pub errors: Vec<StoreError>,
}

/// Attention across rounds, for one watcher.
#[derive(Debug)]
pub(crate) struct Attention {
    tracker: Tracker,
    host: Option<String>,
}

impl Attention {
    /// A watcher's attention: `timing` judges turns and stuck screens,
    /// `host` names this host on a shared store.
    pub(crate) fn new(timing: Timing, host: Option<String>) -> Attention {
        Attention {
            tracker: Tracker::new(timing),
            host,
        }
    }

    /// Takes one round of looks (every agent of this host, so that those
    /// missing are forgotten).
    pub(crate) fn round(&mut self, looks: Vec<Look>, episodes: &dyn EpisodeStore) -> RoundReport {
        let mut report = RoundReport::default();
        let present: BTreeSet<String> = looks.iter().map(|l| l.agent.clone()).collect();
        self.tracker.retain(&present);
        for look in looks {
            for change in self.tracker.look(look) {
                let t = match episodes.transition(
                    &change.agent,
                    change.kind,
                    change.open,
                    change.at,
                    &change.detail,
                    &change.key,
                ) {
                    Ok(t) => t,
                    Err(e) => {
                        report.errors.push(e);
                        continue;
                    }
                };
                match t {
                    Transition::Unchanged => {}
                    Transition::Closed => report.changed = true,
                    Transition::Opened { episode, .. } => {
                        report.changed = true;
                        let mut entry =
                            FeedEntry::new(change.kind, Some(&change.agent), change.detail.clone());
                        entry.time = change.at;
                        entry.episode = Some(episode);
                        entry.host = self.host.clone();
                        entry.source = Some(Source::Screen);
                        if let Some(d) = &change.dialog {
                            entry.options = d.options.clone();
                            entry.context = d.context.clone();
                        }
                        report.raised.push(Raised { entry });
                    }
                }
            }
        }
        report
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agents::screen::ScreenState;
    use crate::attention::FileEpisodes;
    use crate::attention::event::EventKind;
    use crate::attention::tracker::Presence;
    use crate::domain::Timestamp;
    use crate::store::Paths;

    fn look(secs: f64, s: ScreenState) -> Look {
        Look {
            agent: "agent-1".into(),
            at: Timestamp::from_unix_seconds(1_800_000_000.0 + secs).expect("test value"),
            presence: Presence::Agent(Some(s)),
            quiet: Some(1),
            dialog: None,
            waiting: false,
            limit: None,
            profile: None,
            limit_ended: false,
            prompted: None,
        }
    }

    #[test]
    fn two_watchers_raise_one_event_per_episode() {
        let tmp = tempfile::tempdir().expect("test value");
        let store = FileEpisodes::new(&Paths::new(tmp.path()));
        let mut a = Attention::new(Timing::default(), None);
        let mut b = Attention::new(Timing::default(), None);
        let mut raised = Vec::new();
        for (i, s) in [
            ScreenState::Idle,
            ScreenState::Dialog,
            ScreenState::Dialog,
            ScreenState::Busy,
            ScreenState::Dialog,
        ]
        .into_iter()
        .enumerate()
        {
            let t = i as f64 * 10.0;
            // Each looks a moment apart, in either order.
            let (first, second) = if i % 2 == 0 {
                (&mut a, &mut b)
            } else {
                (&mut b, &mut a)
            };
            raised.extend(first.round(vec![look(t, s)], &store).raised);
            raised.extend(second.round(vec![look(t + 0.1, s)], &store).raised);
        }
        let kinds: Vec<(EventKind, Option<u64>)> = raised
            .iter()
            .map(|r| (r.entry.event, r.entry.episode))
            .collect();
        assert_eq!(
            kinds,
            [
                (EventKind::NeedsInput, Some(1)),
                (EventKind::NeedsInput, Some(2)),
            ]
        );
    }
}
