//! What one hook run does for the agent it runs for: the attention
//! condition its event opens or closes goes through the same shared
//! episodes as the screen's looks (so an episode is raised once, whichever
//! sees it first) and, when this run opened it, into the activity feed
//! with `"source": "hook"`; a prompt event confirms the deliveries of the
//! messages it holds. The watcher notifies what the feed gets.

use super::payload::{self, FailureReason, HookEvent, Signal};
use super::sightings::{HookSightings, Report};
use crate::agents::registry::AgentRecord;
use crate::attention::episodes::episode_store::{HOOK_KEY, Transition};
use crate::attention::event::{EventKind, FeedEntry, Source};
use crate::backend::Operator;
use crate::domain::Timestamp;
use crate::log::index::MessageIndex;
use crate::log::record::{DeliveryOutcome, DeliveryRecord, Record};

/// What a hook run did.
#[derive(Clone, Debug, Default)]
pub struct Handled {
    /// The feed lines it wrote (the episodes it was first to open).
    pub raised: Vec<FeedEntry>,
    /// The episodes it closed.
    pub closed: Vec<EventKind>,
    /// The messages whose delivery it confirmed (full ids).
    pub confirmed: Vec<String>,
    /// What went wrong on the way (for the hook's log; the agent is never
    /// stopped by it).
    pub errors: Vec<String>,
}

/// Handles `event` for `agent`, seen at `at`.
pub fn handle(op: &Operator, agent: &AgentRecord, event: &HookEvent, at: Timestamp) -> Handled {
    let mut done = Handled::default();
    let id = agent.id.as_str();
    let short_ids = match &event.signal {
        Signal::Prompt { text } => payload::message_ids(text),
        _ => Vec::new(),
    };
    let pane = agent.tmux_pane_id.as_ref().map(|p| p.as_str().to_owned());
    let report = Report {
        agent: id,
        vendor: event.vendor.as_str(),
        pane: pane.as_deref(),
        event: &event.name,
        turn_end: matches!(event.signal, Signal::Finished | Signal::TurnFailed(_)),
        prompt: matches!(event.signal, Signal::Prompt { .. }),
        confirmed: &short_ids,
    };
    if let Err(e) = HookSightings::new(&op.paths).record(&report, at) {
        done.errors.push(format!("could not record the hook: {e}"));
    }
    let close = |kind: EventKind, done: &mut Handled| match op
        .backend
        .episodes
        .transition(id, kind, false, at, "", "")
    {
        Ok(Transition::Closed) => done.closed.push(kind),
        Ok(_) => {}
        Err(e) => done.errors.push(format!("could not record attention: {e}")),
    };
    // Any word from the agent other than its end says it runs.
    if !matches!(event.signal, Signal::Exited { .. } | Signal::Other) {
        close(EventKind::Exited, &mut done);
    }
    let opened = match &event.signal {
        Signal::NeedsInput { question, context } => {
            close(EventKind::Finished, &mut done);
            Some((EventKind::NeedsInput, question.clone(), context.clone()))
        }
        Signal::Finished => {
            close(EventKind::NeedsInput, &mut done);
            // A turn that ends with more to come is not finished: the
            // held message goes in next.
            let waiting = op
                .backend
                .held
                .list()
                .map(|h| h.iter().any(|m| m.agent.as_str() == id))
                .unwrap_or(false);
            (!waiting).then(|| {
                (
                    EventKind::Finished,
                    "its turn ended; it waits for a prompt".to_owned(),
                    Vec::new(),
                )
            })
        }
        Signal::TurnFailed(failure) => {
            close(EventKind::NeedsInput, &mut done);
            close(EventKind::Finished, &mut done);
            if failure.reason == FailureReason::RateLimit {
                record_limit(op, id, event, &failure.detail(), at, &mut done);
            }
            Some((EventKind::TurnFailed, failure.detail(), Vec::new()))
        }
        Signal::Exited { reason } => Some((
            EventKind::Exited,
            format!("its session ended ({reason})"),
            Vec::new(),
        )),
        Signal::Prompt { .. } => {
            for kind in [
                EventKind::Finished,
                EventKind::NeedsInput,
                EventKind::TurnFailed,
            ] {
                close(kind, &mut done);
            }
            None
        }
        Signal::EditCheck | Signal::Other => None,
    };
    if let Some((kind, detail, context)) = opened {
        // Each report of a dialog or a failure is its own episode; the
        // screen's look at the same dialog takes the hook's key over.
        let key = match kind {
            EventKind::NeedsInput | EventKind::TurnFailed => format!("{HOOK_KEY}{}", at.utc_iso()),
            _ => String::new(),
        };
        match op
            .backend
            .episodes
            .transition(id, kind, true, at, &detail, &key)
        {
            Ok(Transition::Opened { episode }) => {
                let mut entry = FeedEntry::new(kind, Some(id), detail);
                entry.time = at;
                entry.episode = Some(episode);
                entry.source = Some(Source::Hook);
                entry.host = op.backend.shared_host().map(str::to_owned);
                entry.context = context;
                done.raised.push(entry);
            }
            Ok(_) => {}
            Err(e) => done.errors.push(format!("could not record attention: {e}")),
        }
    }
    if !done.raised.is_empty()
        && let Err(e) = op.backend.feed.append(&done.raised)
    {
        done.errors
            .push(format!("could not write the activity feed: {e}"));
    }
    if !short_ids.is_empty() {
        confirm(op, id, &short_ids, &mut done);
    }
    done
}

