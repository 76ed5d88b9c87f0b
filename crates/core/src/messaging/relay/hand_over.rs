//! Handing deliveries between the hosts of one swarm: a recipient whose
//! pane is on another host gets its delivery through the `Relay`
//! (`relay_store.rs`), and what other hosts handed to this one is typed in
//! here through the same path as a local send, its outcome logged before
//! it is marked done.

use crate::agents::registry::{AgentRecord, AgentStatus, Registry};
use crate::error::Result;
use crate::log::record::{DeliveryOutcome, DeliveryRecord, Record};

use super::relay_store::{HandedOver, Handoff, TakenHandoff};
use crate::messaging::messenger::Messenger;
use crate::messaging::send::Typed;

/// (recipient, message id, outcome) of one delivery taken from the relay.
pub(crate) type RelayedOne = (String, String, DeliveryOutcome);

/// What the deliveries taken from the relay came to.
pub(crate) type Relayed = Vec<RelayedOne>;

impl Messenger<'_> {
    /// The host of `agent`'s pane when it is another host than this one.
    pub(in crate::messaging) fn elsewhere<'r>(&self, agent: &'r AgentRecord) -> Option<&'r str> {
        let here = self.relay?.host();
        agent.host.as_deref().filter(|there| *there != here)
    }

    /// Hands the deliveries to `agents` (each with the other host its pane
    /// is on) over to those hosts, one batch per host, so that each host's
    /// watcher wakes to its whole share at once; each message waits in its
    /// recipient's inbox until that host types it in. Outcomes in the
    /// order of `agents`.
    pub(in crate::messaging) fn hand_over_all(
        &self,
        agents: &[(&AgentRecord, &str)],
        typed: Typed<'_>,
    ) -> Vec<DeliveryOutcome> {
        let Some(relay) = self.relay else {
            return agents
                .iter()
                .map(|(a, host)| DeliveryOutcome::queued(format!("{} is on host {host}", a.id)))
                .collect();
        };
        let mut outcomes: Vec<Option<DeliveryOutcome>> = vec![None; agents.len()];
        let mut hosts: Vec<&str> = agents.iter().map(|(_, h)| *h).collect();
        hosts.sort_unstable();
        hosts.dedup();
        for host in hosts {
            let share: Vec<usize> = (0..agents.len()).filter(|&i| agents[i].1 == host).collect();
            let handoffs: Vec<Handoff> = share
                .iter()
                .map(|&i| Handoff {
                    msg_id: typed.msg_id.to_owned(),
                    agent: agents[i].0.id.to_string(),
                    text: typed.text.to_owned(),
                    marker: typed.marker.to_owned(),
                    from: relay.host().to_owned(),
                    note: None,
                    urgency: typed.urgency,
                })
                .collect();
            let said = relay.hand_over_all(host, &handoffs);
            for (k, &i) in share.iter().enumerate() {
                let id = &agents[i].0.id;
                outcomes[i] = Some(match &said {
                    Ok(said) => match said.get(k) {
                        Some(HandedOver::AlreadyWaiting) => DeliveryOutcome::queued(format!(
                            "{id} is on host {host}: it already waits there for its swarm watch"
                        )),
                        _ => DeliveryOutcome::queued(format!(
                            "{id} is on host {host}: its swarm watch delivers it"
                        )),
                    },
                    Err(e) => DeliveryOutcome::queued(format!(
                        "{id} is on host {host}, and it could not be handed over ({e})"
                    )),
                });
            }
        }
        outcomes.into_iter().flatten().collect()
    }

    /// Types the deliveries this host took from the relay into their
    /// panes, records each outcome in the log, and only then marks them
    /// done, so that a crash in between leaves them to be taken again.
    /// The deliveries of one message (a broadcast's share for this host)
    /// go in together, as a local broadcast does: screens read in one
    /// look, pastes started together. Returns (recipient, message id,
    /// outcome) for each.
    pub(crate) fn deliver_taken(
        &self,
        registry: &Registry,
        taken: Vec<TakenHandoff>,
    ) -> Result<(Relayed, Vec<String>)> {
        let Some(relay) = self.relay else {
            return Ok((Vec::new(), Vec::new()));
        };
        let mut done = Vec::new();
        let mut warnings = Vec::new();
        let mut finished = Vec::new();
        for group in same_delivery(taken) {
            match self.deliver_group(registry, &group) {
                Ok((outcomes, more)) => {
                    warnings.extend(more);
                    done.extend(outcomes);
                    finished.extend(group);
                }
                Err(e) => {
                    // What went in is marked done before the error is
                    // told; the rest is taken again.
                    relay.done(&finished)?;
                    return Err(e);
                }
            }
        }
        relay.done(&finished)?;
        Ok((done, warnings))
    }

    /// Deliveries taken from the relay that carry one message with one
    /// text: typed into the recipients whose panes are here in one go,
    /// the others (moved to another host, or gone) recorded as waiting.
    fn deliver_group(
        &self,
        registry: &Registry,
        group: &[TakenHandoff],
    ) -> Result<(Relayed, Vec<String>)> {
        let mut warnings = Vec::new();
        let mut relayed = Vec::new();
        let mut here: Vec<AgentRecord> = Vec::new();
        let mut away: Vec<(String, DeliveryOutcome)> = Vec::new();
        let mut first: Option<&Handoff> = None;
        for t in group {
            let Some(h) = &t.handoff else {
                warnings.push(format!(
                    "skipped delivery {} handed to this host: it cannot be read",
                    t.id
                ));
                continue;
            };
            first.get_or_insert(h);
            match registry
                .find(&h.agent)
                .filter(|a| a.status != AgentStatus::Dead)
            {
                Some(a) if self.elsewhere(a).is_none() => {
                    if !here.iter().any(|b| b.id == a.id) {
                        here.push(a.clone());
                    }
                }
                // It moved to another host meanwhile, or left: recorded
                // as waiting in its inbox.
                found => away.push((
                    h.agent.clone(),
                    DeliveryOutcome::queued(match found.and_then(|a| a.host.as_deref()) {
                        Some(host) => format!("{} is now on host {host}", h.agent),
                        None => format!("{} is no longer registered", h.agent),
                    }),
                )),
            }
        }
        let Some(h) = first else {
            return Ok((relayed, warnings));
        };
        let note = Some(h.note.clone().map_or_else(
            || format!("from host {}", h.from),
            |n| format!("{n}, from host {}", h.from),
        ));
        if !here.is_empty() {
            let typed = Typed {
                msg_id: &h.msg_id,
                text: &h.text,
                marker: &h.marker,
                urgency: h.urgency,
                from_person: false,
            };
            let (outcomes, more) = self.deliver_logged(typed, &here, note.clone(), None)?;
            warnings.extend(more);
            relayed.extend(
                outcomes
                    .into_iter()
                    .map(|(agent, o)| (agent, h.msg_id.clone(), o)),
            );
        }
        if !away.is_empty() {
            warnings.extend(self.log.append(&[Record::Delivery(DeliveryRecord::new(
                &h.msg_id, &away, note,
            ))])?);
            relayed.extend(
                away.into_iter()
                    .map(|(agent, o)| (agent, h.msg_id.clone(), o)),
            );
        }
        Ok((relayed, warnings))
    }
}

/// `taken` in groups of one delivery each: consecutive-or-not deliveries
/// of the same message with the same text, marker and note form one group
/// (a broadcast's recipients on this host), in the order first taken. A
/// delivery that cannot be read is a group of its own.
fn same_delivery(taken: Vec<TakenHandoff>) -> Vec<Vec<TakenHandoff>> {
    fn key(t: &TakenHandoff) -> Option<(&str, &str, &str, Option<&str>)> {
        t.handoff.as_ref().map(|h| {
            (
                h.msg_id.as_str(),
                h.text.as_str(),
                h.marker.as_str(),
                h.note.as_deref(),
            )
        })
    }
    let mut groups: Vec<Vec<TakenHandoff>> = Vec::new();
    for t in taken {
        let slot = key(&t).and_then(|k| {
            groups
                .iter()
                .position(|g| g.first().and_then(key) == Some(k))
        });
        match slot {
            Some(i) => groups[i].push(t),
            None => groups.push(vec![t]),
        }
    }
    groups
}
