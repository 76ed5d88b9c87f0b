//! The monitor's worker thread: sends the messages written in the monitor,
//! answers the dialogs the person answers in it, and sends the ACK
//! retries and escalations that fall due (as `swarm watch` does). A
//! delivery or an answer waits on the agent's pane for a moment; doing it
//! here keeps the screen live meanwhile. Jobs run one at a time, in order.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Sender};
use std::thread::JoinHandle;
use std::time::Duration;

use swarm_core::agents::pane_state;
use swarm_core::ops::{self, Answer, AnswerPlan, BroadcastPlan, SendPlan};
use swarm_core::read_dialog;
use swarm_core::support::sanitize;
use swarm_core::{
    AgentId, AgentRecord, AgentStatus, Choice, Chores, Error, MessageType, Operator, PaneState,
    Result, SendReport, Share, Sight, Timestamp, now_secs,
};

use super::spend::{self, Spending};
use super::state::{AgentScreen, Answering, Level, Outgoing, Reply, ScreenDialog};

/// What the worker needs, owned (it runs on its own thread).
#[derive(Debug)]
pub struct WorkerSetup {
    /// What it acts with.
    pub op: Operator,
    /// Sender id of messages written in the monitor.
    pub sender: String,
}

/// The housekeeping of each round: what `swarm watch` does, taking what
/// other hosts handed over without waiting for it (the screen stays live).
pub(super) const CHORES: Chores = Chores {
    ack_retries: true,
    held: true,
    relay_wait: Some(Duration::from_millis(1)),
    share: Share::All,
};

/// A job for the worker.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Job {
    /// Send what is due of the ACK retries and escalations, and held
    /// messages whose pane is safe again.
    ProcessAcks,
    /// Send a message written in the monitor.
    Send(Outgoing),
    /// Answer a dialog as the person chose.
    Answer(Answering),
    /// Read what each agent's pane shows, and what is held for it.
    Screens,
    /// Read what each agent's usage records gained, and how each stands
    /// against the budget.
    Usage,
}

