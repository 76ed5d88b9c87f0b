//! The project's watcher: one loop per project and host that does what
//! must happen while nobody types a command. Each round (about a second)
//! is a few parts, each with its own state: the rediscovery every
//! `discovery_every` (`discovery.rs`), the housekeeping (`housekeeping.rs`),
//! the look at this host's agents and the attention round over it
//! (`attention_round.rs`), usage limits (`limits_round.rs`), the notices
//! to the person with their throttle (`notices.rs`, `throttle.rs`),
//! print-to-send (`print_to_send.rs`), the tmux status lines
//! (`status_lines.rs`) and, in the background, the end once the swarm's
//! panes are gone (`ending.rs`). The parts tell what they did through
//! `outage::Tell` and return their feed lines, which the round writes; a
//! store that does not answer is waited out with backoff (`outage.rs`).
//! `swarm watch` runs it in the foreground; commands start it in the
//! background (`backend/watcher_process.rs`).

use std::collections::BTreeMap;
use std::sync::mpsc::{Receiver, RecvTimeoutError, TryRecvError};
use std::time::{Duration, Instant};

use crate::agents::discovery::DiscoverOptions;
use crate::attention::event::FeedEntry;
use crate::attention::feed::feed_store::FeedCursor;
use crate::attention::tracker::Timing;
use crate::backend::Operator;
use crate::config::ConfigStamp;
use crate::notify::NotifySettings;

use super::attention_round::{AttentionRound, Seen};
use super::discovery::Discovery;
use super::ending::Ending;
use super::housekeeping;
use super::limits_round::LimitsRound;
use super::notices::Notices;
use super::outage::{Outage, Said, Tell};
use super::print_to_send::PrintToSend;
use super::status_lines::StatusLines;
use super::throttle;

/// How often a round runs.
const ROUND: Duration = Duration::from_secs(1);

/// How a watcher runs.
#[derive(Clone, Debug)]
pub struct WatchSettings {
    /// How often agents are rediscovered and stale locks removed.
    pub discovery_every: Duration,
    /// How discovery runs.
    pub discover: DiscoverOptions,
    /// How the person is told.
    pub notify: NotifySettings,
    /// Started by a command: ends once no agent pane of this host lives.
    pub background: bool,
    /// A link to the dashboard for notifications, when one runs.
    pub link: Option<String>,
    /// Who tells the agents of a new overlap between their worktree
    /// branches (`messaging.operator`); `None` when `launch.tell_overlaps`
    /// is off (the overlaps are still recorded for the views).
    pub overlaps_from: Option<String>,
    /// The config files as they were read: the loop ends with
    /// `Ended::SettingsChanged` when one changes, so that the caller reads
    /// them again.
    pub config: Option<ConfigStamp>,
}

/// Why the loop ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ended {
    /// A stop signal (Ctrl-C, SIGTERM).
    Stopped,
    /// Background: the swarm's panes on this host are gone.
    NoAgents,
    /// A config file changed: the caller reads the settings again and
    /// goes on with a new loop (`Watcher::resume_from` keeps the place).
    SettingsChanged,
}

/// What a watcher carries over to the next one of the same process (after
/// its settings changed): where it read the feed to, and what the
/// notification throttle remembers.
#[derive(Clone, Debug, Default)]
pub struct Carried {
    feed: Option<FeedCursor>,
    throttle: throttle::Memory,
}

/// The watcher's state across rounds: its parts.
pub struct Watcher<'a> {
    op: &'a Operator,
    /// The config files as they were read.
    config: Option<ConfigStamp>,
    outage: Outage,
    /// The last lines each agent's screen showed when last read: what an
    /// `exited` line carries.
    last_lines: BTreeMap<String, Vec<String>>,
    discovery: Discovery,
    attention: AttentionRound,
    limits: LimitsRound,
    notices: Notices,
    print_to_send: PrintToSend,
    status_lines: StatusLines,
    ending: Ending,
}

impl<'a> Watcher<'a> {
    /// A watcher over `op`'s project; with what setting up the channels
    /// found worth telling (a desktop without a session bus, ...).
    pub fn new(op: &'a Operator, settings: WatchSettings) -> (Watcher<'a>, Vec<String>) {
        let timing = Timing {
            stuck_after: settings.notify.stuck_after,
            ..Timing::default()
        };
        let host = op.backend.shared_host().map(str::to_owned);
        let status_lines = StatusLines::new(settings.notify.tmux);
        let (notices, warnings) = Notices::new(settings.notify, settings.link);
        let watcher = Watcher {
            op,
            config: settings.config,
            outage: Outage::default(),
            last_lines: BTreeMap::new(),
            discovery: Discovery::new(
                settings.discovery_every,
                settings.discover,
                settings.overlaps_from,
            ),
            attention: AttentionRound::new(timing, host),
            limits: LimitsRound::default(),
            notices,
            print_to_send: PrintToSend::default(),
            status_lines,
            ending: Ending::new(settings.background),
        };
        (watcher, warnings)
    }

