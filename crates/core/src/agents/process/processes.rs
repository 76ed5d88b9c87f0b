//! The process seam: where swarm's facts about processes come from. tmux
//! answers what it knows on every platform (a pane's directory, the name
//! of the program in its foreground); the rest comes from the chosen
//! backend: the Linux fast path, or one portable `ps` call.

use std::path::PathBuf;

use super::backend::Backend;
use super::error::ProcessError;
use super::ps;
use super::view::{ProcessInfo, ProcessView};
use crate::tmux::{Pane, PaneId, Tmux, TmuxError};

/// The process seam, with its backend chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Processes {
    backend: Backend,
}

impl Default for Processes {
    /// The automatic choice, whatever the environment says.
    fn default() -> Self {
        Processes::new(Backend::auto())
    }
}

impl Processes {
    /// A seam over this backend.
    pub(crate) fn new(backend: Backend) -> Processes {
        Processes { backend }
    }

    /// The backend `SWARM_PROCESS_BACKEND` asks for (`auto` when unset);
    /// an unknown value is an error, never silently ignored.
    pub(crate) fn from_env() -> Result<Processes, ProcessError> {
        Backend::from_env().map(Processes::new)
    }

    /// A view of the processes for questions about many panes at once:
    /// the fast path reads on demand; the portable backend lists every
    /// process once.
    pub(crate) fn survey(&self) -> Result<Survey, ProcessError> {
        match self.backend {
            #[cfg(target_os = "linux")]
            Backend::Proc => Ok(Survey::Live(super::procfs::Live)),
            Backend::Portable => ps::Table::read().map(Survey::Table),
        }
    }

    /// What tmux says runs in front of `pane`, when the backend should
    /// ask it before looking at processes. Only the portable backend does:
    /// one tmux call is cheaper than `ps`, while the fast path answers
    /// sooner than tmux could.
    pub(crate) fn tmux_foreground(&self, tmux: &Tmux, pane: &PaneId, pane_pid: u32) -> TmuxSays {
        if self.backend != Backend::Portable {
            return TmuxSays::Nothing;
        }
        match tmux.pane_command(pane) {
            // A pane whose root process changed (respawned) is judged by
            // the process the caller knows, through the backend.
            Ok((pid, command)) if pid == pane_pid && !command.is_empty() => {
                TmuxSays::Command(command)
            }
            Ok(_) => TmuxSays::Nothing,
            Err(TmuxError::TargetNotFound { .. }) => TmuxSays::Gone,
            Err(_) => TmuxSays::Nothing,
        }
    }
}

/// tmux's answer to "what runs in front of this pane".
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum TmuxSays {
    /// The pane no longer exists.
    Gone,
    /// The name of the program in its foreground (`#{pane_current_command}`).
    Command(String),
    /// Not asked, or no usable answer.
    Nothing,
}

/// The processes as one backend sees them.
#[derive(Clone, Debug)]
pub(crate) enum Survey {
    /// The Linux fast path, read on demand.
    #[cfg(target_os = "linux")]
    Live(super::procfs::Live),
    /// One `ps` listing.
    Table(ps::Table),
}

impl Survey {
    /// The directory a pane works in: tmux's `#{pane_current_path}` (the
    /// directory of the program in its foreground, which tmux finds on
    /// every platform), else what the backend knows of its root process.
    pub(crate) fn pane_cwd(&self, pane: &Pane) -> Option<PathBuf> {
        pane.current_path.clone().or_else(|| self.cwd(pane.pid))
    }

    fn view(&self) -> &dyn ProcessView {
        match self {
            #[cfg(target_os = "linux")]
            Survey::Live(live) => live,
            Survey::Table(table) => table,
        }
    }
}

impl ProcessView for Survey {
    fn info(&self, pid: u32) -> Option<ProcessInfo> {
        self.view().info(pid)
    }

    fn argv(&self, pid: u32) -> Option<Vec<String>> {
        self.view().argv(pid)
    }

    fn children(&self, pid: u32) -> Vec<u32> {
        self.view().children(pid)
    }

    fn cwd(&self, pid: u32) -> Option<PathBuf> {
        self.view().cwd(pid)
    }

    fn environment(&self, pid: u32) -> Option<Vec<(String, String)>> {
        self.view().environment(pid)
    }

    fn started(&self, pid: u32) -> Option<std::time::SystemTime> {
        self.view().started(pid)
    }

    fn uid(&self, pid: u32) -> Option<u32> {
        self.view().uid(pid)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Both backends see the same facts about a child of this process.
    #[test]
    fn the_backends_agree() {
        let mut child = std::process::Command::new("sleep")
            .arg("30")
            .spawn()
            .expect("spawn");
        let me = std::process::id();
        let mut backends = vec![Backend::Portable];
        #[cfg(target_os = "linux")]
        backends.push(Backend::Proc);
        let seen: Vec<_> = backends
            .into_iter()
            .map(|b| {
                let s = Processes::new(b).survey().expect("survey");
                let info = s.info(child.id()).map(|i| (i.ppid, i.name));
                let argv = s.argv(child.id());
                (info, argv, s.children(me).contains(&child.id()))
            })
            .collect();
        let _ = child.kill();
        let _ = child.wait();
        for s in &seen {
            assert_eq!(s.0, Some((me, "sleep".to_string())), "{seen:?}");
            assert_eq!(s.1, Some(vec!["sleep".to_string(), "30".to_string()]));
            assert!(s.2, "child not listed: {seen:?}");
        }
    }
}
