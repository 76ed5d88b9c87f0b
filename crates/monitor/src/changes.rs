//! `Changes`: what the monitor read from the files that changed since it
//! last looked (new log records, each status file that changed, who needs
//! the person), as `MonitorState::absorb` takes it in.

use swarm_core::worktrees::Overlap;
use swarm_core::{LockView, OpenEpisode, PendingEntry, Record, Registry};

/// The log records and status files read since the last wake-up.
#[derive(Debug, Default)]
pub struct Changes {
    /// New log records.
    pub records: Vec<Record>,
    /// New log lines that could not be read.
    pub skipped: usize,
    /// The registry, when it changed (and a note when it is damaged).
    pub registry: Option<(Option<Registry>, Option<String>)>,
    /// The locks, when they changed.
    pub locks: Option<(Vec<LockView>, Option<String>)>,
    /// The pending acknowledgements, when they changed.
    pub acks: Option<(Vec<PendingEntry>, Option<String>)>,
    /// The open attention episodes, when they were read.
    pub episodes: Option<Vec<OpenEpisode>>,
    /// The files two or more agents changed on their worktree branches,
    /// when they were read.
    pub overlaps: Option<Vec<Overlap>>,
    /// Whether the project's watcher runs on this host, when looked at.
    pub watcher: Option<bool>,
}
