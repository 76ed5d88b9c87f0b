//! What the monitor and the dashboard both read: the registry, the locks
//! and the pending ACKs as one status, and the file-change events that say
//! when to read them again (and, for a shared store's log, the wait that
//! stands in for them).

mod append_wake;
mod file_watch;
mod status;

pub use append_wake::AppendWake;
pub use file_watch::{Dirty, FileWatch};
pub use status::LockView;
pub use status::{
    SwarmStatus, read_acks, read_locks, read_registry, status_changes, try_read_acks,
    try_read_locks, try_read_registry,
};
