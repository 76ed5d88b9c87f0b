//! Every check of `swarm doctor`, in the order they are reported, and
//! running them. Adding a check is adding a function to `CHECKS`.

use super::agents::{agent_screens, attention_sources, processes, registry_panes};
use super::channels::channels;
use super::config::config_file;
use super::installs::{hook_commands, mcp_servers};
use super::leftovers::leftover_files;
use super::message_log::{message_log, message_log_segments};
use super::project::{project_root, shared_store};
use super::report::{Check, CheckOutcome, Subject};
use super::state_files::{
    a2a_files, agent_ids_file, lock_dir, lock_holders, pending_acks, registry_file,
};
use super::tmux::{tmux_installed, tmux_server};
use super::watcher::watcher;

/// Every check, in the order they are reported.
pub(crate) const CHECKS: &[Check] = &[
    tmux_installed,
    tmux_server,
    processes,
    project_root,
    config_file,
    shared_store,
    watcher,
    registry_file,
    agent_ids_file,
    message_log,
    message_log_segments,
    pending_acks,
    a2a_files,
    lock_dir,
    lock_holders,
    registry_panes,
    mcp_servers,
    agent_screens,
    attention_sources,
    channels,
    leftover_files,
    hook_commands,
];

/// Runs every check.
pub fn run(subject: &Subject<'_>) -> Vec<CheckOutcome> {
    CHECKS.iter().flat_map(|check| check(subject)).collect()
}
