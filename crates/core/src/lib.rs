//! The core of swarm: everything below the front doors. The vocabulary
//! (`domain`), the seams that touch the world (`store` for state files,
//! `tmux`, `git`), the operations (messaging, locks, ACKs, agents, the
//! message log, attention, usage, notifications, ...), the storage seam
//! (`backend`: one implementation of every store trait on the files, the
//! operator every front door acts with), the project's watcher and the
//! set-up. It prints nothing and starts no async runtime; the monitor, the
//! dashboard, the MCP server and the Redis backend are crates above it,
//! and docs/ARCHITECTURE.md lists what it offers them.
//!
//! Layers inside, top to bottom (data never flows back up): `watcher`,
//! `setup`; `backend`; the operations (`messaging`, `notify`, `log`,
//! `attention`, `agents`, `acks`, `locks`, `a2a`, `config`, ...); the seams
//! `store` and `tmux`; `domain` and `support` at the bottom.

// Items are `pub(crate)` unless the crate's API needs them.
#![warn(unreachable_pub)]

pub mod a2a;
pub mod acks;
pub mod agents;
pub mod attention;
pub mod backend;
pub mod config;
pub mod domain;
pub mod error;
pub mod git;
pub mod guard;
pub mod hooks;
pub mod limits;
pub mod locks;
pub mod log;
pub mod messaging;
pub mod native;
pub mod notify;
pub mod ops;
pub mod setup;
pub mod snapshot;
pub mod store;
pub mod support;
pub mod tmux;
pub mod usage;
pub mod watcher;
pub mod worktrees;

pub use error::{Error, Result};
pub use support::exit_code::ExitCode;
