//! `LockIndex` (`.swarm/lock_index.json`): what taking a lock needs to know
//! about all the other locks without reading every lock file.
//!
//! Most conflicts are found by hashing: the path itself and each of its
//! ancestors name the only files that can hold them. What hashing cannot
//! find is kept here: locks on patterns (and on paths the Python tool
//! spelled another way), the directories that have path locks below them,
//! and the files that did not parse. The index also records a fingerprint
//! of the set of lock file names it describes. Every swarm writer updates
//! it under the lock directory's lock; a reader that finds the fingerprint
//! different from the directory's (the Python tool or a crashed process
//! changed the directory) rebuilds it from the files.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use super::lock_entry::LockEntry;

/// Bumped when the meaning of a field changes; an index of another version
/// is rebuilt.
pub(crate) const INDEX_VERSION: u32 = 1;

/// The index.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct LockIndex {
    /// `INDEX_VERSION`.
    pub version: u32,
    /// How many `*.lock` files it describes.
    pub count: u64,
    /// XOR of a 128-bit value per file name, in hex.
    pub fingerprint: String,
    /// File name to stored `filepath`, for locks hashing cannot find.
    pub special: BTreeMap<String, String>,
    /// Directory to the number of path locks below it.
    pub dirs: BTreeMap<String, u64>,
    /// Lock files that did not parse when last read.
    pub damaged: BTreeSet<String>,
}

/// The 128-bit value of one name: the first half of the hash for the usual
/// `<sha256>.lock`, an FNV-1a mix of the bytes for anything else.
fn name_value(name: &str) -> u128 {
    if let Some(hex) = name.get(..32)
        && let Ok(v) = u128::from_str_radix(hex, 16)
    {
        return v;
    }
    let mut h: u128 = 0x6c62272e07bb014262b821756295c58d;
    for b in name.bytes() {
        h ^= u128::from(b);
        h = h.wrapping_mul(0x0000000001000000000000000000013B);
    }
    h
}

/// Count and XOR fingerprint of a set of names.
pub(super) fn fingerprint<'a>(names: impl IntoIterator<Item = &'a String>) -> (u64, u128) {
    names
        .into_iter()
        .fold((0, 0), |(n, x), name| (n + 1, x ^ name_value(name)))
}

impl LockIndex {
    /// An index describing exactly `entries`, whose names are `names`.
    pub(crate) fn rebuild(names: &[String], entries: &[LockEntry]) -> LockIndex {
        let (count, xor) = fingerprint(names);
        let mut index = LockIndex {
            version: INDEX_VERSION,
            count,
            fingerprint: format!("{xor:032x}"),
            ..LockIndex::default()
        };
        for entry in entries {
            index.add_content(entry);
        }
        index
    }

    /// True when the index describes exactly the files called `names`.
    pub(crate) fn is_current(&self, names: &[String]) -> bool {
        let (count, xor) = fingerprint(names);
        self.version == INDEX_VERSION
            && self.count == count
            && self.fingerprint == format!("{xor:032x}")
    }

    /// A file was created.
    pub(crate) fn add(&mut self, entry: &LockEntry) {
        self.toggle_name(entry.file_name(), true);
        self.add_content(entry);
    }

    /// A file was removed.
    pub(crate) fn remove(&mut self, entry: &LockEntry) {
        self.toggle_name(entry.file_name(), false);
        self.remove_content(entry);
    }

    /// A file kept its name but its content now reads differently (a
    /// damaged file that the Python tool finished writing).
    pub(crate) fn replace(&mut self, old: &LockEntry, new: &LockEntry) {
        self.remove_content(old);
        self.add_content(new);
    }

    /// True when some path lock lies below `dir`.
    pub(crate) fn has_locks_below(&self, dir: &str) -> bool {
        self.dirs.contains_key(dir)
    }

    fn toggle_name(&mut self, name: &str, added: bool) {
        let xor = u128::from_str_radix(&self.fingerprint, 16).unwrap_or(0) ^ name_value(name);
        self.fingerprint = format!("{xor:032x}");
        self.count = if added {
            self.count + 1
        } else {
            self.count.saturating_sub(1)
        };
    }

    fn add_content(&mut self, entry: &LockEntry) {
        match entry {
            LockEntry::Held(held) => {
                if held.needs_index() {
                    self.special
                        .insert(held.file_name.clone(), held.record.filepath.clone());
                }
                if let Some(key) = held
                    .key
                    .as_ref()
                    .filter(|k| k.kind() == super::KeyKind::Path)
                {
                    for dir in key.ancestors() {
                        *self.dirs.entry(dir.to_owned()).or_default() += 1;
                    }
                }
            }
            LockEntry::Damaged { file_name, .. } => {
                self.damaged.insert(file_name.clone());
            }
        }
    }

    fn remove_content(&mut self, entry: &LockEntry) {
        match entry {
            LockEntry::Held(held) => {
                self.special.remove(&held.file_name);
                if let Some(key) = held
                    .key
                    .as_ref()
                    .filter(|k| k.kind() == super::KeyKind::Path)
                {
                    for dir in key.ancestors() {
                        if let Some(n) = self.dirs.get_mut(dir) {
                            *n -= 1;
                            if *n == 0 {
                                self.dirs.remove(dir);
                            }
                        }
                    }
                }
            }
            LockEntry::Damaged { file_name, .. } => {
                self.damaged.remove(file_name);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::locks::{HeldLock, LockRecord, lock_file_name};
    use std::path::Path;

    fn held(filepath: &str) -> LockEntry {
        LockEntry::Held(HeldLock::new(
            lock_file_name(filepath),
            LockRecord {
                agent_id: "agent-1".into(),
                filepath: filepath.into(),
                locked_at: 1.0,
                reason: String::new(),
                ..LockRecord::default()
            },
            Path::new("/p"),
        ))
    }

    #[test]
    fn incremental_updates_equal_a_rebuild() {
        let all = [
            held("src/a/b.py"),
            held("src/*.py"),
            held("/p/src/c.py"),
            held("docs/x"),
        ];
        let names: Vec<String> = all.iter().map(|e| e.file_name().to_owned()).collect();
        let mut index = LockIndex::rebuild(&[], &[]);
        for e in &all {
            index.add(e);
        }
        assert_eq!(index, LockIndex::rebuild(&names, &all));
        assert!(index.is_current(&names));
        assert!(index.has_locks_below("src") && index.has_locks_below("src/a"));
        assert_eq!(
            index.special.len(),
            2,
            "the pattern and the absolute spelling"
        );
        index.remove(&all[0]);
        assert_eq!(index, LockIndex::rebuild(&names[1..], &all[1..]));
        assert!(!index.is_current(&names));
        assert!(!index.has_locks_below("src/a"));
    }
}
