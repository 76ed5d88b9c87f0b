//! The monitor's worker thread: sends the messages written in the monitor
//! and the ACK retries and escalations that fall due (as `swarm watch`
//! does). A delivery waits on the recipient's pane for a moment; doing it
//! here keeps the screen live meanwhile. Jobs run one at a time, in order.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Sender};
use std::thread::JoinHandle;

use crate::acks::{self, AckSettings};
use crate::agents::agent_matcher::AgentMatcher;
use crate::agents::pane_state;
use crate::agents::registry::{AgentRecord, AgentStatus, Registry};
use crate::agents::registry_store::RegistryStore;
use crate::backend::Backend;
use crate::domain::Timestamp;
use crate::domain::message::MessageType;
use crate::error::{Error, Result};
use crate::messaging::{MessagingSettings, Messenger, Recipients, SendReport, SendRequest};
use crate::store::Paths;
use crate::support::time;
use crate::tmux::{Server, Tmux};

use super::state::{AgentScreen, Level, Outgoing};

/// What the worker needs, owned (it runs on its own thread).
#[derive(Debug)]
pub(crate) struct WorkerSetup {
    /// The tmux server the agents run on.
    pub server: Server,
    /// The project's shared state.
    pub backend: Arc<Backend>,
    /// The project's files.
    pub paths: Paths,
    /// Recognises agents in panes.
    pub matcher: AgentMatcher,
    /// Delivery and rate-limit settings.
    pub messaging: MessagingSettings,
    /// The retry schedule.
    pub acks: AckSettings,
    /// Sender id of messages written in the monitor.
    pub sender: String,
    /// Message types from the config.
    pub custom_types: Vec<String>,
}

/// A job for the worker.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Job {
    /// Send what is due of the ACK retries and escalations, and held
    /// messages whose pane is safe again.
    ProcessAcks,
    /// Send a message written in the monitor.
    Send(Outgoing),
    /// Read what each agent's pane shows, and what is held for it.
    Screens,
}

/// What a job did, as lines for the user.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Report {
    /// The outcome of `Job::Send`.
    Sent(Vec<(Level, String)>),
    /// The outcome of `Job::ProcessAcks` (empty when nothing was due).
    Acks(Vec<(Level, String)>),
    /// The outcome of `Job::Screens`.
    Screens(Vec<AgentScreen>),
}

