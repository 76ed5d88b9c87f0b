//! `Session`: the monitor's event loop core, shared by the live view and
//! the plain stream. One channel carries every reason to wake up (a file
//! changed, a key was pressed, the worker finished a job, a stop signal);
//! a slow tick (once a second) is the only timer, for ages on screen, ACK
//! retries falling due and who needs the person. Each wake-up reads only
//! what changed: new log lines by byte offset, and the status file whose
//! event arrived.

use std::collections::HashSet;
use std::sync::Arc;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::time::{Duration, Instant};

use ratatui::crossterm::event::Event as TermEvent;

use swarm_core::support::sys;
use swarm_core::watcher::service;
use swarm_core::worktrees::OverlapNotices;
use swarm_core::{
    AppendWake, Backend, Dirty, Error, FileWatch, LogFollower, Paths, Result, TailBatch,
};

use super::changes::Changes;
use super::state::Level;
use super::worker::{CHORES, Job, Report, Worker, WorkerSetup, failed};
use swarm_core::{try_read_acks, try_read_locks, try_read_registry};

/// How often ages are redrawn and due ACK retries looked for.
pub(crate) const TICK: Duration = Duration::from_secs(1);

/// Usage is read every this many ticks: the agents' record files grow
/// with their turns, not by the second, and reading them is the slowest
/// of the worker's looks.
pub(crate) const USAGE_TICKS: u32 = 5;

/// A reason to wake up.
#[derive(Debug)]
pub(crate) enum Event {
    /// Files changed.
    Files(Dirty),
    /// A key, a paste or a resize.
    Input(TermEvent),
    /// A job finished.
    Worker(Report),
    /// Something to tell the user.
    Note(Level, String),
    /// SIGINT, SIGTERM or SIGHUP.
    Stop,
}

/// Everything that happened since the last wake-up, with the files that
/// changed already read.
#[derive(Debug, Default)]
pub struct Update {
    /// What was read from the files that changed.
    pub changes: Changes,
    /// Keys, pastes and resizes, in order.
    pub inputs: Vec<TermEvent>,
    /// Finished jobs.
    pub reports: Vec<Report>,
    /// Things to tell the user.
    pub notes: Vec<(Level, String)>,
    /// The tick came round.
    pub tick: bool,
    /// A stop signal arrived.
    pub stop: bool,
}

impl AsMut<Changes> for Update {
    fn as_mut(&mut self) -> &mut Changes {
        &mut self.changes
    }
}

/// The running core of a monitor.
#[derive(Debug)]
pub struct Session {
    backend: Arc<Backend>,
    tail: Box<dyn LogFollower>,
    tx: Sender<Event>,
    rx: Receiver<Event>,
    watch: Option<FileWatch>,
    /// On a shared store: wakes the loop when any host logs a message.
    _appends: Option<AppendWake>,
    /// The store is shared by several hosts: its registry, locks and
    /// ACKs send no file events and are read on every tick.
    shared: bool,
    worker: Worker,
    acks_in_flight: bool,
    /// A shared store that stopped answering was told about: its further
    /// errors are not repeated until it answers again.
    store_down: bool,
    screens_in_flight: bool,
    screens_tick: bool,
    usage_in_flight: bool,
    /// Ticks until usage is read again.
    usage_countdown: u32,
    /// What reading usage told already: told once, not every few seconds.
    usage_told: HashSet<String>,
    next_tick: Instant,
    /// The overlaps between agents' worktree branches the last look
    /// found (the watcher looks; the monitor only reads).
    overlaps: OverlapNotices,
    /// The project's layout, to ask whether its watcher runs.
    paths: Paths,
}

impl Session {
    /// Starts watching the project and its stop signals, starts the
    /// worker, and reads everything once: the log's recent records go to
    /// `first_records` a piece at a time (a large log is never held whole),
    /// and the returned update holds every status file.
    pub fn open(
        paths: Paths,
        worker: WorkerSetup,
        first_records: &mut dyn FnMut(TailBatch),
    ) -> Result<(Session, Update)> {
        let (tx, rx) = mpsc::channel();
        let stop = sys::stop_signals().map_err(|source| Error::Io {
            what: "install the Ctrl-C handler".into(),
            source,
        })?;
        let to_loop = tx.clone();
        std::thread::spawn(move || {
            if stop.recv().is_ok() {
                let _ = to_loop.send(Event::Stop);
            }
        });
        let mut first = Update::default();
        let (changed, failed) = (tx.clone(), tx.clone());
        let watch = match FileWatch::start(
            &paths,
            move |dirty| {
                let _ = changed.send(Event::Files(dirty));
            },
            move |e| {
                let _ = failed.send(Event::Note(Level::Warn, e));
            },
        ) {
            Ok(w) => Some(w),
            Err(e) => {
                first.notes.push((
                    Level::Warn,
                    format!("file events unavailable ({e}); checking for changes every second"),
                ));
                None
            }
        };
        // The wait begins before the follower's first read, so nothing
        // logged in between goes unannounced.
        let appends = worker.op.backend.log.append_watch()?.map(|w| {
            let changed = tx.clone();
            AppendWake::start(w, move |dirty| {
                let _ = changed.send(Event::Files(dirty));
            })
        });
        let shared = worker.op.backend.shared_host().is_some();
        let tail = worker.op.backend.log.follow_each(first_records)?;
        let reports = tx.clone();
        let backend = Arc::clone(&worker.op.backend);
        let worker = Worker::spawn(worker, move |r| {
            let _ = reports.send(Event::Worker(r));
        });
        let mut session = Session {
            backend,
            tail,
            tx,
            rx,
            watch,
            _appends: appends,
            shared,
            worker,
            acks_in_flight: false,
            store_down: false,
            screens_in_flight: false,
            screens_tick: false,
            usage_in_flight: true,
            usage_countdown: USAGE_TICKS,
            usage_told: HashSet::new(),
            next_tick: Instant::now() + TICK,
            overlaps: OverlapNotices::new(&paths),
            paths: paths.clone(),
        };
        let mut dirty = Dirty::all();
        dirty.log = false;
        session.read(dirty, &mut first);
        session.read_episodes(&mut first);
        session.check_acks();
        session.worker.submit(Job::Usage);
        Ok((session, first))
    }

