//! The project's watcher: one loop per project and host that does what
//! must happen while nobody types a command. Each round (about a second)
//! it runs the housekeeping (due ACK retries and escalations, held
//! messages whose pane is safe again, deliveries other hosts handed to
//! this one), looks at this host's agents for attention (a dialog, a
//! finished turn, an exit, a stuck screen), records what happened in the
//! activity feed, sends what agents printed to send, notifies the person,
//! and keeps swarm's notice in each
//! tmux session's status line; every `discovery_every` it rediscovers
//! the agents, removes stale locks, with a `[budget]` reads what the
//! agents spent (docs/USAGE.md) and, when agents work in worktrees of
//! their own, looks for files two of them changed (told once, and shown
//! by the monitor and the dashboard). `swarm watch` runs it in the
//! foreground; commands start it in the background (`lifecycle.rs`),
//! where it ends by itself once the swarm's panes are gone.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::mpsc::{Receiver, RecvTimeoutError, TryRecvError};
use std::time::{Duration, Instant};

use crate::agents::discovery::{self, DiscoverOptions};
use crate::agents::pane_state::Printing;
use crate::agents::registry::Registry;
use crate::agents::seen_states::RoundWriter;
use crate::attention::event::{EventKind, FeedEntry};
use crate::attention::feed::feed_store::FeedCursor;
use crate::attention::hook_sightings::HookSightings;
use crate::attention::looks;
use crate::attention::notice::HeldFor;
use crate::attention::round::{Attention, Raised};
use crate::attention::status::session_notices;
use crate::attention::tracker::{Presence, Timing};
use crate::backend::{Chores, Operator, Share};
use crate::config::ConfigStamp;
use crate::domain::Timestamp;
use crate::error::Error;
use crate::messaging;
use crate::notify::{Notifier, NotifySettings};
use crate::support::sanitize;
use crate::tmux::SessionNotice;
use crate::watcher::limits_round;
use crate::watcher::print_to_send::{HISTORY_ROWS, send_printed};
use crate::worktrees;

mod feed_notices;

/// How often a round runs.
const ROUND: Duration = Duration::from_secs(1);

/// How long the background watcher stays once no agent pane of this host
/// lives (a launch in progress has none for a moment).
const GRACE: Duration = Duration::from_secs(10);

/// The longest wait before trying an unreachable store again.
const MOST_BACKOFF: Duration = Duration::from_secs(16);

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

/// What the watcher says, for the terminal or its log.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Said {
    /// Something it did.
    Did(String),
    /// Something that went wrong (it goes on).
    Warning(String),
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
/// its settings changed): where it read the feed to, and the notices it
/// deferred.
#[derive(Clone, Debug, Default)]
pub struct Carried {
    feed: Option<FeedCursor>,
    deferred: Vec<Deferred>,
    last_notice: BTreeMap<(String, EventKind), Timestamp>,
}

/// A notification the throttle held back: sent when the window ends if
/// its episode is still open.
#[derive(Clone, Debug)]
struct Deferred {
    entry: FeedEntry,
    not_before: Timestamp,
}

/// A shared store that stopped answering: said once, tried again with
/// backoff, and said again when it answers.
#[derive(Debug, Default)]
struct Outage {
    /// Set while the store does not answer: the next wait.
    backoff: Option<Duration>,
    /// Whether a step of this round found it unreachable.
    this_round: Option<String>,
}

impl Outage {
    /// Sorts a step's error: the store not answering is the outage's to
    /// tell (once); anything else is a warning about `what`.
    fn failed(&mut self, say: &mut dyn FnMut(Said), what: &str, e: &Error) {
        if e.is_store_outage() {
            self.this_round.get_or_insert_with(|| e.to_string());
        } else {
            say(Said::Warning(format!("{what}: {e}")));
        }
    }

