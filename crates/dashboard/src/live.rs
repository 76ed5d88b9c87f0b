//! `Live`: what the open event streams send. One watcher thread, running
//! only while a stream is open, notices changes (file events, and a check
//! every tick for what no event announced: a file replaced, a lock file
//! deleted, a lock going stale, a line added to the activity feed, an
//! agent's screen), rebuilds the bodies of what changed, and publishes
//! each under a version number. Streams (async tasks) wait for a
//! version to move and send that body: however many browsers are open, the
//! files are read once per change.

use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use tokio::sync::watch;
use tokio::time::Instant;

use serde_json::Value;

use swarm_core::support::time;
use swarm_core::watcher::service;
use swarm_core::{
    AppendWake, Dirty, FileWatch, Registry, Stamp, dir_entries, file_stamp, read_acks,
    read_registry,
};

use super::activity::{self, FeedQuery, STREAM_ENTRIES};
use super::api;
use super::app::App;
use super::needs;
use super::reply::json_text;

/// The least time between two looks at who needs the person (the open
/// episodes and their agents' screens, which change without any file
/// changing), however many file events come meanwhile.
const ATTENTION_EVERY: Duration = Duration::from_millis(900);

/// The kinds of events a stream carries besides `connected` and
/// `heartbeat`, in the order they are sent when several changed at once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Topic {
    /// The registry (`/api/v1/agents`).
    Agents,
    /// The live locks (`/api/v1/locks`).
    Locks,
    /// Pending acknowledgements (`/api/v1/acks`).
    Acks,
    /// The latest messages (`/api/v1/messages?limit=10`).
    Messages,
    /// The counts (`/api/v1/stats`).
    Stats,
    /// Who needs the person (`/api/v1/attention`).
    Attention,
    /// The latest lines of the activity feed (`/api/v1/feed?limit=50`).
    Feed,
    /// Something could not be read.
    Error,
}

/// Every topic, in sending order.
pub(super) const TOPICS: [Topic; 8] = [
    Topic::Agents,
    Topic::Locks,
    Topic::Acks,
    Topic::Messages,
    Topic::Stats,
    Topic::Attention,
    Topic::Feed,
    Topic::Error,
];

impl Topic {
    /// The SSE event name.
    pub(super) fn event(self) -> &'static str {
        match self {
            Topic::Agents => "agents",
            Topic::Locks => "locks",
            Topic::Acks => "acks",
            Topic::Messages => "messages",
            Topic::Stats => "stats",
            Topic::Attention => "attention",
            Topic::Feed => "feed",
            Topic::Error => "error",
        }
    }

    /// Its place in `TOPICS`.
    pub(super) fn index(self) -> usize {
        self as usize
    }
}

/// One published body.
#[derive(Clone, Debug, Default)]
struct Published {
    version: u64,
    json: Arc<str>,
}

#[derive(Debug, Default)]
struct Inner {
    subscribers: usize,
    /// Scans completed.
    scans: u64,
    /// A new stream wants a scan now.
    scan_wanted: bool,
    dirty: Dirty,
    published: [Published; TOPICS.len()],
    /// The error event is only sent while the problem lasts.
    error_active: bool,
    stopping: bool,
}

/// Bodies changed since a stream last sent them.
#[derive(Debug, Default)]
pub(super) struct Changes {
    /// `(topic, version, body)` in sending order.
    pub items: Vec<(Topic, u64, Arc<str>)>,
    /// The server is stopping.
    pub stopping: bool,
}

/// The published state and the means to wait for it.
#[derive(Debug)]
pub(super) struct Live {
    inner: Mutex<Inner>,
    /// Wakes streams: a scan finished, or the server stops (the value is
    /// only a counter; the state is in `inner`).
    published: watch::Sender<u64>,
    /// Wakes the watcher: a stream opened, a file changed, or stop.
    wake: Condvar,
}

impl Default for Live {
    fn default() -> Live {
        Live {
            inner: Mutex::default(),
            published: watch::Sender::new(0),
            wake: Condvar::new(),
        }
    }
}

