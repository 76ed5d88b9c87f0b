//! swarm coordinates several AI coding agents (Claude Code, Codex, Gemini
//! CLI, aider, ...) that run side by side in tmux panes on one project: it
//! finds them, carries messages between them, hands out file locks and
//! makes sure important messages are acknowledged.
//!
//! This crate is the command-line program: `cli` turns what the user typed
//! into a checked plan, runs it through the crates below and prints the
//! result. Nothing below `cli` prints. The floors, top to bottom
//! (docs/ARCHITECTURE.md has the map): this crate; the front doors
//! `swarm_monitor`, `swarm_dashboard`, `swarm_mcp` and the Redis backend
//! `swarm_redis`, each behind its own feature and none naming another;
//! `swarm_core` at the bottom.

// Items are `pub(crate)` unless the crate's API needs them.
#![warn(unreachable_pub)]

mod cli;

pub use cli::run;
pub use swarm_core::{Error, ExitCode, Result};

// What the integration tests and the fuzz targets use to build state files
// by hand and to check parsers directly.
pub use swarm_core::acks::{PendingEntry, ack_marker};
pub use swarm_core::agents::demo_agent::InputParser;
pub use swarm_core::agents::launch::find_on_path;
pub use swarm_core::agents::registry::{AgentRecord, AgentStatus, Registry};
pub use swarm_core::attention::episodes::episode_store::OpenEpisode;
pub use swarm_core::attention::event::EventKind;
pub use swarm_core::config::load_file as load_config_file;
pub use swarm_core::domain::message::BUILTIN_TYPES;
pub use swarm_core::domain::validate::agent_id as validate_agent_id;
pub use swarm_core::domain::{AgentId, MessageId, Timestamp, ValidationError};
pub use swarm_core::locks::{
    Acquired, FileLocks, GlobModel, LockError, LockKey, LockRecord, has_glob_chars, lock_file_name,
};
pub use swarm_core::log::record::{
    DeliveryOutcome, DeliveryRecord, LogContents, Record, parse_line,
};
pub use swarm_core::snapshot::LockView;
pub use swarm_core::store::{Paths, StateDir};
pub use swarm_core::support::json::{Layout, to_vec};
pub use swarm_core::support::{sanitize, time};
pub use swarm_core::tmux::{PaneId, PaneLabel, Server, Tmux, TmuxError, parse_list_panes};
pub use swarm_core::worktrees::Overlap;
#[cfg(feature = "monitor")]
pub use swarm_monitor::{AgentScreen, MonitorState, ScreenDialog, render};
