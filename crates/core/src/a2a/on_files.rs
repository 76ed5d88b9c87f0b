//! `FileA2a`: `A2aStore` on the Python tool's A2A store files, one per
//! collection in its shape (`{"version": "1.0", "updated_at": ...,
//! "<records>": ...}`, indent 2, ASCII, no trailing newline), read without
//! a lock and changed under the file's sidecar lock with a unique temp
//! file (the original used a fixed `<name>.json.tmp` that concurrent
//! writers clobbered).
//!
//! A damaged file is reported; an update that replaces it first moves it
//! aside to `<name>.corrupt-<time>`: it is never silently replaced.

use std::path::PathBuf;

use serde_json::Value;

use super::a2a_store::{A2aStore, Collection, Stored};
use super::error::Result;
use super::memory::Cleared;
use crate::domain::AgentId;
use crate::store::{self, DEFAULT_LOCK_TIMEOUT, Loaded, Paths, StateFile, StoreError};
use crate::support::json::{self, Layout};

/// The A2A store files of one project.
#[derive(Clone, Debug)]
pub(crate) struct FileA2a {
    paths: Paths,
}

impl FileA2a {
    /// The files of the project laid out by `paths`.
    pub(crate) fn new(paths: &Paths) -> FileA2a {
        FileA2a {
            paths: paths.clone(),
        }
    }

    fn path(&self, which: Collection) -> PathBuf {
        match which {
            Collection::Cards => self.paths.agent_cards(),
            Collection::Tasks => self.paths.tasks(),
            Collection::DelegationHistory => self.paths.delegation_history(),
            Collection::Contexts => self.paths.contexts(),
            Collection::Learning => self.paths.learning_data(),
            Collection::Conflicts => self.paths.conflict_log(),
        }
    }

    fn memory_file(&self, agent: &AgentId) -> StateFile {
        // An agent id is a plain name: nothing like `../x` gets through.
        StateFile::new(self.paths.memory_dir().join(format!("{agent}.json")))
    }

    fn file(&self, which: Collection) -> StateFile {
        StateFile::new(self.path(which))
    }

    fn find(&self, which: Collection, file: &StateFile) -> Result<Stored> {
        let value = match file.read_json::<Value>() {
            Ok(Loaded::Missing) => return Ok(Stored::Missing),
            Ok(Loaded::Valid(v)) => v,
            Ok(Loaded::Corrupt(why)) | Err(StoreError::Corrupt { reason: why, .. }) => {
                return Ok(Stored::Damaged(why));
            }
            Err(e) => return Err(e.into()),
        };
        Ok(which.records_of(value))
    }

    fn encode(&self, which: Collection, records: Value) -> Result<Vec<u8>> {
        Ok(
            json::to_vec(&which.document(records), Layout::Indent2).map_err(|source| {
                StoreError::Encode {
                    path: self.path(which),
                    source,
                }
            })?,
        )
    }
}

impl A2aStore for FileA2a {
    fn read(&self, which: Collection) -> Result<Stored> {
        // Writes are atomic renames: an unlocked read sees a whole file.
        self.find(which, &self.file(which))
    }

    fn update(
        &self,
        which: Collection,
        notes: &mut Vec<String>,
        change: &mut dyn FnMut(Stored) -> Result<Option<Value>>,
    ) -> Result<()> {
        let file = self.file(which);
        let lock = file.lock(DEFAULT_LOCK_TIMEOUT)?;
        let stored = self.find(which, &file)?;
        let damaged = match &stored {
            Stored::Damaged(why) => Some(why.clone()),
            _ => None,
        };
        let records = match change(stored) {
            Ok(Some(records)) => records,
            Ok(None) => return Ok(()),
            Err(e) => {
                if let Some(why) = damaged {
                    notes.push(format!(
                        "{} is damaged ({why}); it was left as it is",
                        file.path().display()
                    ));
                }
                return Err(e);
            }
        };
        if let Some(why) = damaged {
            let aside = file.preserve(&lock)?;
            notes.push(format!(
                "{} was damaged ({why}); {} and started a new one",
                file.path().display(),
                aside
                    .map(|p| format!("moved it to {}", p.display()))
                    .unwrap_or_else(|| "it could not be moved aside".into())
            ));
        }
        let bytes = self.encode(which, records)?;
        file.write(&lock, &bytes)?;
        Ok(())
    }

    fn location(&self, which: Collection) -> String {
        self.path(which).display().to_string()
    }

    fn read_memory(&self, agent: &AgentId) -> Result<Stored> {
        Ok(match self.memory_file(agent).read_json::<Value>() {
            Ok(Loaded::Valid(v)) => Stored::Records(v),
            Ok(Loaded::Missing) => Stored::Missing,
            Ok(Loaded::Corrupt(why)) | Err(StoreError::Corrupt { reason: why, .. }) => {
                Stored::Damaged(why)
            }
            Err(e) => return Err(e.into()),
        })
    }

