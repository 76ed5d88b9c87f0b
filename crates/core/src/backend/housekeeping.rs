//! The housekeeping: work no one has to remember to start, done by
//! whichever front door comes round next: the ACK retries and escalations
//! that fell due, held messages whose pane is safe again, and the
//! deliveries other hosts handed to this one. `Chores` names what a front
//! door does; a round first makes the cheap checks (one small file read,
//! one failed `open`) and does nothing more when nothing is due.

use std::time::Duration;

use crate::acks;
use crate::agents::registry::Registry;
use crate::error::Result;
use crate::messaging::{ProcessReport, Relayed, ReleaseReport, process_due};
use crate::support::time;

use super::Backend;
use super::operator::Operator;

/// Which work a round does.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Chores {
    /// Send the ACK retries and escalations that are due.
    pub ack_retries: bool,
    /// Type held messages into panes that are safe again.
    pub held: bool,
    /// Take the deliveries other hosts handed to this one, waiting up to
    /// this long for the first (`None`: not at all). A store without a
    /// relay (one host) has none to take.
    pub relay_wait: Option<Duration>,
}

impl Chores {
    /// What a command that changed the swarm does after its own work.
    pub const AFTER_COMMAND: Chores = Chores {
        ack_retries: true,
        held: true,
        relay_wait: None,
    };

    /// Whether any of this work may be due: the cheap checks a round makes
    /// first (the ACKs' due time, whether anything is held, whether there is
    /// a relay to ask).
    pub fn due(&self, backend: &Backend) -> bool {
        (self.relay_wait.is_some() && backend.relay.is_some())
            || (self.ack_retries && acks::work_due(&*backend.acks, time::now()))
            || (self.held && backend.held.any())
    }
}

/// What other hosts handed to this one, typed in.
#[derive(Debug, Default)]
pub struct HandedOver {
    /// (recipient, message id, outcome) per delivery.
    pub delivered: Relayed,
    /// Problems worth telling.
    pub warnings: Vec<String>,
}

/// What one round did, chore by chore: `None` when the chore was not
/// asked for or nothing was due, else what it did or why it failed (the
/// other chores are done all the same).
#[derive(Debug, Default)]
pub struct Housekeeping {
    /// The ACK retries and escalations sent.
    pub acks: Option<Result<ProcessReport>>,
    /// The held messages released, and those still held.
    pub held: Option<Result<ReleaseReport>>,
    /// What the relay gave this host (asked whenever `relay_wait` is set
    /// and the store has a relay, so the wait was spent).
    pub handed_over: Option<Result<HandedOver>>,
    /// What reading the registry found worth telling (entries ignored,
    /// damage), when a chore read it.
    pub registry_notes: Vec<String>,
}

impl Operator {
    /// Does `chores`: the ACK retries first, then the held messages, and
    /// last the relay, whose wait must not hold up work already due. The
    /// registry is read once, and only when some work needs it.
    pub fn housekeeping(&self, chores: Chores) -> Housekeeping {
        let mut done = Housekeeping::default();
        let mut registry = None;
        if chores.ack_retries && acks::work_due(&*self.backend.acks, time::now()) {
            done.acks = Some(
                self.loaded(&mut registry, &mut done.registry_notes)
                    .and_then(|r| process_due(&self.messenger(), r, &self.acks, time::now())),
            );
        }
        if chores.held && self.backend.held.any() {
            done.held = Some(
                self.loaded(&mut registry, &mut done.registry_notes)
                    .and_then(|r| self.messenger().release_held(r)),
            );
        }
        if let (Some(wait), Some(relay)) = (chores.relay_wait, self.backend.relay.as_deref()) {
            let taken = relay.take(wait);
            done.handed_over = Some(taken.map_err(Into::into).and_then(|taken| {
                if taken.is_empty() {
                    return Ok(HandedOver::default());
                }
                let r = self.loaded(&mut registry, &mut done.registry_notes)?;
                let (delivered, warnings) = self.messenger().deliver_taken(r, taken)?;
                Ok(HandedOver {
                    delivered,
                    warnings,
                })
            }));
        }
        done
    }

    /// The registry in `slot`, read into it (with its notes) when it is
    /// not there yet; a read that failed is tried again by the next chore.
    fn loaded<'r>(
        &self,
        slot: &'r mut Option<Registry>,
        notes: &mut Vec<String>,
    ) -> Result<&'r Registry> {
        if slot.is_none() {
            let (registry, more) = self.registry()?;
            notes.extend(more);
            *slot = Some(registry);
        }
        Ok(slot.get_or_insert_with(Registry::default))
    }
}
