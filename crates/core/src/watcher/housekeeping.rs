//! The watcher's housekeeping, each round and while a round waits on the
//! relay: the ACK retries and escalations that are due, held messages
//! whose pane is safe again, deliveries other hosts handed to this one
//! (`Operator::housekeeping`), and the messages agents accepted through
//! their own channels, followed to taken, expired or dropped
//! (`native::follow`). What it did is told; what the activity feed
//! records of it (an escalation, a held message that went in, a followed
//! message taken) is returned for the round to write.

use std::time::Duration;

use crate::attention::event::{EventKind, FeedEntry};
use crate::backend::{Chores, Housekeeping, Operator, Share};
use crate::native::follow;
use crate::support::sanitize;

use super::outage::Tell;

/// A round's housekeeping: everything that is due, and what other hosts
/// handed over within `relay_wait`. Its feed lines.
pub(super) fn round(
    op: &Operator,
    relay_wait: Option<Duration>,
    tell: &mut Tell<'_>,
) -> Vec<FeedEntry> {
    let chores = Chores {
        ack_retries: true,
        held: true,
        relay_wait,
        share: Share::All,
    };
    told(op.housekeeping(chores), tell)
}

/// Takes and types in what other hosts hand to this one, waiting up to
/// `wait` for the first. Its feed lines.
pub(super) fn handed_over(op: &Operator, wait: Duration, tell: &mut Tell<'_>) -> Vec<FeedEntry> {
    let chores = Chores {
        relay_wait: Some(wait),
        ..Chores::default()
    };
    told(op.housekeeping(chores), tell)
}

/// Follows the messages agents accepted through their own channels and
/// had not taken yet: what became of each is logged, and its feed line
/// returned.
pub(super) fn followed(op: &Operator, tell: &mut Tell<'_>) -> Vec<FeedEntry> {
    let round = follow::follow(&op.paths, &*op.backend.log);
    for w in round.warnings {
        tell.warn(w);
    }
    round
        .changes
        .iter()
        .map(follow::Change::feed_entry)
        .collect()
}

/// Tells what one housekeeping did; its feed lines.
fn told(done: Housekeeping, tell: &mut Tell<'_>) -> Vec<FeedEntry> {
    let mut feed = Vec::new();
    for note in done.registry_notes {
        tell.warn(note);
    }
    match done.acks {
        Some(Ok(report)) => {
            for w in report.warnings {
                tell.warn(w);
            }
            for (id, to, n, outcome) in &report.retried {
                let how = if outcome.is_delivered() {
                    "delivered"
                } else {
                    "queued"
                };
                tell.did(format!("retry {n} of {} to {to}: {how}", short(id)));
            }
            for (id, to, _) in &report.escalated {
                tell.did(format!(
                    "escalated {} (no acknowledgement from {to})",
                    short(id)
                ));
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
        Some(Err(e)) => tell.failed("could not process due ACK retries", &e),
        None => {}
    }
    match done.held {
        Some(Ok(report)) => {
            for w in report.warnings {
                tell.warn(w);
            }
            for r in &report.released {
                let what = sanitize::one_line(&r.outcome.describe());
                tell.did(format!(
                    "held message {} to {}: {what}",
                    r.held.msg_id.short(),
                    r.held.agent
                ));
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
        Some(Err(e)) => tell.failed("could not deliver held messages", &e),
        None => {}
    }
    match done.handed_over {
        Some(Ok(got)) => {
            for w in got.warnings {
                tell.warn(w);
            }
            for (to, id, outcome) in &got.delivered {
                tell.did(format!(
                    "message {} from another host to {to}: {}",
                    short(id),
                    sanitize::one_line(&outcome.describe())
                ));
            }
        }
        Some(Err(e)) => tell.failed("could not take deliveries for this host", &e),
        None => {}
    }
    feed
}

/// A message id as people read it.
pub(super) fn short(id: &str) -> String {
    crate::acks::short(id).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Error;
    use crate::log::record::DeliveryOutcome;
    use crate::messaging::held::held_store::HeldMessage;
    use crate::messaging::held::release::Released;
    use crate::messaging::{ProcessReport, ReleaseReport};
    use crate::watcher::Said;
    use crate::watcher::outage::tests::heard;

    const ID: &str = "0123456789abcdef0123456789abcdef";

    fn held(outcome: DeliveryOutcome) -> Released {
        Released {
            held: HeldMessage {
                seq: 1,
                msg_id: crate::domain::MessageId::from_stored(ID),
                agent: "agent-1".parse().expect("agent"),
                text: "hello".into(),
                marker: "hello".into(),
                reason: "busy".into(),
                since: crate::domain::Timestamp::now(),
                urgency: Default::default(),
            },
            outcome,
        }
    }

    #[test]
    fn an_escalation_and_a_message_that_went_in_are_the_feed_lines() {
        let done = Housekeeping {
            acks: Some(Ok(ProcessReport {
                retried: vec![(ID.into(), "agent-2".into(), 2, DeliveryOutcome::delivered())],
                escalated: vec![(ID.into(), "agent-3".into(), "esc".into())],
                ..ProcessReport::default()
            })),
            held: Some(Ok(ReleaseReport {
                released: vec![
                    held(DeliveryOutcome::delivered()),
                    held(DeliveryOutcome::queued("busy")),
                ],
                ..ReleaseReport::default()
            })),
            handed_over: None,
            registry_notes: vec!["an entry was ignored".into()],
        };
        let mut feed = Vec::new();
        let (said, outage) = heard(|tell| feed = told(done, tell));
        let kinds: Vec<(EventKind, Option<String>)> =
            feed.iter().map(|e| (e.event, e.agent.clone())).collect();
        assert_eq!(
            kinds,
            [
                (EventKind::AckEscalated, Some("agent-3".into())),
                (EventKind::MessageReleased, Some("agent-1".into())),
            ]
        );
        assert!(feed.iter().all(|e| e.msg_id.as_deref() == Some(ID)));
        assert_eq!(said[0], Said::Warning("an entry was ignored".into()));
        assert_eq!(said.len(), 5, "{said:?}");
        assert!(
            matches!(&said[1], Said::Did(l) if l.starts_with("retry 2 of ") && l.ends_with("to agent-2: delivered")),
            "{said:?}"
        );
        assert!(!outage.failed_this_round());
    }

    #[test]
    fn a_failed_chore_is_told_and_the_others_still_are() {
        let done = Housekeeping {
            acks: Some(Err(Error::Usage("the acks are damaged".into()))),
            held: Some(Ok(ReleaseReport {
                released: vec![held(DeliveryOutcome::delivered())],
                ..ReleaseReport::default()
            })),
            ..Housekeeping::default()
        };
        let mut feed = Vec::new();
        let (said, _) = heard(|tell| feed = told(done, tell));
        assert_eq!(
            said[0],
            Said::Warning("could not process due ACK retries: the acks are damaged".into())
        );
        assert_eq!(feed.len(), 1);
    }
}
