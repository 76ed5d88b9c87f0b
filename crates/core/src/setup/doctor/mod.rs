//! `swarm doctor`'s checks. Each check is a plain function from what it
//! may look at (`Subject`) to results that say ok, warn or fail, and for
//! anything short of ok, how to fix it; the checks are grouped by what
//! they look at, and `checklist.rs` lists them in the order reported.

mod agents;
mod channels;
mod checklist;
mod config;
mod installs;
mod leftovers;
mod message_log;
mod project;
mod report;
mod state_files;
mod tmux;
mod watcher;

pub use checklist::run;
pub use report::{CheckOutcome, CheckStatus, Subject, tally};