impl Live {
    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Registers a stream; returns the number of scans done so far (the
    /// stream's first changes come from a later scan).
    pub(super) fn subscribe(&self) -> u64 {
        let mut inner = self.lock();
        inner.subscribers += 1;
        inner.scan_wanted = true;
        self.wake.notify_all();
        inner.scans
    }

    /// A stream went away.
    pub(super) fn unsubscribe(&self) {
        let mut inner = self.lock();
        inner.subscribers = inner.subscribers.saturating_sub(1);
    }

    /// Files changed (from the file watch).
    pub(super) fn mark(&self, dirty: Dirty) {
        let mut inner = self.lock();
        inner.dirty.merge(dirty);
        self.wake.notify_all();
    }

    /// Stops the watcher and wakes every stream so it can end.
    pub(super) fn stop(&self) {
        let mut inner = self.lock();
        inner.stopping = true;
        self.wake.notify_all();
        self.published.send_modify(|n| *n += 1);
    }

    /// Waits, at most until `until`, for a scan after `after_scan` that
    /// published something other than the versions in `sent`; returns what
    /// changed (possibly nothing, when the time ran out).
    pub(super) async fn wait(
        &self,
        sent: &[u64; TOPICS.len()],
        after_scan: u64,
        until: Instant,
    ) -> Changes {
        // Subscribed before looking, so a scan that ends in between still
        // wakes this wait.
        let mut woken = self.published.subscribe();
        loop {
            {
                let inner = self.lock();
                if inner.stopping {
                    return Changes {
                        items: Vec::new(),
                        stopping: true,
                    };
                }
                if inner.scans > after_scan {
                    let items: Vec<(Topic, u64, Arc<str>)> = TOPICS
                        .iter()
                        .filter(|t| **t != Topic::Error || inner.error_active)
                        .filter_map(|&t| {
                            let p = &inner.published[t.index()];
                            (p.version != sent[t.index()]).then(|| (t, p.version, p.json.clone()))
                        })
                        .collect();
                    if !items.is_empty() {
                        return Changes {
                            items,
                            stopping: false,
                        };
                    }
                }
            }
            match tokio::time::timeout_at(until, woken.changed()).await {
                Ok(Ok(())) => {}
                // The sender lives as long as `self`; a timeout is the end.
                Ok(Err(_)) | Err(_) => return Changes::default(),
            }
        }
    }
}

/// What the watcher remembers between scans.
#[derive(Debug, Default)]
struct Seen {
    registry_stamp: Stamp,
    acks_stamp: Stamp,
    lock_files: Option<Vec<(String, u64)>>,
    next_stale: Option<f64>,
    registry: Option<Registry>,
    lock_count: usize,
    /// Whether the project's watcher ran at the last look.
    watcher: Option<bool>,
    /// When who needs the person was last looked at.
    attention_at: Option<std::time::Instant>,
    notes: Vec<String>,
    problems: Vec<String>,
}

/// The watcher thread: runs until the server stops.
pub(super) fn watch(app: &Arc<App>) {
    let live = &app.live;
    let mut seen = Seen::default();
    let mut file_watch: Option<FileWatch> = None;
    let mut _appends: Option<AppendWake> = None;
    let mut watch_tried = false;
    loop {
        let (dirty, fresh) = {
            let mut inner = live.lock();
            let mut idle = inner.subscribers == 0;
            loop {
                if inner.stopping {
                    return;
                }
                if inner.subscribers > 0 && (inner.scan_wanted || inner.dirty.any()) {
                    break;
                }
                if inner.subscribers == 0 {
                    idle = true;
                    inner = live
                        .wake
                        .wait(inner)
                        .unwrap_or_else(PoisonError::into_inner);
                    continue;
                }
                let (guard, timeout) = live
                    .wake
                    .wait_timeout(inner, app.settings.tick)
                    .unwrap_or_else(PoisonError::into_inner);
                inner = guard;
                if timeout.timed_out() {
                    break;
                }
            }
            inner.scan_wanted = false;
            (std::mem::take(&mut inner.dirty), idle)
        };
        if !watch_tried {
            watch_tried = true;
            file_watch = start_file_watch(app);
            _appends = start_append_wake(app);
        }
        if dirty.locks_dir
            && let Some(w) = file_watch.as_mut()
        {
            w.watch_locks_dir();
        }
        // After a time without streams, everything is rebuilt: cheap, and
        // nothing that happened meanwhile can be missed.
        scan(app, &mut seen, dirty, fresh);
    }
}

fn start_file_watch(app: &Arc<App>) -> Option<FileWatch> {
    let on_change = {
        let app = Arc::clone(app);
        move |d: Dirty| app.live.mark(d)
    };
    let on_error = {
        let report = app.settings.report.clone();
        move |e: String| report(&e)
    };
    match FileWatch::start(&app.settings.paths, on_change, on_error) {
        Ok(w) => Some(w),
        Err(e) => {
            (app.settings.report)(&format!(
                "file events are not available ({e}); the dashboard checks the files every {}s instead",
                app.settings.tick.as_secs()
            ));
            None
        }
    }
}

/// On a shared store, a wait on its log: a message any host logs is
/// published at once rather than at the next tick.
fn start_append_wake(app: &Arc<App>) -> Option<AppendWake> {
    match app.settings.backend.log.append_watch() {
        Ok(watch) => watch.map(|w| {
            let app = Arc::clone(app);
            AppendWake::start(w, move |d| app.live.mark(d))
        }),
        Err(e) => {
            (app.settings.report)(&format!(
                "could not wait on the message log ({e}); new messages show within {}s",
                app.settings.tick.as_secs()
            ));
            None
        }
    }
}

fn scan(app: &App, seen: &mut Seen, dirty: Dirty, fresh: bool) {
    let paths = &app.settings.paths;
    let now = time::now();
    let now_secs = time::unix_seconds(now);
    let mut notes = Vec::new();
    let mut problems = Vec::new();
    let mut out: Vec<(Topic, Value)> = Vec::new();

    // A shared store (Redis) sends no file events and has no file times:
    // it is read on every tick, and only what changed is published.
    let polled = app.settings.backend.shared_host().is_some();
    let registry_stamp = file_stamp(&paths.registry());
    let registry_changed =
        fresh || polled || dirty.registry || registry_stamp != seen.registry_stamp;
    if registry_changed {
        seen.registry_stamp = registry_stamp;
        let (registry, note) = read_registry(app.settings.backend.registry.as_ref());
        notes.extend(note);
        seen.registry = registry;
        out.push((Topic::Agents, api::agents(seen.registry.as_ref())));
    }

    let lock_files = match dir_entries(&paths.locks_dir(), ".lock") {
        Ok(files) => Some(files),
        Err(e) => {
            problems.push(("could not read the locks", e.to_string()));
            None
        }
    };
    let locks_changed = fresh
        || polled
        || dirty.locks
        || lock_files != seen.lock_files
        || seen.next_stale.is_some_and(|t| now_secs > t);
    if locks_changed {
        match api::locks(
            &*app.settings.backend.locks,
            app.settings.stale_after,
            now_secs,
        ) {
            Ok(live) => {
                seen.lock_files = lock_files;
                seen.lock_count = live.count;
                seen.next_stale = live.next_stale;
                out.push((Topic::Locks, live.body));
            }
            Err(e) => problems.push(("could not read the locks", e.to_string())),
        }
    }

    let acks_stamp = file_stamp(&paths.pending_acks());
    if fresh || polled || dirty.acks || acks_stamp != seen.acks_stamp {
        seen.acks_stamp = acks_stamp;
        let (pending, note) = read_acks(&*app.settings.backend.acks);
        notes.extend(note);
        out.push((Topic::Acks, api::acks(&pending)));
    }

    {
        let mut feed = app.feed();
        let messages_changed = match feed.refresh() {
            Ok(changed) => changed,
            Err(e) => {
                problems.push(("could not read the message log", e.to_string()));
                false
            }
        };
        if fresh || messages_changed || dirty.log {
            out.push((Topic::Messages, api::messages(&feed, api::STREAM_LIMIT)));
        }
        let watcher = service::status(&app.settings.paths).ok().map(|s| s.running);
        let watcher_changed = watcher != seen.watcher;
        seen.watcher = watcher;
        if fresh || registry_changed || locks_changed || messages_changed || watcher_changed {
            out.push((
                Topic::Stats,
                api::stats(seen.registry.as_ref(), seen.lock_count, &feed, watcher),
            ));
        }
    }

    let feed_changed = {
        let mut feed = app.activity();
        match feed.refresh() {
            Ok(changed) => {
                if fresh || changed {
                    let latest = FeedQuery {
                        since: None,
                        agents: Vec::new(),
                        kinds: Vec::new(),
                        limit: STREAM_ENTRIES,
                    };
                    out.push((Topic::Feed, activity::feed(&feed, &latest)));
                }
                changed
            }
            Err(e) => {
                problems.push(("could not read the activity feed", e.to_string()));
                false
            }
        }
    };

    if fresh
        || feed_changed
        || seen
            .attention_at
            .is_none_or(|t| t.elapsed() >= ATTENTION_EVERY)
    {
        seen.attention_at = Some(std::time::Instant::now());
        match app.settings.backend.episodes.open() {
            Ok(open) => {
                let feed = app.activity();
                out.push((
                    Topic::Attention,
                    needs::attention(&app.settings, open, seen.registry.as_ref(), &feed),
                ));
            }
            Err(e) => problems.push(("could not read who needs you", e.to_string())),
        }
    }

    // Problems and notes are told once, when they appear.
    for note in &notes {
        if !seen.notes.contains(note) {
            (app.settings.report)(note);
        }
    }
    seen.notes = notes;
    let summary: Vec<String> = problems.iter().map(|(what, _)| what.to_string()).collect();
    let details: Vec<String> = problems
        .iter()
        .map(|(what, why)| format!("{what}: {why}"))
        .collect();
    let new_problem = !details.is_empty() && details != seen.problems;
    for d in details.iter().filter(|d| !seen.problems.contains(d)) {
        (app.settings.report)(d);
    }
    seen.problems = details;

    let mut inner = app.live.lock();
    for (topic, value) in out {
        let json: Arc<str> = json_text(&value).into();
        let slot = &mut inner.published[topic.index()];
        if slot.version == 0 || slot.json != json {
            slot.version += 1;
            slot.json = json;
        }
    }
    if new_problem {
        let body = api::error(&summary.join("; "), now);
        let slot = &mut inner.published[Topic::Error.index()];
        slot.version += 1;
        slot.json = json_text(&body).into();
    }
    inner.error_active = !summary.is_empty();
    inner.scans += 1;
    drop(inner);
    app.live.published.send_modify(|n| *n += 1);
}
