//! swarm coordinates several AI coding agents (Claude Code, Codex, Gemini
//! CLI, aider, ...) that run side by side in tmux panes on one project: it
//! finds them, carries messages between them, hands out file locks and
//! makes sure important messages are acknowledged.
//!
//! Layers, top to bottom (data never flows back up; docs/ARCHITECTURE.md
//! has the map): `cli` (arguments to a checked plan, printing); the front
//! doors and loops (`monitor`, `dashboard`, `mcp`, `watcher`, `setup`);
//! `backend` (one implementation of every store trait, and the operator
//! every front door acts with); the operations (`messaging`, `notify`,
//! `log`, `attention`, `agents`, `acks`, `locks`, `a2a`, `config`, ...);
//! the seams `store` (the only code touching state files) and `tmux` (the
//! only code that spawns tmux); `domain` and `support` at the bottom.
//! Nothing below `cli` prints.

// Items are `pub(crate)` unless the list at the end exports them.
#![warn(unreachable_pub)]

mod a2a;
mod acks;
mod agents;
mod attention;
mod backend;
mod config;
mod dashboard;
mod domain;
mod error;
mod guard;
mod locks;
mod log;
mod mcp;
mod messaging;
mod monitor;
mod notify;
mod setup;
mod snapshot;
mod store;
mod support;
mod tmux;
mod watcher;

mod cli;

pub use cli::run;
pub use error::{Error, Result};
pub use support::exit_code::ExitCode;

// Everything else is private to the crate, so that the compiler reports
// dead code. What follows is what the integration tests and the fuzz
// targets use to build state files by hand and to check parsers directly.
pub use acks::{PendingEntry, marker as ack_marker};
pub use agents::demo_agent::InputParser;
pub use agents::launch::find_on_path;
pub use agents::registry::{AgentRecord, AgentStatus, Registry};
pub use attention::episodes::episode_store::OpenEpisode;
pub use attention::event::EventKind;
pub use config::load_file as load_config_file;
pub use domain::message::BUILTIN_TYPES;
pub use domain::validate::agent_id as validate_agent_id;
pub use domain::{AgentId, MessageId, Timestamp, ValidationError};
pub use locks::{
    Acquired, FileLocks, GlobModel, LockError, LockKey, LockRecord, has_glob_chars, lock_file_name,
};
pub use log::record::{DeliveryRecord, LogContents, Outcome, Record, parse_line};
pub use monitor::{AgentScreen, MonitorState, ScreenDialog, render};
pub use snapshot::LockView;
pub use store::{Paths, StateDir};
pub use support::json::{Layout, to_vec};
pub use support::{sanitize, time};
pub use tmux::{PaneId, PaneLabel, Server, Tmux, TmuxError, parse_list_panes};
