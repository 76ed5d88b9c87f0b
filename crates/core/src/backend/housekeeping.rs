//! The housekeeping: work no one has to remember to start, done by
//! whichever front door comes round next: the ACK retries and escalations
//! that fell due, held messages whose pane is safe again, and the
//! deliveries other hosts handed to this one. `Chores` names what a front
//! door does; a round first makes the cheap checks (one small file read,
//! one failed `open`) and does nothing more when nothing is due. A front
//! door takes a bounded share, oldest obligation first (`Share`); the
//! watcher takes all. A registry that cannot be read whole never costs an
//! obligation: what it cannot vouch for waits (docs/RELIABILITY.md).

use std::time::{Duration, Instant};

use crate::acks;
use crate::agents::registry::Registry;
use crate::agents::registry_store::RegistryState;
use crate::error::Result;
use crate::messaging::{Portion, ProcessReport, Relayed, ReleaseReport, Roster, process_due};
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
    /// How much of the due ACK work and held messages the round takes on.
    pub share: Share,
}

/// How much of the due work one round takes on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Share {
    /// A front door's share, after its own work: the oldest due ACK retry
    /// or escalation always, then the next oldest while fewer than
    /// `COMMAND_MOST` went and `COMMAND_TIME` has not passed; likewise the
    /// held messages of the first agent, then the next agents' within
    /// `COMMAND_TIME`. Every command so moves the oldest obligation on,
    /// with no watcher running, and none spends long on the swarm's.
    #[default]
    Command,
    /// Everything that is due: the watcher's and the monitor's rounds.
    All,
}

/// A front door's share: at most this many retries and escalations.
const COMMAND_MOST: usize = 4;

/// A front door's share: no new retry, escalation or agent's held
/// messages started after this long.
const COMMAND_TIME: Duration = Duration::from_millis(50);

impl Share {
    /// The end of this share's time, starting now (`None`: no end).
    fn until(self) -> Option<Instant> {
        match self {
            Share::Command => Some(Instant::now() + COMMAND_TIME),
            Share::All => None,
        }
    }
}

impl Chores {
    /// What a command that changed the swarm does after its own work.
    pub const AFTER_COMMAND: Chores = Chores {
        ack_retries: true,
        held: true,
        relay_wait: None,
        share: Share::Command,
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

/// The registry as one round read it, and whether it was read whole.
struct RosterRead {
    registry: Registry,
    complete: bool,
}

impl Operator {
    /// Does `chores`: the ACK retries first, then the held messages, and
    /// last the relay, whose wait must not hold up work already due. The
    /// registry is read once, and only when some work needs it.
    pub fn housekeeping(&self, chores: Chores) -> Housekeeping {
        let mut done = Housekeeping::default();
        let mut roster = None;
        if chores.ack_retries && acks::work_due(&*self.backend.acks, time::now()) {
            let portion = chores.share.until().map(|until| Portion {
                most: COMMAND_MOST,
                until,
            });
            done.acks = Some(
                self.roster(&mut roster, &mut done.registry_notes)
                    .and_then(|r| {
                        process_due(&self.messenger(), r, &self.acks, time::now(), portion)
                    }),
            );
        }
        if chores.held && self.backend.held.any() {
            // A window of its own: due ACKs never keep held messages back.
            let until = chores.share.until();
            done.held = Some(
                self.roster(&mut roster, &mut done.registry_notes)
                    .and_then(|r| self.messenger().release_held(r, until)),
            );
        }
        if let (Some(wait), Some(relay)) = (chores.relay_wait, self.backend.relay.as_deref()) {
            let taken = relay.take(wait);
            done.handed_over = Some(taken.map_err(Into::into).and_then(|taken| {
                if taken.is_empty() {
                    return Ok(HandedOver::default());
                }
                let r = self.roster(&mut roster, &mut done.registry_notes)?;
                let (delivered, warnings) = self.messenger().deliver_taken(r.registry, taken)?;
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
    /// A damaged registry is moved aside and read as an incomplete empty
    /// one; so is a missing one: neither can say an agent left, so nothing
    /// is escalated to nobody or dropped on its word.
    fn roster<'r>(
        &self,
        slot: &'r mut Option<RosterRead>,
        notes: &mut Vec<String>,
    ) -> Result<Roster<'r>> {
        if slot.is_none() {
            *slot = Some(self.read_roster(notes)?);
        }
        let read = slot.get_or_insert_with(|| RosterRead {
            registry: Registry::default(),
            complete: false,
        });
        Ok(Roster {
            registry: &read.registry,
            complete: read.complete,
        })
    }

    fn read_roster(&self, notes: &mut Vec<String>) -> Result<RosterRead> {
        let store = self.backend.registry.as_ref();
        let location = store.location();
        Ok(match store.read()? {
            RegistryState::Valid(registry, skipped) => {
                let complete = skipped.is_empty();
                notes.extend(
                    skipped
                        .into_iter()
                        .map(|s| format!("{location}: ignored {s}")),
                );
                RosterRead { registry, complete }
            }
            RegistryState::Missing => RosterRead {
                registry: Registry::default(),
                complete: false,
            },
            RegistryState::Corrupt(why) => {
                let kept = match store.set_aside_damaged() {
                    Ok(Some(aside)) => format!("moved it to {aside}"),
                    Ok(None) => "left it in place".to_owned(),
                    Err(e) => format!("could not move it aside ({e})"),
                };
                notes.push(format!(
                    "{location} is damaged ({why}); {kept}. Pending ACKs and held messages \
                     wait, none escalated or dropped, until `swarm discover` rebuilds it"
                ));
                RosterRead {
                    registry: Registry::default(),
                    complete: false,
                }
            }
        })
    }
}
