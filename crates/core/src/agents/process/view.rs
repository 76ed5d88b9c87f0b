//! The questions swarm asks about processes, as one trait that each
//! backend answers: a process's parent, group and terminal, its argument
//! vector, its children, its working directory, and what only the fast
//! path reads (its environment, start and user).

use std::path::PathBuf;
use std::time::SystemTime;

/// What swarm needs to know about one process.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ProcessInfo {
    /// Parent pid.
    pub ppid: u32,
    /// Process group.
    pub pgrp: u32,
    /// Foreground process group of its controlling terminal, when it has
    /// one.
    pub tpgid: Option<u32>,
    /// Its program name, lower-cased (what `ps` calls `comm`, or the base
    /// name of its first argument).
    pub name: String,
}

/// A way of looking at the processes of this machine. Every answer may be
/// `None` or empty: processes come and go between two questions.
pub(crate) trait ProcessView {
    /// Parent, group, terminal and name of `pid`; `None` when it is gone.
    fn info(&self, pid: u32) -> Option<ProcessInfo>;
    /// The argument vector of `pid`; `None` when it is gone or unreadable.
    fn argv(&self, pid: u32) -> Option<Vec<String>>;
    /// The direct children of `pid`.
    fn children(&self, pid: u32) -> Vec<u32>;
    /// The working directory of `pid`, when this backend can tell.
    fn cwd(&self, pid: u32) -> Option<PathBuf>;
    /// The environment `pid` was started with, as `NAME=value` pairs, when
    /// this backend can read it (the fast path only).
    fn environment(&self, _pid: u32) -> Option<Vec<(String, String)>> {
        None
    }
    /// When `pid` started, when this backend can tell (the fast path only).
    fn started(&self, _pid: u32) -> Option<SystemTime> {
        None
    }
    /// The user `pid` runs as (its effective uid), when this backend can
    /// tell (the fast path only).
    fn uid(&self, _pid: u32) -> Option<u32> {
        None
    }
}
