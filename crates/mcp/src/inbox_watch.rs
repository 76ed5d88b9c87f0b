//! Watches the message log (file-change events, no polling) and announces
//! each change that brings a message for this server's agent: the inbox
//! resource is then marked updated for the clients that subscribed to it.

use std::sync::Arc;
use std::sync::mpsc;
use std::thread;

use tokio::sync::broadcast;

use swarm_core::{FileWatch, Record};

use super::project::Project;

/// A running watch; it stops when dropped (the thread ends with it).
#[derive(Debug)]
pub(super) struct InboxWatch {
    _watch: FileWatch,
}

/// Starts watching; `updated` gets one value per change that holds a new
/// message for the agent. `None` when the project cannot be watched (the
/// tools still work; subscribers just hear nothing).
pub(super) fn start(project: Arc<Project>, updated: broadcast::Sender<()>) -> Option<InboxWatch> {
    let (tx, rx) = mpsc::channel::<()>();
    let watch = FileWatch::start(
        &project.op.paths,
        move |dirty| {
            if dirty.log {
                let _ = tx.send(());
            }
        },
        |_| {},
    )
    .ok()?;
    // Only what is appended from now on counts.
    let (mut tail, _) = project.op.backend.log.follow().ok()?;
    thread::Builder::new()
        .name("swarm-mcp-inbox".into())
        .spawn(move || {
            while rx.recv().is_ok() {
                // One look at the log for any number of queued events.
                while rx.try_recv().is_ok() {}
                let Ok(batch) = tail.read_new() else { continue };
                let Ok(agent) = project.agent() else { continue };
                let for_me = batch.records.iter().any(|r| match r {
                    Record::Message(m) => {
                        m.message().is_for(&agent) && m.message().sender != agent.as_str()
                    }
                    Record::Delivery(_) => false,
                });
                if for_me {
                    let _ = updated.send(());
                }
            }
        })
        .ok()?;
    Some(InboxWatch { _watch: watch })
}