    /// Ends a round: the wait before the next when the store is down.
    fn end_round(&mut self, say: &mut dyn FnMut(Said)) -> Option<Duration> {
        match (self.this_round.take(), self.backoff) {
            (Some(why), None) => {
                say(Said::Warning(format!(
                    "{why}; still watching, trying again with backoff (up to every {}s)",
                    MOST_BACKOFF.as_secs()
                )));
                self.backoff = Some(Duration::from_secs(1));
            }
            (Some(_), Some(b)) => self.backoff = Some((b * 2).min(MOST_BACKOFF)),
            (None, Some(_)) => {
                say(Said::Did("the store answers again".into()));
                self.backoff = None;
            }
            (None, None) => {}
        }
        self.backoff
    }
}

/// The watcher's state across rounds.
pub struct Watcher<'a> {
    op: &'a Operator,
    settings: WatchSettings,
    attention: Attention,
    notifier: Notifier,
    next_discovery: Instant,
    /// The notice last shown in each session.
    shown: BTreeMap<String, SessionNotice>,
    /// Sessions whose status formats have swarm's area.
    areas: BTreeSet<String>,
    /// Since when no agent pane of this host lives.
    empty_since: Option<Instant>,
    outage: Outage,
    /// Agents whose printed lines had no prompt in sight: their history is
    /// read in the next round (print-to-send).
    need_history: BTreeSet<String>,
    /// How far the feed was read for what commands wrote to notify
    /// (`None` until the first read).
    feed_cursor: Option<FeedCursor>,
    /// Notifications the throttle held back.
    deferred: Vec<Deferred>,
    /// When each agent's kind of event was last notified: the throttle
    /// counts from there.
    last_notice: BTreeMap<(String, EventKind), Timestamp>,
    /// The last lines each agent's screen showed when last read: what an
    /// `exited` event carries.
    last_lines: BTreeMap<String, Vec<String>>,
    /// Writes each round's pane states for `swarm agents`.
    states: RoundWriter,
    /// What the usage limits' part remembers between rounds.
    limits: limits_round::Memory,
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
        let (notifier, warnings) = Notifier::new(&settings.notify, settings.link.clone());
        let attention = Attention::new(timing, host);
        (
            Watcher {
                op,
                settings,
                attention,
                notifier,
                next_discovery: Instant::now(),
                shown: BTreeMap::new(),
                areas: BTreeSet::new(),
                empty_since: None,
                outage: Outage::default(),
                need_history: BTreeSet::new(),
                feed_cursor: None,
                deferred: Vec::new(),
                last_notice: BTreeMap::new(),
                last_lines: BTreeMap::new(),
                states: RoundWriter::default(),
                limits: limits_round::Memory::default(),
            },
            warnings,
        )
    }

    /// Goes on from where an earlier watcher of this process stopped.
    pub fn resume_from(&mut self, carried: Carried) {
        self.feed_cursor = carried.feed;
        self.deferred = carried.deferred;
        self.last_notice = carried.last_notice;
    }

    /// What the next watcher of this process goes on from.
    pub fn carried(&self) -> Carried {
        Carried {
            feed: self.feed_cursor.clone(),
            deferred: self.deferred.clone(),
            last_notice: self.last_notice.clone(),
        }
    }

    /// Runs rounds until a stop signal (or, in the background, until the
    /// swarm's panes are gone).
    pub fn run(&mut self, stop: &Receiver<i32>, say: &mut dyn FnMut(Said)) -> Ended {
        loop {
            let started = Instant::now();
            let relay_wait = if self.outage.backoff.is_some() {
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
            if self
                .settings
                .config
                .as_ref()
                .is_some_and(ConfigStamp::changed)
            {
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
                if self.outage.this_round.is_some() {
                    break;
                }
                nap = ROUND.saturating_sub(started.elapsed());
            }
            if !matches!(stop.recv_timeout(nap), Err(RecvTimeoutError::Timeout)) {
                return Ended::Stopped;
            }
        }
    }

    /// One round. Returns true when a background watcher should end.
    pub(crate) fn round(
        &mut self,
        relay_wait: Option<Duration>,
        say: &mut dyn FnMut(Said),
    ) -> bool {
        let mut feed: Vec<FeedEntry> = Vec::new();
        if Instant::now() >= self.next_discovery {
            self.discover(&mut feed, say);
            self.next_discovery = Instant::now() + self.settings.discovery_every;
        }
        let chores = Chores {
            ack_retries: true,
            held: true,
            relay_wait,
            share: Share::All,
        };
        self.housekeeping(chores, &mut feed, say);
        let op = self.op;
        for w in crate::native::follow::follow(&op.paths, &*op.backend.log, &*op.backend.feed) {
            say(Said::Warning(w));
        }
        let gone = self.look(&mut feed, say);
        self.send_deferred(say);
        self.notify_from_feed(say);
        for f in self.notifier.failures() {
            feed.push(f);
        }
        self.write_feed(&feed, say);
        gone
    }

    /// Appends a round's lines to the activity feed; a store that does not
    /// answer is the outage's to tell.
    fn write_feed(&mut self, feed: &[FeedEntry], say: &mut dyn FnMut(Said)) {
        if !feed.is_empty()
            && let Err(e) = self.op.backend.feed.append(feed)
        {
            self.outage
                .failed(say, "could not write the activity feed", &e.into());
        }
    }

    /// Takes and types in what other hosts hand to this one, waiting up to
    /// `wait` for the first.
    fn take_handed_over(&mut self, wait: Duration, say: &mut dyn FnMut(Said)) {
        let mut feed = Vec::new();
        let chores = Chores {
            relay_wait: Some(wait),
            ..Chores::default()
        };
        self.housekeeping(chores, &mut feed, say);
        self.write_feed(&feed, say);
    }

    /// Rediscovers the agents and removes stale locks.
    fn discover(&mut self, feed: &mut Vec<FeedEntry>, say: &mut dyn FnMut(Said)) {
        let op = self.op;
        match discovery::refresh(
            &op.tmux,
            op.backend.registry.as_ref(),
            &op.paths,
            &op.matcher,
            &self.settings.discover,
        ) {
            Ok(found) => {
                for w in &found.warnings {
                    say(Said::Warning(w.clone()));
                }
                for w in op.record_roster_with(&found, false, &self.last_lines) {
                    say(Said::Warning(w));
                }
                for id in &found.dropped {
                    self.last_lines.remove(id);
                }
                self.overlaps(&found.registry, say);
                if !found.added.is_empty()
                    || !found.dropped.is_empty()
                    || !found.went_stale.is_empty()
                {
                    say(Said::Did(format!(
                        "agents: {} active{}{}{}",
                        found.registry.active().count(),
                        list(" joined", &found.added),
                        list(" stale", &found.went_stale),
                        list(" left", &found.dropped)
                    )));
                }
                // Budgets are judged here too, so that a crossing is raised
                // while nobody sends.
                if op.usage.budget.any() {
                    match op.budget_round(&found.registry) {
                        Ok((_, warnings)) => {
                            for w in warnings {
                                say(Said::Warning(w));
                            }
                        }
                        Err(e) => self
                            .outage
                            .failed(say, "could not read the agents' usage", &e),
                    }
                }
            }
            Err(e) => self.outage.failed(say, "discovery failed", &e),
        }
        match op.backend.locks.clean(Some("swarm watch")) {
            Ok(report) => {
                for held in &report.stale {
                    let r = &held.record;
                    say(Said::Did(format!(
                        "removed the stale lock on {} ({})",
                        sanitize::one_line(&r.filepath),
                        sanitize::one_line(&r.agent_id)
                    )));
                    feed.push(
                        FeedEntry::new(
                            EventKind::LockExpired,
                            Some(&r.agent_id),
                            r.filepath.clone(),
                        )
                        .by("swarm watch"),
                    );
                }
                for (name, why) in &report.damaged {
                    say(Said::Did(format!(
                        "removed the damaged lock file {name} ({why})"
                    )));
                }
            }
            Err(e) => self
                .outage
                .failed(say, "could not clean stale locks", &e.into()),
        }
    }

    /// Looks at the agents' worktree branches of this host's repository,
    /// records the files two or more of them changed and tells each new
    /// overlap to its agents once. Nothing (not even git) runs when no
    /// agent has a worktree.
    fn overlaps(&mut self, registry: &Registry, say: &mut dyn FnMut(Said)) {
        let op = self.op;
        if worktrees::agent_worktree_dirs(&op.paths).is_empty() {
            return;
        }
        let from = self.settings.overlaps_from.as_deref();
        match messaging::notice_overlaps(&op.messenger(), registry, &op.paths, from) {
            Ok((_, told, warnings)) => {
                for w in warnings {
                    say(Said::Warning(w));
                }
                for t in told {
                    say(Said::Did(format!(
                        "told {} that {} is changed on each of their branches",
                        t.told.join(", "),
                        sanitize::one_line(&t.overlap.path)
                    )));
                }
            }
            Err(e) => say(Said::Warning(format!("could not look for overlaps: {e}"))),
        }
    }

    /// Due ACK retries and escalations, held messages, hand-overs.
    fn housekeeping(
        &mut self,
        chores: Chores,
        feed: &mut Vec<FeedEntry>,
        say: &mut dyn FnMut(Said),
    ) {
        let done = self.op.housekeeping(chores);
        for note in &done.registry_notes {
            say(Said::Warning(note.clone()));
        }
        match done.acks {
            Some(Ok(report)) => {
                for w in &report.warnings {
                    say(Said::Warning(w.clone()));
                }
                for (id, to, n, outcome) in &report.retried {
                    let how = if outcome.is_delivered() {
                        "delivered"
                    } else {
                        "queued"
                    };
                    say(Said::Did(format!(
                        "retry {n} of {} to {to}: {how}",
                        short(id)
                    )));
                }
                for (id, to, _) in &report.escalated {
                    say(Said::Did(format!(
                        "escalated {} (no acknowledgement from {to})",
                        short(id)
                    )));
                    feed.push(
                        FeedEntry::new(
                            EventKind::AckEscalated,
                            Some(to),
                            format!("no acknowledgement of {}", short(id)),
                        )
                        .with_message(id),
                    );
                }
            }
            Some(Err(e)) => self
                .outage
                .failed(say, "could not process due ACK retries", &e),
            None => {}
        }
        match done.held {
            Some(Ok(report)) => {
                for w in &report.warnings {
                    say(Said::Warning(w.clone()));
                }
                for r in &report.released {
                    let what = sanitize::one_line(&r.outcome.describe());
                    say(Said::Did(format!(
                        "held message {} to {}: {what}",
                        r.held.msg_id.short(),
                        r.held.agent
                    )));
                    if r.outcome.is_delivered() {
                        feed.push(
                            FeedEntry::new(
                                EventKind::MessageReleased,
                                Some(r.held.agent.as_str()),
                                what,
                            )
                            .with_message(r.held.msg_id.as_str()),
                        );
                    }
                }
            }
            Some(Err(e)) => self
                .outage
                .failed(say, "could not deliver held messages", &e),
            None => {}
        }
        match done.handed_over {
            Some(Ok(got)) => {
                for w in &got.warnings {
                    say(Said::Warning(w.clone()));
                }
                for (to, id, outcome) in &got.delivered {
                    say(Said::Did(format!(
                        "message {} from another host to {to}: {}",
                        short(id),
                        sanitize::one_line(&outcome.describe())
                    )));
                }
            }
            Some(Err(e)) => self
                .outage
                .failed(say, "could not take deliveries for this host", &e),
            None => {}
        }
    }

    /// Looks at this host's agents for attention, raises and notifies
    /// what opened, and shows each session's notice. Returns true when a
    /// background watcher should end.
    fn look(&mut self, feed: &mut Vec<FeedEntry>, say: &mut dyn FnMut(Said)) -> bool {
        let op = self.op;
        let registry = match op.registry() {
            Ok((r, _)) => r,
            Err(e) => {
                self.outage.failed(say, "could not read the registry", &e);
                return false;
            }
        };
        let here = op.backend.shared_host();
        let local: Vec<_> = registry
            .active()
            .filter(|a| a.elsewhere(here).is_none())
            .collect();
        let held = match op.backend.held.list() {
            Ok(h) => h,
            Err(e) => {
                self.outage
                    .failed(say, "could not read held messages", &e.into());
                Vec::new()
            }
        };
        let waiting: BTreeSet<String> = held.iter().map(|h| h.agent.as_str().to_owned()).collect();
        // When each agent's own prompt hook last saw a prompt taken: an
        // idle screen after that is no finished turn.
        let sightings = HookSightings::new(&op.paths).load();
        let prompted: BTreeMap<String, Timestamp> = local
            .iter()
            .filter_map(|a| {
                let s = sightings.get(a.id.as_str())?;
                s.serves(a.tmux_pane_id.as_ref().map(|p| p.as_str()))
                    .then_some(s.prompt)
                    .flatten()
                    .map(|t| (a.id.as_str().to_owned(), t))
            })
            .collect();
        let profiles = op.messaging.delivery.profiles.clone();
        let printing = op.messaging.print_to_send.then_some(Printing {
            history: &self.need_history,
            rows: HISTORY_ROWS,
        });
        let looks::Taken {
            mut looks,
            panes,
            printouts,
            last_lines,
            states,
        } = looks::take(
            &op.tmux,
            &op.matcher,
            &profiles,
            &local,
            &waiting,
            &prompted,
            printing,
        );
        self.last_lines.extend(last_lines);
        // For `swarm agents`, which shows them while they are fresh.
        if let Some(warning) = self.states.write(&op.paths, &states) {
            say(Said::Warning(warning));
        }
        let alive = looks.iter().any(|l| !matches!(l.presence, Presence::Gone));
        let limited = limits_round::prepare(op, &mut looks, &local, &mut self.limits);
        let report = self.attention.round(looks, op.backend.episodes.as_ref());
        for e in report.errors {
            self.outage
                .failed(say, "could not record attention", &e.into());
        }
        let settled = limits_round::settle(op, &limited, &registry);
        for e in settled.errors {
            say(Said::Warning(e));
        }
        for line in settled.said {
            say(Said::Did(line));
        }
        let reset = settled.feed.into_iter().map(|entry| Raised { entry });
        for mut raised in report.raised.into_iter().chain(reset) {
            if raised.entry.event == EventKind::Limited
                && let Some(agent) = &raised.entry.agent
            {
                raised.entry.until = limits_round::until_of(&limited, agent);
            }
            if raised.entry.event == EventKind::Exited
                && let Some(agent) = &raised.entry.agent
                && let Some(lines) = self.last_lines.get(agent)
            {
                raised.entry.context = lines.clone();
            }
            say(Said::Did(raised.entry.text()));
            if self.settings.notify.notifies(raised.entry.event)
                && (raised.entry.event != EventKind::Exited
                    || self.claim_notice(&raised.entry, say))
            {
                self.notify_or_defer(&raised.entry);
            }
            feed.push(raised.entry);
        }
        let asked = std::mem::take(&mut self.need_history);
        let printed = send_printed(op, &registry, &printouts, &asked);
        for line in printed.done {
            say(Said::Did(line));
        }
        for (what, e) in printed.errors {
            self.outage.failed(say, &what, &e);
        }
        self.need_history = printed.need_history;
        if self.settings.notify.tmux {
            self.show_notices(&panes, &held_for(&held), say);
        }
        self.should_end(alive, &registry)
    }

    /// Notifies `entry` unless the same agent's same kind was notified
    /// within the throttle window; then it waits for the window's end.
    fn notify_or_defer(&mut self, entry: &FeedEntry) {
        let key = (entry.agent.clone().unwrap_or_default(), entry.event);
        let throttle = self.settings.notify.throttle.as_secs_f64();
        let window_end = self
            .last_notice
            .get(&key)
            .and_then(|last| Timestamp::from_unix_seconds(last.unix_seconds() + throttle))
            .filter(|end| *end > entry.time);
        match window_end {
            Some(not_before) => self.deferred.push(Deferred {
                entry: entry.clone(),
                not_before,
            }),
            None => {
                self.notifier.notify(entry);
                self.last_notice.insert(key, entry.time);
            }
        }
    }

    /// Sends the notifications the throttle held back whose window has
    /// ended, if their episode is still open: one notice for each, or one
    /// summary for several of one agent and kind.
    fn send_deferred(&mut self, say: &mut dyn FnMut(Said)) {
        let now = Timestamp::now();
        if !self.deferred.iter().any(|d| d.not_before <= now) {
            return;
        }
        let open = match self.op.backend.episodes.open() {
            Ok(o) => o,
            Err(e) => {
                self.outage
                    .failed(say, "could not read open episodes", &e.into());
                return;
            }
        };
        let (due, waiting): (Vec<Deferred>, Vec<Deferred>) = std::mem::take(&mut self.deferred)
            .into_iter()
            .partition(|d| d.not_before <= now);
        self.deferred = waiting;
        let still_open = |d: &Deferred| {
            open.iter().any(|o| {
                Some(o.agent.as_str()) == d.entry.agent.as_deref()
                    && o.kind == d.entry.event
                    && Some(o.episode) == d.entry.episode
            })
        };
        let mut by_condition: BTreeMap<(Option<String>, String), Vec<FeedEntry>> = BTreeMap::new();
        for d in due.into_iter().filter(still_open) {
            by_condition
                .entry((d.entry.agent.clone(), d.entry.event.as_str().to_owned()))
                .or_default()
                .push(d.entry);
        }
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
            say(Said::Did(format!(
                "notified after the throttle window: {}",
                last.text()
            )));
            self.notifier.notify(&last);
            self.last_notice
                .insert((last.agent.clone().unwrap_or_default(), last.event), now);
        }
    }

    /// Shows each session's notice where it changed.
    fn show_notices(
        &mut self,
        panes: &[crate::tmux::Pane],
        held: &[HeldFor],
        say: &mut dyn FnMut(Said),
    ) {
        let open = match self.op.backend.episodes.open() {
            Ok(o) => o,
            Err(e) => {
                self.outage
                    .failed(say, "could not read open episodes", &e.into());
                return;
            }
        };
        let project = self.op.paths.fingerprint();
        let changed: Vec<SessionNotice> = session_notices(panes, &project, &open, held)
            .into_iter()
            .filter(|n| self.shown.get(&n.session) != Some(n))
            .collect();
        if changed.is_empty() {
            return;
        }
        for n in &changed {
            if n.text.is_some() && !self.areas.contains(&n.session) {
                match self.op.tmux.add_status_area(&n.session) {
                    Ok(()) => {
                        self.areas.insert(n.session.clone());
                    }
                    Err(e) => say(Said::Warning(format!(
                        "could not add swarm's notice to the status line of {}: {e}",
                        n.session
                    ))),
                }
            }
        }
        match self.op.tmux.show_notices(&changed) {
            Ok(()) => {
                for n in changed {
                    self.shown.insert(n.session.clone(), n);
                }
            }
            Err(e) => say(Said::Warning(format!(
                "could not show swarm's notice in tmux: {e}"
            ))),
        }
    }

    /// Whether a background watcher should end: no agent pane of this
    /// host has lived for `GRACE`.
    fn should_end(&mut self, alive: bool, registry: &Registry) -> bool {
        if !self.settings.background {
            return false;
        }
        let _ = registry;
        if alive {
            self.empty_since = None;
            return false;
        }
        let since = *self.empty_since.get_or_insert_with(Instant::now);
        since.elapsed() >= GRACE
    }
}

/// Held messages counted per agent.
fn held_for(held: &[messaging::held::held_store::HeldMessage]) -> Vec<HeldFor> {
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for h in held {
        *counts.entry(h.agent.as_str()).or_default() += 1;
    }
    counts
        .into_iter()
        .map(|(agent, count)| HeldFor {
            agent: agent.to_owned(),
            count,
        })
        .collect()
}

fn short(id: &str) -> String {
    crate::acks::short(id).to_string()
}

fn list(label: &str, ids: &[String]) -> String {
    if ids.is_empty() {
        String::new()
    } else {
        format!(",{label}: {}", ids.join(" "))
    }
}
