//! Holding a message back from a pane whose screen is not safe to type
//! into, and releasing what is held once it is: in order, each message
//! exactly once (it leaves the queue under the store's lock before it is
//! typed), with a delivery record for each. Kept by a `HeldStore`
//! (`held_store.rs`).

use std::time::{Duration, Instant};

use crate::agents::registry::AgentStatus;
use crate::domain::{AgentId, MessageId};
use crate::error::Result;
use crate::log::record::{DeliveryOutcome, DeliveryRecord, Record};

use super::held_store::{HeldMessage, ToHold};
use crate::messaging::ack_retry::Roster;
use crate::messaging::delivery::{self, DeliverySettings, PaneSession, Wait};
use crate::messaging::messenger::{Messenger, target_of};
use crate::messaging::send::Typed;

/// How long a release waits for a pane another delivery holds.
const RELEASE_LOCK_WAIT: Duration = Duration::from_millis(300);

/// A held message that left the queue, and what became of it.
#[derive(Clone, Debug)]
pub struct Released {
    /// The message as it was held.
    pub held: HeldMessage,
    /// Its outcome.
    pub outcome: DeliveryOutcome,
}

/// What one `release_held` round did.
#[derive(Clone, Debug, Default)]
pub struct ReleaseReport {
    /// Messages that left the queue, in order.
    pub released: Vec<Released>,
    /// Agents that still have held messages, with the reason.
    pub still_held: Vec<(String, String)>,
    /// Problems worth telling the user about.
    pub warnings: Vec<String>,
}

