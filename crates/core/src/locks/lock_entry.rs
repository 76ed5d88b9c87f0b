//! `LockEntry`: what one `*.lock` file in `.agent_locks/` turned out to be.

use std::time::SystemTime;

use super::held_lock::HeldLock;

/// One lock file. (Entries are read one per file and moved, never kept
/// in bulk, so the size of `Held` is not worth a box.)
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq)]
pub enum LockEntry {
    /// A valid lock.
    Held(HeldLock),
    /// A file that is not a lock (not JSON, wrong shape, a symlink). It
    /// blocks its own path until `swarm locks --clean` removes it.
    Damaged {
        /// Its file name.
        file_name: String,
        /// What is wrong with it.
        problem: String,
        /// When it was last written (a file the Python tool is writing
        /// right now is empty for a moment).
        modified: Option<SystemTime>,
    },
}

impl LockEntry {
    /// The file name in `.agent_locks/`.
    pub fn file_name(&self) -> &str {
        match self {
            LockEntry::Held(h) => &h.file_name,
            LockEntry::Damaged { file_name, .. } => file_name,
        }
    }
}
