//! The command-line layer: clap types, one file per command, and all
//! printing. Commands turn what the user typed into a checked plan before
//! anything happens.
#![allow(clippy::print_stdout, clippy::print_stderr)]

mod a2a;
mod acks;
mod actor;
mod agents;
mod app;
mod args;
mod attention;
mod build_info;
mod completions;
mod context;
mod features;
mod global_args;
mod help;
mod housekeeping;
mod lazy;
mod locks;
mod messaging;
mod output;
mod parse_error;
mod reload;
mod servers;
mod setup;
mod spending;
mod text_args;
mod version;
mod worktrees;

pub use app::run;