/// Messages one short id in a prompt may confirm at most (ids that share
/// their first eight characters are rare; this bounds a prompt that names
/// a very short prefix).
const MAX_PER_ID: usize = 4;

/// Records each message of `short_ids` sent to `agent` as delivered and
/// confirmed by its hook, in the message log. The messages are found by
/// the message index (`log::index`), which catches up with only what was
/// appended since its last use: the cost does not grow with the log, and a
/// message is found however long ago it was sent.
fn confirm(op: &Operator, agent: &str, short_ids: &[String], done: &mut Handled) {
    let index = match MessageIndex::open(&op.paths, op.backend.log.as_ref()) {
        Ok(index) => index,
        Err(e) => {
            done.errors
                .push(format!("could not read the message index: {e}"));
            return;
        }
    };
    let mut records = Vec::new();
    for short in short_ids {
        let found = match index.ids_to(short, agent, MAX_PER_ID) {
            Ok(found) => found,
            Err(e) => {
                done.errors
                    .push(format!("could not look up message {short}: {e}"));
                continue;
            }
        };
        for full in found {
            if done.confirmed.contains(&full) {
                continue;
            }
            records.push(Record::Delivery(DeliveryRecord::new(
                &full,
                &[(
                    agent.to_owned(),
                    DeliveryOutcome::delivered().confirmed_by_hook(),
                )],
                Some("confirmed by the agent's prompt hook".into()),
            )));
            done.confirmed.push(full);
        }
    }
    if !records.is_empty()
        && let Err(e) = op.backend.log.append(&records)
    {
        done.errors
            .push(format!("could not record the confirmation: {e}"));
    }
}

/// The agent's turn ended at its usage limit, as its own hook says: its
/// login (read from this process's environment, which the agent handed
/// its hook) is recorded as limited, so that messages to every agent of
/// it are held at once, before any screen is looked at. The reset time,
/// when the agent prints one, comes from the screen.
fn record_limit(
    op: &Operator,
    agent: &str,
    event: &HookEvent,
    shown: &str,
    at: Timestamp,
    done: &mut Handled,
) {
    let env: Vec<(String, String)> = std::env::vars().collect();
    let Some(login) = crate::limits::credential::credential_of(event.vendor.as_str(), &env) else {
        return;
    };
    let seen = crate::limits::limit_store::Sighting {
        vendor: event.vendor.as_str(),
        agent,
        shown,
        until: None,
        patience: std::time::Duration::ZERO,
        at,
    };
    if let Err(e) = op.backend.limits.update(&mut |l| {
        l.saw(&login, &seen);
        true
    }) {
        done.errors
            .push(format!("could not record the usage limit: {e}"));
    }
}