impl Messenger<'_> {
    /// Adds one message to the held queue and counts it on the pane
    /// (`@swarm_held`).
    pub(in crate::messaging) fn hold(
        &self,
        session: &PaneSession<'_>,
        agent: &str,
        typed: Typed<'_>,
        reason: &str,
    ) -> Result<()> {
        let holding = self.held.hold(ToHold {
            msg_id: &MessageId::from_stored(typed.msg_id),
            agent: &AgentId::parse(agent)?,
            text: typed.text,
            marker: typed.marker,
            reason,
            urgency: typed.urgency,
        })?;
        // The count is for the pane's own formats; the person is told by
        // swarm's notice in the status line, which the watcher keeps from
        // everything still open (so clearing it clears nothing else).
        let count = holding.count;
        let _ = self.tmux.notify_pane(session.pane(), "", count);
        Ok(())
    }

    /// Types the messages held for `agent`, in order, while its screen
    /// lets them in. Returns what went, and what still keeps messages
    /// back: an unsafe screen stops every message; a busy turn stops the
    /// normal ones (in order among themselves) while urgent ones go on
    /// past them. Each entry leaves the queue (under its lock) before it
    /// is typed, so two processes can never both type it.
    pub(in crate::messaging) fn release_pending(
        &self,
        session: &PaneSession<'_>,
        agent: &str,
    ) -> (Vec<Released>, Option<Wait>) {
        let pending: Vec<HeldMessage> = match self.held.list() {
            Ok(all) => all
                .into_iter()
                .filter(|h| h.agent.as_str() == agent)
                .collect(),
            Err(e) => {
                return (
                    Vec::new(),
                    Some(Wait::Unsafe(format!("could not read held messages: {e}"))),
                );
            }
        };
        let mut done = Vec::new();
        if pending.is_empty() {
            return (done, None);
        }
        // An agent at its usage limit gets nothing until it resets.
        if let Some(wait) = self.limit_wait(agent, None) {
            if pending.iter().any(|h| h.reason != wait.reason()) {
                let _ = self.held.set_reason(&pending[0].agent, wait.reason());
            }
            return (done, Some(wait));
        }
        let mut turn: Option<Wait> = None;
        for h in pending {
            // Normal messages keep their order: once one waits for the
            // turn, those after it wait too.
            if turn.is_some() && h.urgency.waits_for_turn() {
                continue;
            }
            if let Some(wait) = session.wait()
                && wait.stops(h.urgency)
            {
                if wait.reason() != h.reason {
                    let _ = self.held.set_reason(&h.agent, wait.reason());
                }
                match wait {
                    Wait::Unsafe(_) | Wait::Limited(_) => return (done, Some(wait)),
                    Wait::Turn(_) => {
                        turn = Some(wait);
                        continue;
                    }
                }
            }
            let taken = match self.held.release(h.seq) {
                Ok(taken) => taken,
                Err(e) => {
                    return (
                        done,
                        Some(Wait::Unsafe(format!(
                            "could not update the held messages: {e}"
                        ))),
                    );
                }
            };
            if !taken {
                continue;
            }
            let outcome = session.type_text(&h.text, &h.marker);
            done.push(Released { held: h, outcome });
        }
        if turn.is_none() {
            let _ = self.tmux.notify_pane(session.pane(), "", 0);
        }
        (done, turn)
    }

    /// Delivers held messages whose pane is safe again, for every agent
    /// that has some (oldest held first), and logs each outcome. Cheap when
    /// nothing is held (one failed `open`). A pane another delivery is busy
    /// with is left for the next round; so are the agents after the first
    /// once `until` has passed. An agent `roster` does not list keeps its
    /// messages held unless the roster is complete (then it left, and they
    /// go to its inbox).
    pub(crate) fn release_held(
        &self,
        roster: Roster<'_>,
        until: Option<Instant>,
    ) -> Result<ReleaseReport> {
        let registry = roster.registry;
        let held = self.held.list()?;
        let mut report = ReleaseReport::default();
        if held.is_empty() {
            return Ok(report);
        }
        let mut agents: Vec<AgentId> = Vec::new();
        for h in &held {
            if !agents.contains(&h.agent) {
                agents.push(h.agent.clone());
            }
        }
        let settings = DeliverySettings {
            lock_timeout: RELEASE_LOCK_WAIT,
            ..self.settings.delivery.clone()
        };
        for (i, agent) in agents.into_iter().enumerate() {
            if i > 0 && until.is_some_and(|t| Instant::now() >= t) {
                break;
            }
            if registry.find(agent.as_str()).is_none() && !roster.complete {
                report.still_held.push((
                    agent.to_string(),
                    "the registry read cannot say whether it is still there".into(),
                ));
                continue;
            }
            let record = registry
                .find(agent.as_str())
                .filter(|a| a.status != AgentStatus::Dead);
            // Held on another host: that host's watch releases them.
            if record.is_some_and(|a| self.elsewhere(a).is_some()) {
                continue;
            }
            let opened = match record {
                Some(a) => delivery::open(
                    self.tmux,
                    self.paths,
                    self.matcher,
                    &target_of(a),
                    &settings,
                ),
                None => Err(DeliveryOutcome::queued(format!(
                    "{agent} is no longer registered"
                ))),
            };
            match opened {
                Ok(session) => {
                    let (released, blocked) = self.release_pending(&session, agent.as_str());
                    report.released.extend(released);
                    if let Some(wait) = blocked {
                        report
                            .still_held
                            .push((agent.to_string(), wait.reason().to_owned()));
                    }
                }
                Err(outcome)
                    if outcome
                        .reason
                        .as_deref()
                        .is_some_and(|r| r.contains("delivery lock")) => {}
                Err(outcome) => {
                    // The agent left (or a shell took its pane): its held
                    // messages become ordinary queued ones, in the inbox.
                    for h in self.held.release_all(&agent)? {
                        report.released.push(Released {
                            held: h,
                            outcome: outcome.clone(),
                        });
                    }
                }
            }
        }
        report.warnings = self.log_released(&report.released)?;
        Ok(report)
    }

    /// Appends one delivery record per released message.
    pub(in crate::messaging) fn log_released(&self, released: &[Released]) -> Result<Vec<String>> {
        if released.is_empty() {
            return Ok(Vec::new());
        }
        let records: Vec<Record> = released
            .iter()
            .map(|r| {
                Record::Delivery(DeliveryRecord::new(
                    r.held.msg_id.as_str(),
                    &[(r.held.agent.to_string(), r.outcome.clone())],
                    Some("released: it had been held".into()),
                ))
            })
            .collect();
        Ok(self.log.append(&records)?)
    }
}
