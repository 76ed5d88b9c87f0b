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
pub use swarm_core::agents::launch::find_on_path;
pub use swarm_core::config::load_file as load_config_file;
pub use swarm_core::domain::validate::agent_id as validate_agent_id;
pub use swarm_core::support::json::{Layout, to_vec};
pub use swarm_core::support::{sanitize, time};
pub use swarm_core::worktrees::Overlap;
pub use swarm_core::{
    Acquired, AgentId, AgentRecord, AgentStatus, BUILTIN_TYPES, DeliveryOutcome, DeliveryRecord,
    EventKind, FileLocks, GlobModel, InputParser, LockError, LockKey, LockRecord, LockView,
    LogContents, MessageId, OpenEpisode, PaneId, PaneLabel, Paths, PendingEntry, Record, Registry,
    Server, StateDir, Timestamp, Tmux, TmuxError, ValidationError, ack_marker, has_glob_chars,
    lock_file_name, parse_line, parse_list_panes,
};
#[cfg(feature = "monitor")]
pub use swarm_monitor::{AgentScreen, MonitorState, ScreenDialog, render};
