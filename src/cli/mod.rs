//! The command-line layer: clap types, one file per command, and all
//! printing. Commands turn what the user typed into a checked plan before
//! anything happens.
#![allow(clippy::print_stdout, clippy::print_stderr)]

mod a2a_view;
mod ack;
mod acks;
mod actor;
mod agents;
mod app;
mod args;
mod broadcast;
mod cards;
mod completions;
mod config;
mod context;
mod coord;
mod dashboard;
mod delegate;
mod demo_agent;
mod discover;
mod doctor;
mod down;
mod find_agent;
mod guard;
mod help;
mod hooks;
mod housekeeping;
mod inbox;
mod init;
mod launch;
mod learning;
mod lock;
mod lock_view;
mod locks;
mod memory;
mod message_input;
mod monitor;
mod msg;
mod onboard;
mod output;
mod redeliver;
mod reload;
mod resolve_conflict;
mod shared_context;
mod tasks;
mod unlock;
mod version;
mod watch;
mod who;
mod whoami;

pub use app::run;
