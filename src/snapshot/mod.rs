//! What the monitor and the dashboard both read: the registry, the locks
//! and the pending ACKs as one status, and the file-change events that say
//! when to read them again.

mod file_watch;
mod status;

pub(crate) use file_watch::{Dirty, FileWatch};
pub use status::LockView;
pub(crate) use status::{Status, changes, read_acks, read_locks, read_registry};
