//! The crate-wide error: every failure a command can end with, mapped to
//! the documented exit codes, with a hint saying what to do about it.

mod swarm_error;

pub use swarm_error::Reported;
pub use swarm_error::{Error, Result};