/// A running worker. Dropping it lets the job in progress finish (a
/// delivery is never cut off between its paste and its Enter) and skips
/// the ones still queued.
#[derive(Debug)]
pub(crate) struct Worker {
    jobs: Option<Sender<Job>>,
    stopping: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Worker {
    /// Starts the thread; `report` is called on it with each job's outcome.
    pub(crate) fn spawn(setup: WorkerSetup, report: impl Fn(Report) + Send + 'static) -> Worker {
        let (tx, rx) = mpsc::channel::<Job>();
        let stopping = Arc::new(AtomicBool::new(false));
        let stop = Arc::clone(&stopping);
        let thread = std::thread::spawn(move || {
            let tmux = Tmux::new(setup.server.clone());
            while let Ok(job) = rx.recv() {
                if stop.load(Ordering::SeqCst) {
                    return;
                }
                report(match job {
                    Job::ProcessAcks => Report::Acks(process_acks(&setup, &tmux)),
                    Job::Send(out) => Report::Sent(send(&setup, &tmux, out)),
                    Job::Screens => Report::Screens(screens(&setup, &tmux)),
                });
            }
        });
        Worker {
            jobs: Some(tx),
            stopping,
            thread: Some(thread),
        }
    }

    /// Queues a job.
    pub(crate) fn submit(&self, job: Job) {
        if let Some(tx) = &self.jobs {
            // A worker that stopped has nothing left to report to.
            let _ = tx.send(job);
        }
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        self.stopping.store(true, Ordering::SeqCst);
        self.jobs = None;
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn registry(store: &dyn RegistryStore) -> Registry {
    store
        .read()
        .ok()
        .and_then(|state| state.usable())
        // The status panel already reports a damaged registry.
        .unwrap_or_else(|| Registry::empty(String::new()))
}

/// What each active agent's pane shows (two tmux calls for all) and the
/// messages held for it.
fn screens(setup: &WorkerSetup, tmux: &Tmux) -> Vec<AgentScreen> {
    let registry = registry(setup.backend.registry.as_ref());
    let agents: Vec<&AgentRecord> = registry
        .agents
        .iter()
        .filter(|a| a.status == AgentStatus::Active)
        .collect();
    let states = pane_state::observe(
        tmux,
        &setup.matcher,
        &setup.messaging.delivery.profiles,
        &agents,
        setup.backend.shared_host(),
    );
    let held = setup.backend.held.list().unwrap_or_default();
    let now = Timestamp::now();
    agents
        .iter()
        .zip(states)
        .map(|(a, st)| {
            let mine: Vec<_> = held.iter().filter(|h| a.id == h.agent.as_str()).collect();
            AgentScreen {
                agent: a.id.to_string(),
                state: st.state,
                held: mine.len(),
                held_reason: mine.first().map(|h| h.reason.clone()),
                held_for: mine.first().map(|h| h.age(now)),
            }
        })
        .collect()
}

fn messenger<'a>(setup: &'a WorkerSetup, tmux: &'a Tmux) -> Messenger<'a> {
    Messenger {
        tmux,
        paths: &setup.paths,
        matcher: &setup.matcher,
        settings: setup.messaging.clone(),
        acks: &*setup.backend.acks,
        held: &*setup.backend.held,
        rates: &*setup.backend.rates,
        log: &*setup.backend.log,
        relay: setup.backend.relay.as_deref(),
    }
}

/// The same work as `swarm watch`'s housekeeping, with the outcome as
/// lines instead of printed output.
fn process_acks(setup: &WorkerSetup, tmux: &Tmux) -> Vec<(Level, String)> {
    let mut lines = take_handed_over(setup, tmux);
    lines.extend(release_held(setup, tmux));
    if !acks::work_due(&*setup.backend.acks, time::now()) {
        return lines;
    }
    lines.extend(process_due_acks(setup, tmux));
    lines
}

/// Messages other hosts handed to this one go into their panes (`swarm
/// watch` does the same, waiting for them between its rounds).
fn take_handed_over(setup: &WorkerSetup, tmux: &Tmux) -> Vec<(Level, String)> {
    let Some(relay) = setup.backend.relay.as_deref() else {
        return Vec::new();
    };
    let taken = match relay.take(std::time::Duration::from_millis(1)) {
        Ok(t) if t.is_empty() => return Vec::new(),
        Ok(t) => t,
        Err(e) => return vec![failed("could not take deliveries for this host", e)],
    };
    match messenger(setup, tmux).deliver_taken(&registry(setup.backend.registry.as_ref()), taken) {
        Ok((done, warnings)) => {
            let mut lines: Vec<(Level, String)> =
                warnings.into_iter().map(|w| (Level::Warn, w)).collect();
            for (to, id, outcome) in done {
                lines.push((
                    Level::Info,
                    format!(
                        "message {} from another host to {to}: {}",
                        acks::short(&id),
                        outcome.describe()
                    ),
                ));
            }
            lines
        }
        Err(e) => vec![failed("could not deliver what other hosts handed over", e)],
    }
}

/// Held messages whose pane is safe again go in (`swarm watch` does the
/// same).
fn release_held(setup: &WorkerSetup, tmux: &Tmux) -> Vec<(Level, String)> {
    if !setup.backend.held.any() {
        return Vec::new();
    }
    match messenger(setup, tmux).release_held(&registry(setup.backend.registry.as_ref())) {
        Ok(report) => {
            let mut lines: Vec<(Level, String)> = report
                .warnings
                .into_iter()
                .map(|w| (Level::Warn, w))
                .collect();
            for r in report.released {
                lines.push((
                    Level::Info,
                    format!(
                        "held message {} to {}: {}",
                        r.held.msg_id.short(),
                        r.held.agent,
                        r.outcome.describe()
                    ),
                ));
            }
            lines
        }
        Err(e) => vec![failed("could not deliver held messages", e)],
    }
}

fn process_due_acks(setup: &WorkerSetup, tmux: &Tmux) -> Vec<(Level, String)> {
    let report = match crate::messaging::process_due(
        &messenger(setup, tmux),
        &registry(setup.backend.registry.as_ref()),
        &setup.acks,
        time::now(),
    ) {
        Ok(r) => r,
        Err(e) => return vec![failed("could not process due ACK retries", e)],
    };
    let mut lines: Vec<(Level, String)> = report
        .warnings
        .into_iter()
        .map(|w| (Level::Warn, w))
        .collect();
    for (id, to, n, outcome) in report.retried {
        let how = if outcome.is_delivered() {
            "delivered"
        } else {
            "queued"
        };
        lines.push((
            Level::Info,
            format!("retry {n} of {} to {to}: {how}", acks::short(&id)),
        ));
    }
    for (id, to, _) in report.escalated {
        lines.push((
            Level::Warn,
            format!(
                "escalated {} (no acknowledgement from {to})",
                acks::short(&id)
            ),
        ));
    }
    lines
}

/// The line saying that `what` failed with `e`: `Level::Outage` when the
/// shared store did not answer (told once per outage), else an error.
pub(super) fn failed(what: &str, e: impl Into<Error>) -> (Level, String) {
    let e = e.into();
    let level = if e.is_store_outage() {
        Level::Outage
    } else {
        Level::Error
    };
    (level, format!("{what}: {e}"))
}

fn send(setup: &WorkerSetup, tmux: &Tmux, out: Outgoing) -> Vec<(Level, String)> {
    match try_send(setup, tmux, out) {
        Ok(report) => describe(&report),
        Err(e) => vec![(Level::Error, format!("not sent: {e}"))],
    }
}

fn try_send(setup: &WorkerSetup, tmux: &Tmux, out: Outgoing) -> Result<SendReport> {
    let msg_type = MessageType::parse(&out.msg_type, &setup.custom_types)?;
    let to = if out.to == "all" {
        Recipients::All {
            include_self: false,
        }
    } else {
        Recipients::One(out.to)
    };
    let req = SendRequest::new(setup.sender.clone(), to, msg_type, out.content);
    messenger(setup, tmux).send(&registry(setup.backend.registry.as_ref()), req)
}

fn describe(report: &SendReport) -> Vec<(Level, String)> {
    let m = &report.message;
    let mut lines: Vec<(Level, String)> = report
        .warnings
        .iter()
        .map(|w| (Level::Warn, w.clone()))
        .collect();
    if let Some(wait) = report.rate_limited {
        lines.push((
            Level::Warn,
            format!(
                "rate limited: {} saved to the inbox, not delivered; next send in {}s",
                m.msg_id.short(),
                wait.as_secs_f64().ceil()
            ),
        ));
        return lines;
    }
    let total = report.outcomes.len();
    let queued: Vec<&str> = report
        .outcomes
        .iter()
        .filter(|(_, o)| !o.is_delivered())
        .map(|(r, _)| r.as_str())
        .collect();
    let to = if total == 1 {
        m.recipients.join("")
    } else {
        format!("{total} agents")
    };
    if queued.is_empty() {
        lines.push((
            Level::Info,
            format!("sent {} to {to}: delivered", m.msg_type.as_str()),
        ));
    } else {
        let why = report
            .outcomes
            .iter()
            .find_map(|(_, o)| o.reason.clone())
            .unwrap_or_default();
        lines.push((
            Level::Warn,
            format!(
                "sent {} to {to}: queued for {} ({why})",
                m.msg_type.as_str(),
                queued.join(", ")
            ),
        ));
    }
    lines
}
