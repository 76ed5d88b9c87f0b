//! swarm coordinates several AI coding agents (Claude Code, Codex, Gemini
//! CLI, aider, ...) that run side by side in tmux panes on one project: it
//! finds them, carries messages between them, hands out file locks and
//! makes sure important messages are acknowledged.
//!
//! Layers, top to bottom (data never flows back up): `cli` (arguments to a
//! checked plan, printing), the operations (`discovery`, `launch`, ...),
//! `store` (project root and state files) and `tmux` (the only code that
//! spawns tmux). Nothing below `cli` prints.

pub mod a2a;
pub mod acks;
pub mod agents;
pub mod config;
pub mod dashboard;
pub mod domain;
pub mod error;
pub mod guard;
pub mod locks;
pub mod messaging;
pub mod monitor;
pub mod setup;
pub mod snapshot;
pub mod store;
pub mod support;
pub mod tmux;

mod cli;

pub use cli::run;
pub use error::{Error, Result};
pub use support::exit_code::ExitCode;