    /// Where events can be sent from other threads (the key reader).
    pub(crate) fn sender(&self) -> Sender<Event> {
        self.tx.clone()
    }

    /// Queues a job for the worker.
    pub(crate) fn submit(&mut self, job: Job) {
        self.worker.submit(job);
    }

    /// Waits for the next event (at most until the next tick), takes every
    /// other event already waiting, and reads what changed.
    pub fn wait(&mut self) -> Update {
        let mut update = Update::default();
        let mut dirty = Dirty::default();
        let timeout = self.next_tick.saturating_duration_since(Instant::now());
        let first = match self.rx.recv_timeout(timeout) {
            Ok(e) => Some(e),
            Err(RecvTimeoutError::Timeout) => None,
            // Cannot happen while we hold a sender; stop rather than spin.
            Err(RecvTimeoutError::Disconnected) => Some(Event::Stop),
        };
        for event in first
            .into_iter()
            .chain(std::iter::from_fn(|| self.rx.try_recv().ok()))
        {
            match event {
                Event::Files(d) => dirty.merge(d),
                Event::Input(i) => update.inputs.push(i),
                Event::Worker(mut r) => {
                    match &mut r {
                        Report::Acks(_) => self.acks_in_flight = false,
                        Report::Screens(_) => self.screens_in_flight = false,
                        Report::Usage(_, lines) => {
                            self.usage_in_flight = false;
                            lines.retain(|(_, text)| self.usage_told.insert(text.clone()));
                        }
                        Report::Sent(_) | Report::Answered(_) => {}
                    }
                    update.reports.push(r);
                }
                Event::Note(level, text) => update.notes.push((level, text)),
                Event::Stop => update.stop = true,
            }
        }
        if Instant::now() >= self.next_tick {
            update.tick = true;
            self.next_tick = Instant::now() + TICK;
            if self.watch.is_none() {
                dirty = Dirty::all();
            }
            if self.shared {
                dirty.registry = true;
                dirty.locks = true;
                dirty.acks = true;
            }
            // Following the log costs two system calls when nothing is
            // new: cheap insurance against a lost event.
            dirty.log = true;
        }
        self.read(dirty, &mut update);
        if update.tick {
            self.read_episodes(&mut update);
        }
        if update.tick || dirty.acks {
            self.check_acks();
        }
        // Every other tick: two tmux calls read every agent's pane.
        if update.tick && !self.screens_in_flight {
            self.screens_tick = !self.screens_tick;
            if self.screens_tick {
                self.screens_in_flight = true;
                self.worker.submit(Job::Screens);
            }
        }
        if update.tick && !self.usage_in_flight {
            self.usage_countdown = self.usage_countdown.saturating_sub(1);
            if self.usage_countdown == 0 {
                self.usage_countdown = USAGE_TICKS;
                self.usage_in_flight = true;
                self.worker.submit(Job::Usage);
            }
        }
        tell_outage(&mut self.store_down, &mut update);
        update
    }

    fn read(&mut self, dirty: Dirty, update: &mut Update) {
        if dirty.locks_dir
            && let Some(w) = self.watch.as_mut()
        {
            w.watch_locks_dir();
        }
        if dirty.log {
            // A log that cannot be read for a while (its permissions
            // changed, the disk went away) is reported, not fatal: the
            // next change or tick tries again.
            match self.tail.read_new() {
                Ok(batch) => {
                    update.changes.records.extend(batch.records);
                    update.changes.skipped += batch.skipped;
                }
                Err(e) => update
                    .notes
                    .push(failed("could not read the message log", e)),
            }
        }
        // A store that does not answer is an outage, told once with the
        // log's (`tell_outage`); what was read before stays shown.
        if dirty.registry {
            match try_read_registry(self.backend.registry.as_ref()) {
                Ok(read) => update.changes.registry = Some(read),
                Err(e) => update.notes.push(failed("could not read the registry", e)),
            }
        }
        if dirty.locks {
            match try_read_locks(&*self.backend.locks) {
                Ok(read) => update.changes.locks = Some(read),
                Err(e) => update.notes.push(failed("could not list the locks", e)),
            }
        }
        if dirty.acks {
            match try_read_acks(&*self.backend.acks) {
                Ok(read) => update.changes.acks = Some(read),
                Err(e) => update
                    .notes
                    .push(failed("could not read the pending acknowledgements", e)),
            }
        }
    }

