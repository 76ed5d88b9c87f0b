//! `StoreFile`: one of the Python tool's A2A store files, in its shape
//! (`{"version": "1.0", "updated_at": ..., "<records>": ...}`, indent 2,
//! ASCII, no trailing newline), read without a lock and changed under the
//! file's sidecar lock with a unique temp file (the original used a fixed
//! `<name>.json.tmp` that concurrent writers clobbered).
//!
//! A damaged file is reported; a read treats it as empty, and a write
//! first moves it aside to `<name>.corrupt-<time>`: it is never silently
//! replaced.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::error::Result;
use crate::store::{DEFAULT_LOCK_TIMEOUT, Loaded, StateFile, StoreError};
use crate::support::json::{self, Layout};
use crate::support::time;

use super::entries::{Entries, Record};

/// The `version` the Python tool writes and reads.
pub(crate) const FORMAT_VERSION: &str = "1.0";

/// One store file.
#[derive(Clone, Debug)]
pub(crate) struct StoreFile {
    file: StateFile,
    key: &'static str,
    keyed: bool,
}

/// What reading found besides the records.
enum Found<T> {
    Records(Entries<T>, Vec<String>),
    Damaged(String),
}

impl StoreFile {
    /// The file at `path` whose records sit under `key`: an object of
    /// records when `keyed`, else a list.
    pub(crate) fn new(path: PathBuf, key: &'static str, keyed: bool) -> StoreFile {
        StoreFile {
            file: StateFile::new(path),
            key,
            keyed,
        }
    }

    /// Where it lives.
    pub(crate) fn path(&self) -> &Path {
        self.file.path()
    }

    /// The records, read without a lock (writes are atomic renames). A
    /// damaged file reads as empty; `notes` says so, and names every
    /// record that could not be read.
    pub(crate) fn read<T: Record>(&self, notes: &mut Vec<String>) -> Result<Entries<T>> {
        Ok(match self.find::<T>()? {
            Found::Records(entries, problems) => {
                self.note_problems(notes, &problems, "skipped");
                entries
            }
            Found::Damaged(why) => {
                notes.push(format!(
                    "{} is damaged ({why}); reading it as empty",
                    self.path().display()
                ));
                Entries::empty(self.keyed)
            }
        })
    }

    /// Reads the records under the file's lock, lets `change` modify them
    /// and writes them back when it succeeds; nothing is written when it
    /// fails. A damaged file is moved aside before the new one is
    /// written; `notes` says where it went.
    pub(crate) fn update<T: Record, R>(
        &self,
        notes: &mut Vec<String>,
        change: impl FnOnce(&mut Entries<T>) -> Result<R>,
    ) -> Result<R> {
        let lock = self.file.lock(DEFAULT_LOCK_TIMEOUT)?;
        let (mut entries, damaged) = match self.find::<T>()? {
            Found::Records(entries, problems) => {
                self.note_problems(notes, &problems, "kept as it is");
                (entries, None)
            }
            Found::Damaged(why) => (Entries::empty(self.keyed), Some(why)),
        };
        let result = match change(&mut entries) {
            Ok(r) => r,
            Err(e) => {
                if let Some(why) = damaged {
                    notes.push(format!(
                        "{} is damaged ({why}); it was left as it is",
                        self.path().display()
                    ));
                }
                return Err(e);
            }
        };
        if let Some(why) = damaged {
            let aside = self.file.preserve(&lock)?;
            notes.push(format!(
                "{} was damaged ({why}); {} and started a new one",
                self.path().display(),
                aside
                    .map(|p| format!("moved it to {}", p.display()))
                    .unwrap_or_else(|| "it could not be moved aside".into())
            ));
        }
        let bytes = self.encode(&entries)?;
        self.file.write(&lock, &bytes)?;
        Ok(result)
    }

    fn note_problems(&self, notes: &mut Vec<String>, problems: &[String], fate: &str) {
        for p in problems {
            notes.push(format!(
                "{}: {p} (the record was {fate})",
                self.path().display()
            ));
        }
    }

    fn find<T: Record>(&self) -> Result<Found<T>> {
        let value = match self.file.read_json::<Value>() {
            Ok(Loaded::Missing) => return Ok(Found::Records(Entries::empty(self.keyed), vec![])),
            Ok(Loaded::Valid(v)) => v,
            Ok(Loaded::Corrupt(why)) | Err(StoreError::Corrupt { reason: why, .. }) => {
                return Ok(Found::Damaged(why));
            }
            Err(e) => return Err(e.into()),
        };
        let Value::Object(mut top) = value else {
            return Ok(Found::Damaged("expected a JSON object at the top".into()));
        };
        // The Python tool reads a file without the records key as empty.
        let Some(records) = top.remove(self.key) else {
            return Ok(Found::Records(Entries::empty(self.keyed), vec![]));
        };
        Ok(match Entries::from_value(self.keyed, records) {
            Ok((entries, problems)) => Found::Records(entries, problems),
            Err(why) => Found::Damaged(format!("`{}`: {why}", self.key)),
        })
    }

    fn encode<T: Record>(&self, entries: &Entries<T>) -> Result<Vec<u8>> {
        let encode_err = |source| StoreError::Encode {
            path: self.path().to_owned(),
            source,
        };
        let mut top = Map::new();
        top.insert("version".into(), FORMAT_VERSION.into());
        top.insert("updated_at".into(), time::utc_iso(time::now()).into());
        top.insert(self.key.into(), entries.to_value().map_err(encode_err)?);
        Ok(json::to_vec(&Value::Object(top), Layout::Indent2).map_err(encode_err)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::{Deserialize, Serialize};
    use std::fs;

    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    struct Item {
        name: String,
    }

    impl Record for Item {}

    fn store(dir: &tempfile::TempDir) -> StoreFile {
        StoreFile::new(dir.path().join("ITEMS.json"), "items", true)
    }

    #[test]
    fn writes_the_python_shape() {
        let dir = tempfile::tempdir().expect("tempdir");
        let s = store(&dir);
        let mut notes = Vec::new();
        s.update::<Item, _>(&mut notes, |e| {
            e.insert("a".into(), Item { name: "é".into() });
            Ok(())
        })
        .expect("update");
        let text = fs::read_to_string(s.path()).expect("read");
        let re_time = text
            .split('"')
            .nth(7)
            .expect("the updated_at value")
            .to_owned();
        assert_eq!(
            text.replace(&re_time, "T"),
            "{\n  \"version\": \"1.0\",\n  \"updated_at\": \"T\",\n  \"items\": {\n    \"a\": {\n      \"name\": \"\\u00e9\"\n    }\n  }\n}"
        );
        assert!(time::parse_iso(&re_time).is_some(), "{re_time}");
        assert!(notes.is_empty());
    }

    #[test]
    fn damaged_files_are_reported_and_moved_aside_on_write() {
        let dir = tempfile::tempdir().expect("tempdir");
        let s = store(&dir);
        fs::write(s.path(), "{\"items\": [1, 2]}").expect("write");
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
            fs::read_to_string(s.path()).expect("read"),
            "{\"items\": [1, 2]}"
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
            "{\"items\": [1, 2]}"
        );
    }

    #[test]
    fn a_file_without_records_is_empty_not_damaged() {
        let dir = tempfile::tempdir().expect("tempdir");
        let s = store(&dir);
        fs::write(s.path(), "{\"version\": \"1.0\"}").expect("write");
        let mut notes = Vec::new();
        assert!(s.read::<Item>(&mut notes).expect("read").is_empty());
        assert!(notes.is_empty());
    }
}
