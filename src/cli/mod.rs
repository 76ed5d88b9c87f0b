//! The command-line layer: clap types, one file per command, and all
//! printing. Commands turn what the user typed into a checked plan before
//! anything happens.
#![allow(clippy::print_stdout, clippy::print_stderr)]

mod actor;
mod agents;
mod app;
mod args;
mod context;
mod demo_agent;
mod discover;
mod down;
mod guard;
mod launch;
mod lock;
mod lock_view;
mod locks;
mod output;
mod unlock;
mod version;
mod who;
mod whoami;

pub use app::run;