    /// Who needs the person: the open attention episodes, which the
    /// project's watcher keeps (the monitor only reads them), and the
    /// overlaps between agents' branches the watcher last found. They
    /// change with what panes and repositories show, not with any file the
    /// watch reports, so they are read each tick.
    fn read_episodes(&mut self, update: &mut Update) {
        match self.backend.episodes.open() {
            Ok(open) => update.changes.episodes = Some(open),
            Err(e) => update.notes.push(failed("could not read who needs you", e)),
        }
        // A damaged file is moved aside by the next look; it is not worth
        // a note every second meanwhile.
        update.changes.overlaps = Some(self.overlaps.current().0);
        // One lock attempt: whether the project's watcher runs here.
        update.changes.watcher = service::status(&self.paths).ok().map(|s| s.running);
    }

    /// Hands due ACK work to the worker, once at a time.
    fn check_acks(&mut self) {
        // With other hosts, a round also takes what they handed over.
        if !self.acks_in_flight && CHORES.due(&self.backend) {
            self.acks_in_flight = true;
            self.worker.submit(Job::ProcessAcks);
        }
    }
}

/// A shared store that does not answer makes every read and every
/// round of work fail, each tick: the first such error is told once,
/// with what happens meanwhile, the rest are left out, and the first
/// round of work that reaches the store again says so.
fn tell_outage(store_down: &mut bool, update: &mut Update) {
    let unreachable = |(level, _): &(Level, String)| *level == Level::Outage;
    let mut first: Option<String> = None;
    let mut round_reached_store = false;
    let mut drop_unreachable = |lines: &mut Vec<(Level, String)>| {
        let mut hit = false;
        lines.retain(|l| {
            if unreachable(l) {
                hit = true;
                first.get_or_insert_with(|| l.1.clone());
                false
            } else {
                true
            }
        });
        hit
    };
    drop_unreachable(&mut update.notes);
    for report in &mut update.reports {
        match report {
            Report::Acks(lines) => {
                if !drop_unreachable(lines) {
                    round_reached_store = true;
                }
            }
            // What the user asked for is always answered.
            Report::Sent(_) | Report::Answered(_) | Report::Screens(_) | Report::Usage(..) => {}
        }
    }
    match first {
        Some(why) if !*store_down => {
            *store_down = true;
            update.notes.push((
                Level::Error,
                format!("{why}; still watching, trying again each second"),
            ));
        }
        None if *store_down && round_reached_store => {
            *store_down = false;
            update
                .notes
                .push((Level::Info, "the store answers again".to_owned()));
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use swarm_core::StoreError;

    fn down() -> StoreError {
        StoreError::Unreachable {
            url: "redis://127.0.0.1:1".into(),
            detail: "connection refused".into(),
        }
    }

    fn acks(lines: Vec<(Level, String)>) -> Update {
        Update {
            reports: vec![Report::Acks(lines)],
            ..Update::default()
        }
    }

    #[test]
    fn an_outage_is_told_once_by_the_kind_of_error_and_its_end_once() {
        let mut store_down = false;
        // Each tick of an outage fails the log read and the round of work.
        for tick in 0..3 {
            let mut update = acks(vec![failed("could not deliver held messages", down())]);
            update
                .notes
                .push(failed("could not read the message log", down()));
            tell_outage(&mut store_down, &mut update);
            let told: Vec<_> = update.notes.iter().map(|(l, _)| *l).collect();
            if tick == 0 {
                assert_eq!(told, vec![Level::Error], "{:?}", update.notes);
                assert!(update.notes[0].1.contains("still watching"));
            } else {
                assert!(told.is_empty(), "{:?}", update.notes);
            }
            assert_eq!(update.reports, vec![Report::Acks(Vec::new())]);
        }
        // A round that reaches the store again says so, once.
        let mut update = acks(Vec::new());
        tell_outage(&mut store_down, &mut update);
        assert_eq!(
            update.notes,
            vec![(Level::Info, "the store answers again".to_owned())]
        );
        assert!(!store_down);
    }

    #[test]
    fn other_failures_are_told_each_time_even_when_they_quote_the_outage_words() {
        let mut store_down = false;
        for _ in 0..2 {
            let lock = StoreError::LockTimeout {
                path: "x is unreachable: y".into(),
                timeout: Duration::from_secs(1),
            };
            let mut update = acks(vec![failed("could not deliver held messages", lock)]);
            tell_outage(&mut store_down, &mut update);
            assert!(update.notes.is_empty());
            match &update.reports[..] {
                [Report::Acks(lines)] => {
                    assert_eq!(lines.len(), 1);
                    assert_eq!(lines[0].0, Level::Error);
                }
                other => panic!("{other:?}"),
            }
        }
        assert!(!store_down);
    }
}
