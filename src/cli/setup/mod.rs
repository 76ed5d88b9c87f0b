//! Setting a project up and checking it: init, hooks, the git guard, the config, doctor, the watcher.

pub(crate) mod config;
pub(crate) mod doctor;
pub(crate) mod guard;
pub(crate) mod hook;
pub(crate) mod hooks;
pub(crate) mod init;
pub(crate) mod store;
pub(crate) mod watcher;