/// What a job did, as lines for the user.
#[derive(Clone, Debug, PartialEq)]
pub enum Report {
    /// The outcome of `Job::Send`.
    Sent(Vec<(Level, String)>),
    /// The outcome of `Job::ProcessAcks` (empty when nothing was due).
    Acks(Vec<(Level, String)>),
    /// The outcome of `Job::Answer`.
    Answered(Vec<(Level, String)>),
    /// The outcome of `Job::Screens`.
    Screens(Vec<AgentScreen>),
    /// The outcome of `Job::Usage`: each agent's usage (`None` when it
    /// could not be read), and what to tell about reading it.
    Usage(Option<Spending>, Vec<(Level, String)>),
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
            while let Ok(job) = rx.recv() {
                if stop.load(Ordering::SeqCst) {
                    return;
                }
                report(match job {
                    Job::ProcessAcks => Report::Acks(housekeeping(&setup.op)),
                    Job::Send(out) => Report::Sent(send(&setup, out)),
                    Job::Answer(a) => Report::Answered(answer(&setup, a)),
                    Job::Screens => Report::Screens(screens(&setup.op)),
                    Job::Usage => {
                        let (spend, lines) = usage(&setup.op);
                        Report::Usage(spend, lines)
                    }
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

/// What each active agent's pane shows (two tmux calls for all), the
/// dialog on it, and the messages held for it.
fn screens(op: &Operator) -> Vec<AgentScreen> {
    // The status panel already reports a registry that cannot be read.
    let registry = op.registry().map(|(r, _)| r).unwrap_or_default();
    let agents: Vec<&AgentRecord> = registry
        .agents
        .iter()
        .filter(|a| a.status == AgentStatus::Active)
        .collect();
    let sights = pane_state::look(
        &op.tmux,
        &op.matcher,
        &op.messaging.delivery.profiles,
        &agents,
        op.backend.shared_host(),
    );
    let held = op.backend.held.list().unwrap_or_default();
    let limits = op.backend.limits.read().unwrap_or_default();
    let now = Timestamp::now();
    agents
        .iter()
        .zip(sights)
        .map(|(a, sight)| {
            let state = PaneState::from_sight(&sight, a.id.as_str()).state;
            let dialog = match &sight {
                Sight::Screen(_, Some(capture)) if state == "dialog" => {
                    read_dialog(capture).map(|d| ScreenDialog {
                        question: d.question.clone(),
                        options: d
                            .options
                            .iter()
                            .map(|o| (o.number, o.label.clone()))
                            .collect(),
                        fingerprint: d.fingerprint(),
                    })
                }
                _ => None,
            };
            let mine: Vec<_> = held.iter().filter(|h| a.id == h.agent.as_str()).collect();
            AgentScreen {
                agent: a.id.to_string(),
                state,
                held: mine.len(),
                held_reason: mine.first().map(|h| h.reason.clone()),
                held_for: mine.first().map(|h| h.age(now)),
                dialog,
                limited: limits.of_agent(a.id.as_str()).map(|r| r.describe()),
            }
        })
        .collect()
}

/// Each local agent's usage as `swarm usage` reads it (only what its
/// records gained since the last look), with notes about agents whose
/// records could not be found.
fn usage(op: &Operator) -> (Option<Spending>, Vec<(Level, String)>) {
    let tally = op.tally();
    let registry = match op.registry() {
        Ok((r, _)) => r,
        // The status panel already reports a registry that cannot be read.
        Err(_) => return (None, Vec::new()),
    };
    // Nothing to look for: no reading of every process's details.
    if registry.agents.is_empty() {
        return (Some(Spending::new()), Vec::new());
    }
    match tally.refresh(&registry, op.backend.shared_host()) {
        Ok((ledger, notes)) => {
            let standing = tally.standing(&ledger, &registry, now_secs());
            let report = tally.report(&ledger, &standing, None, None);
            let notes = notes.into_iter().map(|n| (Level::Warn, n)).collect();
            (Some(spend::from_report(&report)), notes)
        }
        Err(e) => (None, vec![failed("could not read the agents' usage", e)]),
    }
}

/// Answers a dialog as `swarm answer` does, for the monitor's sender.
fn answer(setup: &WorkerSetup, a: Answering) -> Vec<(Level, String)> {
    let op = &setup.op;
    let answer = match a.reply {
        Reply::Yes => Answer::Pick(Choice::Yes),
        Reply::No => Answer::Pick(Choice::No),
        Reply::Option(n) => Answer::Pick(Choice::Number(n)),
        Reply::Cancel => Answer::Escape,
    };
    let done = AgentId::parse(&a.agent)
        .map_err(|e| Error::Invalid(format!("agent: {e}")))
        .and_then(|agent| {
            let registry = op.registry()?.0;
            let plan = AnswerPlan::new(agent, answer, &setup.sender).seen(a.dialog.as_deref());
            ops::answer(op, &registry, &plan)
        });
    match done {
        Ok(ops::AnswerReport {
            answered: done,
            warnings,
        }) => {
            let mut lines: Vec<(Level, String)> =
                warnings.into_iter().map(|w| (Level::Warn, w)).collect();
            let seen = if done.closed {
                "the dialog closed"
            } else {
                "the dialog is still on its screen"
            };
            lines.push((
                Level::Info,
                format!(
                    "answered {}'s dialog \"{}\": {} ({seen})",
                    done.agent,
                    sanitize::one_line(&done.question),
                    done.picked()
                ),
            ));
            lines
        }
        Err(e) => vec![(Level::Error, format!("not answered: {e}"))],
    }
}

/// The same work as `swarm watch`'s housekeeping, with the outcome as
/// lines instead of printed output: what other hosts handed over, then
/// the held messages, then the ACK retries and escalations.
fn housekeeping(op: &Operator) -> Vec<(Level, String)> {
    let done = op.housekeeping(CHORES);
    let mut lines = Vec::new();
    match done.handed_over {
        Some(Ok(got)) => {
            lines.extend(got.warnings.into_iter().map(|w| (Level::Warn, w)));
            for (to, id, outcome) in got.delivered {
                lines.push((
                    Level::Info,
                    format!(
                        "message {} from another host to {to}: {}",
                        swarm_core::domain::short(&id),
                        outcome.describe()
                    ),
                ));
            }
        }
        Some(Err(e)) => lines.push(failed("could not take deliveries for this host", e)),
        None => {}
    }
    match done.held {
        Some(Ok(report)) => {
            lines.extend(report.warnings.into_iter().map(|w| (Level::Warn, w)));
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
        }
        Some(Err(e)) => lines.push(failed("could not deliver held messages", e)),
        None => {}
    }
    match done.acks {
        Some(Ok(report)) => {
            lines.extend(report.warnings.into_iter().map(|w| (Level::Warn, w)));
            for (id, to, n, outcome) in report.retried {
                let how = if outcome.is_delivered() {
                    "delivered"
                } else {
                    "queued"
                };
                lines.push((
                    Level::Info,
                    format!(
                        "retry {n} of {} to {to}: {how}",
                        swarm_core::domain::short(&id)
                    ),
                ));
            }
            for (id, to, _) in report.escalated {
                lines.push((
                    Level::Warn,
                    format!(
                        "escalated {} (no acknowledgement from {to})",
                        swarm_core::domain::short(&id)
                    ),
                ));
            }
        }
        Some(Err(e)) => lines.push(failed("could not process due ACK retries", e)),
        None => {}
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

fn send(setup: &WorkerSetup, out: Outgoing) -> Vec<(Level, String)> {
    match try_send(setup, out) {
        Ok(report) => describe(&report),
        Err(e) => vec![(Level::Error, format!("not sent: {e}"))],
    }
}

fn try_send(setup: &WorkerSetup, out: Outgoing) -> Result<SendReport> {
    let op = &setup.op;
    let msg_type = MessageType::parse(&out.msg_type, &op.custom_types)?;
    let registry = op.registry()?.0;
    if out.to == "all" {
        let plan = BroadcastPlan::new(&setup.sender, msg_type, out.content);
        ops::broadcast(op, &registry, &plan)
    } else {
        let plan = SendPlan::new(&setup.sender, &out.to, msg_type, out.content);
        ops::send(op, &registry, &plan)
    }
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