    fn clear_memory(&self, agent: &AgentId) -> Result<Cleared> {
        let file = self.memory_file(agent);
        // Clearing nothing creates nothing (not even the lock's folder).
        if !self.paths.memory_dir().exists() {
            return Ok(Cleared::Nothing);
        }
        let lock = file.lock(DEFAULT_LOCK_TIMEOUT)?;
        match file.read_json::<super::memory::AgentMemory>() {
            Ok(Loaded::Valid(_)) => {}
            Ok(Loaded::Missing) => return Ok(Cleared::Nothing),
            Ok(Loaded::Corrupt(_)) | Err(StoreError::Corrupt { .. }) => {
                return Ok(match file.preserve(&lock)? {
                    Some(aside) => Cleared::MovedAside(aside.display().to_string()),
                    None => Cleared::Nothing,
                });
            }
            Err(e) => return Err(e.into()),
        }
        Ok(if file.remove(&lock)? {
            Cleared::Removed
        } else {
            Cleared::Nothing
        })
    }

    fn memory_location(&self, agent: &AgentId) -> String {
        self.memory_file(agent).path().display().to_string()
    }

    fn read_coordination(&self) -> Result<Option<String>> {
        Ok(store::read_document(&self.paths.coordination())?)
    }

    fn update_coordination(
        &self,
        change: &mut dyn FnMut(Option<String>) -> Result<Option<String>>,
    ) -> Result<()> {
        let path = self.paths.coordination();
        let _lock = StateFile::new(&path).lock(DEFAULT_LOCK_TIMEOUT)?;
        // Read under the lock: nobody can write between this read and
        // the write, so no entry is ever lost.
        let current = store::read_document(&path)?;
        if let Some(text) = change(current)? {
            store::write_document(&path, text.as_bytes(), true)?;
        }
        Ok(())
    }

    fn coordination_location(&self) -> String {
        self.paths.coordination().display().to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::a2a::a2a_store::contract;
    use crate::a2a::entries::Record;
    use crate::a2a::records::Records;
    use serde::{Deserialize, Serialize};
    use std::fs;

    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    struct Item {
        name: String,
    }

    impl Record for Item {}

    #[test]
    fn keeps_the_a2a_store_contract() {
        let dir = tempfile::tempdir().expect("tempdir");
        contract::basics(&FileA2a::new(&Paths::new(dir.path())));
    }

    #[test]
    fn racing_updates_lose_nothing() {
        let dir = tempfile::tempdir().expect("tempdir");
        contract::racing_updates(&FileA2a::new(&Paths::new(dir.path())));
    }

    #[test]
    fn writes_the_python_shape() {
        let dir = tempfile::tempdir().expect("tempdir");
        let paths = Paths::new(dir.path());
        let store = FileA2a::new(&paths);
        let s = Records::new(&store, Collection::Cards);
        let mut notes = Vec::new();
        s.update::<Item, _>(&mut notes, |e| {
            e.insert("a".into(), Item { name: "é".into() });
            Ok(())
        })
        .expect("update");
        let text = fs::read_to_string(paths.agent_cards()).expect("read");
        let re_time = text
            .split('"')
            .nth(7)
            .expect("the updated_at value")
            .to_owned();
        assert_eq!(
            text.replace(&re_time, "T"),
            "{\n  \"version\": \"1.0\",\n  \"updated_at\": \"T\",\n  \"cards\": {\n    \"a\": {\n      \"name\": \"\\u00e9\"\n    }\n  }\n}"
        );
        assert!(
            crate::support::time::parse_iso(&re_time).is_some(),
            "{re_time}"
        );
        assert!(notes.is_empty());
    }

    #[test]
    fn damaged_files_are_reported_and_moved_aside_on_write() {
        let dir = tempfile::tempdir().expect("tempdir");
        let paths = Paths::new(dir.path());
        let store = FileA2a::new(&paths);
        let s = Records::new(&store, Collection::Cards);
        fs::write(paths.agent_cards(), "{\"cards\": [1, 2]}").expect("write");
        let mut notes = Vec::new();
        assert_eq!(s.read::<Item>(&mut notes).expect("read").len(), 0);
        assert!(notes[0].contains("is damaged"), "{notes:?}");
        // A failed change leaves the damaged file where it is.
        let mut notes = Vec::new();
        let err = s.update::<Item, ()>(&mut notes, |_| {
            Err(super::super::A2aError::Invalid("no".into()))
        });
        assert!(err.is_err());
        assert_eq!(
            fs::read_to_string(paths.agent_cards()).expect("read"),
            "{\"cards\": [1, 2]}"
        );
        let mut notes = Vec::new();
        s.update::<Item, _>(&mut notes, |e| {
            e.insert("a".into(), Item { name: "x".into() });
            Ok(())
        })
        .expect("update");
        assert!(notes[0].contains("moved it to"), "{notes:?}");
        let aside: Vec<_> = fs::read_dir(dir.path())
            .expect("ls")
            .filter_map(|e| e.ok())
            .filter(|e| e.file_name().to_string_lossy().contains(".corrupt-"))
            .collect();
        assert_eq!(aside.len(), 1);
        assert_eq!(
            fs::read_to_string(aside[0].path()).expect("read"),
            "{\"cards\": [1, 2]}"
        );
    }

    #[test]
    fn a_file_without_records_is_empty_not_damaged() {
        let dir = tempfile::tempdir().expect("tempdir");
        let paths = Paths::new(dir.path());
        let store = FileA2a::new(&paths);
        let s = Records::new(&store, Collection::Cards);
        fs::write(paths.agent_cards(), "{\"version\": \"1.0\"}").expect("write");
        let mut notes = Vec::new();
        assert!(s.read::<Item>(&mut notes).expect("read").is_empty());
        assert!(notes.is_empty());
    }
}