    /// Goes on from where an earlier watcher of this process stopped.
    pub fn resume_from(&mut self, carried: Carried) {
        self.notices.resume_from(carried.feed, carried.throttle);
    }

    /// What the next watcher of this process goes on from.
    pub fn carried(&self) -> Carried {
        let (feed, throttle) = self.notices.carried();
        Carried { feed, throttle }
    }

    /// Runs rounds until a stop signal (or, in the background, until the
    /// swarm's panes are gone).
    pub fn run(&mut self, stop: &Receiver<i32>, say: &mut dyn FnMut(Said)) -> Ended {
        loop {
            let started = Instant::now();
            let relay_wait = if self.outage.is_down() {
                Some(Duration::from_millis(1))
            } else {
                Some(ROUND)
            };
            let gone = self.round(relay_wait, say);
            if !matches!(stop.try_recv(), Err(TryRecvError::Empty)) {
                return Ended::Stopped;
            }
            if gone {
                return Ended::NoAgents;
            }
            if self.config.as_ref().is_some_and(ConfigStamp::changed) {
                return Ended::SettingsChanged;
            }
            let backoff = self.outage.end_round(say);
            let mut nap = backoff.unwrap_or_else(|| ROUND.saturating_sub(started.elapsed()));
            // On several hosts the rest of the round waits on the relay, so
            // that a delivery another host hands over goes in as it comes,
            // not at the next round.
            while backoff.is_none() && !nap.is_zero() && self.op.backend.relay.is_some() {
                self.take_handed_over(nap, say);
                if !matches!(stop.try_recv(), Err(TryRecvError::Empty)) {
                    return Ended::Stopped;
                }
                // A store that failed just now is tried again next round.
                if self.outage.failed_this_round() {
                    break;
                }
                nap = ROUND.saturating_sub(started.elapsed());
            }
            if !matches!(stop.recv_timeout(nap), Err(RecvTimeoutError::Timeout)) {
                return Ended::Stopped;
            }
        }
    }

    /// One round, a line per part. Returns true when a background watcher
    /// should end.
    pub(crate) fn round(
        &mut self,
        relay_wait: Option<Duration>,
        say: &mut dyn FnMut(Said),
    ) -> bool {
        let op = self.op;
        let tell = &mut Tell::new(say);
        let mut feed = self.discovery.round(op, &mut self.last_lines, tell);
        feed.extend(housekeeping::round(op, relay_wait, tell));
        feed.extend(housekeeping::followed(op, tell));
        let printing = self.print_to_send.printing(op.messaging.print_to_send);
        let seen = self
            .attention
            .look(op, printing, &mut self.last_lines, tell);
        let gone = seen.is_some_and(|seen| self.act_on(seen, &mut feed, tell));
        self.notices.send_deferred(op, tell);
        self.notices.notify_from_feed(op, tell);
        feed.extend(self.notices.failures());
        write_feed(op, &feed, tell);
        self.outage.saw(tell.unreachable());
        gone
    }

    /// The parts that act on what a look saw. Returns true when a
    /// background watcher should end.
    fn act_on(&mut self, mut seen: Seen, feed: &mut Vec<FeedEntry>, tell: &mut Tell<'_>) -> bool {
        let op = self.op;
        self.limits.prepare(op, &mut seen.looks, &seen.local);
        let raised = self.attention.raise(op, seen.looks, &self.last_lines, tell);
        let raised = self.limits.settle(op, &seen.registry, raised, tell);
        self.notices.raised(op, &raised, tell);
        feed.extend(raised);
        self.print_to_send
            .round(op, &seen.registry, &seen.printouts, tell);
        self.status_lines.round(op, &seen.panes, &seen.held, tell);
        self.ending.after_look(seen.alive)
    }

    /// Takes and types in what other hosts hand to this one, waiting up to
    /// `wait` for the first.
    fn take_handed_over(&mut self, wait: Duration, say: &mut dyn FnMut(Said)) {
        let tell = &mut Tell::new(say);
        let feed = housekeeping::handed_over(self.op, wait, tell);
        write_feed(self.op, &feed, tell);
        self.outage.saw(tell.unreachable());
    }
}

/// Appends a round's lines to the activity feed; a store that does not
/// answer is the outage's to tell.
fn write_feed(op: &Operator, feed: &[FeedEntry], tell: &mut Tell<'_>) {
    if !feed.is_empty()
        && let Err(e) = op.backend.feed.append(feed)
    {
        tell.failed("could not write the activity feed", &e.into());
    }
}
