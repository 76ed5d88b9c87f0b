//! `Pending`: a tmux call started ahead and not waited for yet, given its
//! input and waited for later, and killed and reaped when dropped
//! unfinished.

use std::io;
use std::process::Child;

use super::args::Args;
use super::client::Tmux;
use super::error::TmuxError;
use super::process::{Spawned, spawn_error};

/// A tmux call that was started and not waited for yet.
pub(super) struct Pending<'a> {
    /// The client whose timeout and server the call has.
    pub(super) tmux: &'a Tmux,
    /// The command named in errors.
    pub(super) command: &'static str,
    /// Taken by `finish`; a call dropped unfinished is killed and reaped.
    pub(super) child: Option<Spawned>,
}

impl Tmux {
    /// Starts a call that reads its standard input, given to `finish_with`.
    /// The process is started on a thread of its own, so the caller goes
    /// on at once.
    pub(super) fn start_with_input(&self, args: Args) -> Pending<'_> {
        let mut argv = self.server().args();
        argv.extend(args.argv);
        Pending {
            tmux: self,
            command: args.command,
            child: Some(self.spawn_ahead(argv, true)),
        }
    }
}

impl Pending<'_> {
    /// The started process, taken out of the call (once).
    fn take_child(&mut self) -> Result<Child, TmuxError> {
        match self.child.take().map(Spawned::child) {
            Some(Ok(child)) => Ok(child),
            Some(Err(e)) => Err(spawn_error(e)),
            None => Err(TmuxError::Io(io::Error::other(
                "tmux call already finished",
            ))),
        }
    }

    /// Gives the call its standard input (when started with one) and waits
    /// for its answer.
    pub(super) fn finish_with(mut self, stdin: Option<&[u8]>) -> Result<String, TmuxError> {
        let child = self.take_child()?;
        self.tmux.collect(child, self.command, stdin, true)
    }

    /// Waits for the call and returns what it printed, whether or not it
    /// succeeded (a script reports the failure of one line in its exit
    /// status, and prints what the other lines printed).
    pub(super) fn finish_output(mut self) -> Result<String, TmuxError> {
        let child = self.take_child()?;
        let done = self.tmux.wait(child, self.command, None)?;
        Ok(String::from_utf8_lossy(&done.stdout).into_owned())
    }
}

impl Drop for Pending<'_> {
    fn drop(&mut self) {
        if let Some(Ok(mut child)) = self.child.take().map(Spawned::child) {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}
