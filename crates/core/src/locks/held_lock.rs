//! `HeldLock`: a lock file that parsed, with the key it covers.

use std::path::Path;

use super::lock_key::LockKey;
use super::lock_record::LockRecord;

/// A valid lock file.
#[derive(Clone, Debug, PartialEq)]
pub struct HeldLock {
    /// Its file name in `.agent_locks/`.
    pub file_name: String,
    /// Its content.
    pub record: LockRecord,
    /// What it covers, normalised; `None` when the stored `filepath` lies
    /// outside the project (only the Python tool writes such locks), so it
    /// cannot conflict with anything swarm locks.
    pub key: Option<LockKey>,
}

impl HeldLock {
    /// A parsed lock file of the project at `root`.
    pub fn new(file_name: String, record: LockRecord, root: &Path) -> HeldLock {
        let key = LockKey::from_stored(&record.filepath, root);
        HeldLock {
            file_name,
            record,
            key,
        }
    }

    /// True when the file is stored under a key the fast look-ups cannot
    /// find by hashing a path: a pattern, or a path spelled another way
    /// (absolute, with `..`) by the Python tool.
    pub fn needs_index(&self) -> bool {
        match &self.key {
            Some(key) => {
                key.kind() == super::KeyKind::Pattern || key.as_str() != self.record.filepath
            }
            None => false,
        }
    }
}
