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
pub mod agent_matcher;
pub mod audit;
pub mod claude_hooks;
pub mod config;
pub mod coordination;
pub mod dashboard;
pub mod delivery;
pub mod demo_agent;
pub mod discovery;
pub mod doctor;
pub mod error;
pub mod exit_code;
pub mod git;
pub mod guard;
pub mod identity;
pub mod inbox;
pub mod json;
pub mod launch;
pub mod locks;
pub mod log_tail;
pub mod message;
pub mod message_log;
pub mod messaging;
pub mod monitor;
pub mod onboarding;
pub mod procfs;
pub mod rate_limit;
pub mod registry;
pub mod sanitize;
pub mod setup;
pub mod store;
pub mod sys;
pub mod time;
pub mod tmux;
pub mod validate;

mod cli;

pub use cli::run;
pub use error::{Error, Result};
pub use exit_code::ExitCode;
