//! Work that no one has to remember to start: due ACK retries and
//! escalations, and held messages whose pane is safe again, processed by
//! whichever swarm command runs next (after a cheap check) and continuously
//! by `swarm watch` and `swarm monitor`.

use std::time::Duration;

use crate::acks;
use crate::agents::registry::Registry;
use crate::error::Result;
use crate::messaging::{ProcessReport, Relayed, ReleaseReport, process_due};
use crate::support::time;

use crate::cli::context::Context;

/// Sends what is due, if anything (one small file read when nothing is).
pub(super) fn process_due_acks(ctx: &Context) -> Result<Option<ProcessReport>> {
    if !acks::work_due(&*ctx.backend()?.acks, time::now()) {
        return Ok(None);
    }
    let registry = ctx
        .read_registry()?
        .unwrap_or_else(|| Registry::empty(String::new()));
    let matcher = ctx.matcher()?;
    let messenger = ctx.messenger(&matcher, ctx.messaging_settings()?)?;
    let report = process_due(&messenger, &registry, &ctx.ack_settings()?, time::now())?;
    Ok(Some(report))
}

/// Types held messages into panes that are safe again, if any are held
/// (one failed `open` when none are).
pub(super) fn release_held(ctx: &Context) -> Result<Option<ReleaseReport>> {
    if !ctx.backend()?.held.any() {
        return Ok(None);
    }
    let registry = ctx
        .read_registry()?
        .unwrap_or_else(|| Registry::empty(String::new()));
    let matcher = ctx.matcher()?;
    let messenger = ctx.messenger(&matcher, ctx.messaging_settings()?)?;
    Ok(Some(messenger.release_held(&registry)?))
}

/// Waits up to `wait` for deliveries other hosts handed to this one, and
/// types them into their panes. `None` when the store has no relay (one
/// host): then nothing was waited for.
pub(super) fn deliver_handed_over(ctx: &Context, wait: Duration) -> Result<Option<HandedOver>> {
    let backend = ctx.backend()?;
    let Some(relay) = backend.relay.as_deref() else {
        return Ok(None);
    };
    let taken = relay.take(wait)?;
    if taken.is_empty() {
        return Ok(Some(HandedOver::default()));
    }
    let registry = ctx
        .read_registry()?
        .unwrap_or_else(|| Registry::empty(String::new()));
    let matcher = ctx.matcher()?;
    let messenger = ctx.messenger(&matcher, ctx.messaging_settings()?)?;
    let (delivered, warnings) = messenger.deliver_taken(&registry, taken)?;
    Ok(Some(HandedOver {
        delivered,
        warnings,
    }))
}

/// What `deliver_handed_over` did.
#[derive(Debug, Default)]
pub(super) struct HandedOver {
    /// (recipient, message id, outcome) per delivery.
    pub delivered: Relayed,
    /// Problems worth telling.
    pub warnings: Vec<String>,
}

/// The same, for commands whose own output must stay clean: problems
/// become warnings on stderr.
pub(super) fn quietly(ctx: &Context) {
    match process_due_acks(ctx) {
        Ok(Some(report)) => {
            for w in &report.warnings {
                ctx.out.warn(w);
            }
        }
        Ok(None) => {}
        Err(e) => ctx
            .out
            .warn(&format!("could not process due ACK retries: {e}")),
    }
    match release_held(ctx) {
        Ok(Some(report)) => {
            for w in &report.warnings {
                ctx.out.warn(w);
            }
        }
        Ok(None) => {}
        Err(e) => ctx
            .out
            .warn(&format!("could not deliver held messages: {e}")),
    }
}
