//! What Claude Code's prompt hook adds to a prompt: the agent's unread
//! messages that have not reached its context another way. Each message
//! reaches it once (docs/RELIABILITY.md, "Each message reaches the agent
//! once"): one typed into its pane is passed over (its read position still
//! moves past it), a held one is taken out of the held queue before it is
//! shown (so no release types it in afterwards), and each one shown is
//! recorded as delivered by the hook (so no redelivery types it in either).

use crate::backend::Operator;
use crate::domain::PaneId;
use crate::error::Result;
use crate::log::record::{
    DeliveryOutcome, DeliveryRecord, DeliveryStatus, MessageView, Record, Via,
};
use crate::messaging::held::held_store::HeldMessage;

/// The note, and the outcome's reason, on a message the hook showed.
pub const SHOWN_BY_HOOK: &str = "shown by the agent's prompt hook";

/// What the prompt hook shows.
#[derive(Clone, Debug, Default)]
pub struct PromptInbox {
    /// The messages to show, oldest first (each now read and delivered).
    pub shown: Vec<MessageView>,
    /// Unread messages left for later (some of them may turn out to be
    /// in the pane already).
    pub more: usize,
    /// What a person should know (the read positions were damaged).
    pub notes: Vec<String>,
}

/// Takes up to `limit` of `agent`'s unread messages for its prompt,
/// marking read every message passed on the way, and records the ones it
/// returns as delivered by the hook. `pane`: the agent's pane, whose held
/// count is brought up to date when a held message is taken.
pub fn take(
    op: &Operator,
    agent: &str,
    pane: Option<&PaneId>,
    limit: usize,
) -> Result<PromptInbox> {
    let log = &op.backend.log;
    let mut out = PromptInbox::default();
    let mut held: Option<Vec<HeldMessage>> = None;
    let mut took_held = false;
    let mut records = Vec::new();
    // Messages passed over leave room for more: read on until `limit` are
    // shown or nothing is left. Each round takes at least one message, so
    // this ends; each costs only what it reads.
    while out.shown.len() < limit {
        let (view, note) = match log.take_new(agent, Some(limit - out.shown.len())) {
            Ok(taken) => taken,
            // What earlier rounds took is read already: it is shown.
            Err(e) if !out.shown.is_empty() => {
                out.notes.push(format!("could not read more messages: {e}"));
                break;
            }
            Err(e) => return Err(e.into()),
        };
        out.notes.extend(note);
        out.more = view.held_back;
        if view.shown.is_empty() {
            break;
        }
        for v in view.shown {
            // Gone through the agent's own channel: it has it (or dropped
            // it), and swarm never sends it again.
            if v.outcome_for(agent)
                .is_some_and(|o| matches!(o.via, Some(Via::Socket | Via::AppServer)))
            {
                continue;
            }
            match v.outcome_for(agent).map(|o| o.status) {
                // Typed into the pane: in the agent's context already.
                Some(DeliveryStatus::Delivered) => continue,
                Some(DeliveryStatus::Held) => match take_held(op, &mut held, agent, &v) {
                    Ok(true) => took_held = true,
                    // No entry, or one a release took first: it is being
                    // typed in now.
                    Ok(false) => continue,
                    // It is marked read now: shown, it is not lost (the
                    // held queue, unreadable, types nothing meanwhile).
                    Err(e) => out
                        .notes
                        .push(format!("could not take a held message: {e}")),
                },
                _ => {}
            }
            let mut outcome = DeliveryOutcome::delivered().confirmed_by_hook();
            outcome.reason = Some(SHOWN_BY_HOOK.to_owned());
            records.push(Record::Delivery(DeliveryRecord::new(
                v.message.msg_id.as_str(),
                &[(agent.to_owned(), outcome)],
                Some(SHOWN_BY_HOOK.into()),
            )));
            out.shown.push(v);
        }
        if out.more == 0 {
            break;
        }
    }
    if !records.is_empty() {
        // Marked read already: the messages are shown whether or not
        // their record could be written.
        match log.append(&records) {
            Ok(notes) => out.notes.extend(notes),
            Err(e) => out
                .notes
                .push(format!("could not record the messages shown: {e}")),
        }
    }
    if took_held
        && let Some(pane) = pane
        && let Ok(all) = op.backend.held.list()
    {
        let left = all.iter().filter(|h| h.agent.as_str() == agent).count();
        // Only the pane's own count: nothing depends on it.
        let _ = op.tmux.notify_pane(pane, "", left);
    }
    Ok(out)
}

/// Takes `v`'s entry for `agent` out of the held queue, under the queue's
/// lock: of the hook and a release, exactly one gets it. False when there
/// is none (a release took it). `held`: the queue as first read.
fn take_held(
    op: &Operator,
    held: &mut Option<Vec<HeldMessage>>,
    agent: &str,
    v: &MessageView,
) -> Result<bool> {
    if held.is_none() {
        *held = Some(op.backend.held.list()?);
    }
    let entry = held
        .as_deref()
        .unwrap_or(&[])
        .iter()
        .find(|h| h.agent.as_str() == agent && h.msg_id == v.message.msg_id);
    match entry {
        Some(h) => Ok(op.backend.held.release(h.seq)?),
        None => Ok(false),
    }
}
