//! Scripts fed on standard input: a tmux client that runs the commands it
//! reads (`source-file -`), started ahead of need by `warm_up` so that its
//! start-up and connection overlap the caller's other work.

use std::ffi::OsString;
use std::sync::PoisonError;
use std::sync::atomic::{AtomicBool, Ordering};

use super::client::Tmux;
use super::pending::Pending;
use super::process::{Spawned, give_input};

/// Set once tmux did not run a script given on its standard input
/// (`source-file -`): screens are then captured by a call each.
static SCRIPT_REFUSED: AtomicBool = AtomicBool::new(false);

/// True once this tmux did not run a script from its standard input.
pub(super) fn scripts_refused() -> bool {
    SCRIPT_REFUSED.load(Ordering::Relaxed)
}

/// Records that this tmux did not run a script from its standard input:
/// no script is used again in this process.
pub(super) fn refuse_scripts() {
    SCRIPT_REFUSED.store(true, Ordering::Relaxed);
}

impl Tmux {
    /// Starts a tmux client now that waits for commands on its standard
    /// input (`source-file -`), for the next `start_capture_screens`: the
    /// client's start-up and connection, most of the cost of a small tmux
    /// call, then happen while the caller does other work (takes locks,
    /// checks processes), and the capture costs only the server's work.
    /// A client never used is stopped when this `Tmux` is dropped.
    pub(crate) fn warm_up(&self) {
        if scripts_refused() {
            return;
        }
        let mut warm = self.warm.lock().unwrap_or_else(PoisonError::into_inner);
        if warm.is_none() {
            *warm = Some(self.spawn_ahead(self.script_argv(), true));
        }
    }

    /// Stops a client that `warm_up` started and no capture used (it has
    /// run nothing, so it is simply ended), so that a long-running command
    /// does not keep an idle client connected to the server.
    pub(crate) fn cool_down(&self) {
        let warm = self
            .warm
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        if let Some(Ok(mut child)) = warm.map(Spawned::child) {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Runs `script` (tmux commands, one line each) in the client started
    /// by `warm_up` when there is one, else in one started now; `command`
    /// names the call in errors. Returns at once: the caller waits with
    /// `Pending::finish_output`.
    pub(super) fn start_script(&self, command: &'static str, script: String) -> Pending<'_> {
        let warm = self
            .warm
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        let child = match warm {
            Some(started) => started.child(),
            None => self.spawn(&self.script_argv(), true),
        };
        Pending {
            tmux: self,
            command,
            child: Some(Spawned::Ready(child.and_then(|mut child| {
                give_input(&mut child, script.into_bytes())?;
                Ok(child)
            }))),
        }
    }

    /// `tmux source-file -`: a client that runs the commands it is given
    /// on its standard input.
    fn script_argv(&self) -> Vec<OsString> {
        let mut argv = self.server().args();
        argv.extend(["source-file".into(), "-".into()]);
        argv
    }
}
