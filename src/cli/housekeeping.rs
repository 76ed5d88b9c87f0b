//! Work that no one has to remember to start: due ACK retries and
//! escalations, and held messages whose pane is safe again, processed by
//! whichever swarm command runs next (after a cheap check) and continuously
//! by `swarm watch` and `swarm monitor`.

use crate::acks;
use crate::agents::registry::Registry;
use crate::error::Result;
use crate::messaging::{ProcessReport, ReleaseReport, process_due};
use crate::support::time;

use crate::cli::agents::list::load_registry;
use crate::cli::context::Context;

/// Sends what is due, if anything (one small file read when nothing is).
pub(super) fn process_due_acks(ctx: &Context) -> Result<Option<ProcessReport>> {
    if !acks::work_due(&*ctx.backend()?.acks, time::now()) {
        return Ok(None);
    }
    let registry = load_registry(ctx)?.unwrap_or_else(|| Registry::empty(String::new()));
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
    let registry = load_registry(ctx)?.unwrap_or_else(|| Registry::empty(String::new()));
    let matcher = ctx.matcher()?;
    let messenger = ctx.messenger(&matcher, ctx.messaging_settings()?)?;
    Ok(Some(messenger.release_held(&registry)?))
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
