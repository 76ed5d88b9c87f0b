//! The command-line layer: clap types, one file per command, and all
//! printing. Commands turn what the user typed into a checked plan before
//! anything happens.
#![allow(clippy::print_stdout, clippy::print_stderr)]

// Used by the messaging and lock commands, which land next.
#[allow(dead_code)]
mod actor;
mod agents;
mod app;
mod args;
mod completions;
mod config;
mod context;
mod coord;
mod demo_agent;
mod discover;
mod doctor;
mod down;
mod init;
mod launch;
mod output;
mod version;
mod whoami;

pub use app::run;
