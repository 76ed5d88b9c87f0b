//! The process seam: every fact swarm needs about processes (a pane's
//! directory, what holds its terminal, an agent's command line) comes
//! through here. tmux answers where it knows; otherwise one backend: the
//! Linux fast path (`procfs`, compiled on Linux only) or the portable one
//! (`ps`, everywhere). `SWARM_PROCESS_BACKEND` forces a choice.

mod backend;
mod error;
mod processes;
#[cfg(target_os = "linux")]
mod procfs;
mod ps;
mod view;

pub(crate) use backend::{BACKEND_VAR, Backend};
pub(crate) use error::ProcessError;
pub(crate) use processes::{Processes, TmuxSays};
#[cfg(test)]
pub(crate) use view::ProcessInfo;
pub(crate) use view::ProcessView;
