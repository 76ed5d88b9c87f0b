//! Work that no one has to remember to start: due ACK retries and
//! escalations, and held messages whose pane is safe again, processed by
//! whichever swarm command runs next and continuously by `swarm watch` and
//! `swarm monitor`. Each is a round of the operator's housekeeping
//! (`backend::Chores`); this says what it found.

use swarm_core::{Chores, Housekeeping, Result};

use crate::cli::context::Context;

/// One round of `chores`, the registry's notes told as warnings; `None`
/// when nothing was due (the cheap checks come before the operator is
/// set up).
fn round(ctx: &Context, chores: Chores) -> Result<Option<Housekeeping>> {
    if !chores.due(ctx.backend()?) {
        return Ok(None);
    }
    let done = ctx.op()?.housekeeping(chores);
    for note in &done.registry_notes {
        ctx.out.warn(note);
    }
    Ok(Some(done))
}

/// Types held messages into panes that are safe again, if any are held
/// (one failed `open` when none are).
#[cfg(feature = "dashboard")]
pub(super) fn release_held(ctx: &Context) -> Result<Option<swarm_core::ReleaseReport>> {
    let chores = Chores {
        held: true,
        ..Chores::default()
    };
    round(ctx, chores)?.and_then(|done| done.held).transpose()
}

/// The housekeeping after a command whose own output must stay clean:
/// problems become warnings on stderr.
pub(super) fn quietly(ctx: &Context) {
    let done = match round(ctx, Chores::AFTER_COMMAND) {
        Ok(Some(done)) => done,
        Ok(None) => return,
        Err(e) => {
            ctx.out.warn(&format!(
                "could not process due ACK retries or held messages: {e}"
            ));
            return;
        }
    };
    match done.acks {
        Some(Ok(report)) => warn_all(ctx, &report.warnings),
        Some(Err(e)) => ctx
            .out
            .warn(&format!("could not process due ACK retries: {e}")),
        None => {}
    }
    match done.held {
        Some(Ok(report)) => warn_all(ctx, &report.warnings),
        Some(Err(e)) => ctx
            .out
            .warn(&format!("could not deliver held messages: {e}")),
        None => {}
    }
}

fn warn_all(ctx: &Context, warnings: &[String]) {
    for w in warnings {
        ctx.out.warn(w);
    }
}
