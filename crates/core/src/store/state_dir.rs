//! `StateDir`: a directory of small state files that are created, replaced
//! and removed one by one (the lock files of `.agent_locks/`).
//!
//! Every file appears whole: content goes to a unique temp file in the same
//! directory first, which is then hard-linked (create) or renamed (replace)
//! into place. Creation fails when the name exists, so of any number of
//! concurrent creators exactly one wins, whether or not they take any lock.
//! Replacing and removing need the caller to hold the directory's lock.
//! Temp names never end in `.lock`, so the Python tool does not take them
//! for lock files.

use std::fs;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use tempfile::NamedTempFile;

use super::error::StoreError;
use super::state_file::{StateFile, StateLock, ensure_private_dir};

/// Prefix of the temp files this module writes (and removes when a crashed
/// writer left them behind).
pub(super) const TEMP_PREFIX: &str = ".swarm-tmp-";

/// One directory of state files.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StateDir {
    dir: PathBuf,
}

impl StateDir {
    /// The directory at `dir` (created on first write).
    pub fn new(dir: impl Into<PathBuf>) -> StateDir {
        StateDir { dir: dir.into() }
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        &self.dir
    }

    /// Where the file `name` lives.
    pub fn file(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }

    /// Names of the entries whose name ends with `suffix` and is UTF-8, in
    /// directory order; empty when the directory does not exist.
    pub fn names(&self, suffix: &str) -> Result<Vec<String>, StoreError> {
        let read_err = |source| StoreError::Read {
            path: self.dir.clone(),
            source,
        };
        let entries = match fs::read_dir(&self.dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(read_err(e)),
        };
        let mut names = Vec::new();
        for entry in entries {
            let entry = entry.map_err(read_err)?;
            if let Ok(name) = entry.file_name().into_string()
                && name.ends_with(suffix)
            {
                names.push(name);
            }
        }
        Ok(names)
    }

    /// The content of `name`; `Ok(None)` when it does not exist. A symbolic
    /// link is reported as damaged, never followed.
    pub fn read(&self, name: &str) -> Result<Option<Vec<u8>>, StoreError> {
        let path = self.file(name);
        let mut file = match super::state_file::open_for_read(&path) {
            Ok(Some(f)) => f,
            Ok(None) => return Ok(None),
            Err(e) => return Err(e),
        };
        let mut bytes = Vec::with_capacity(256);
        file.read_to_end(&mut bytes)
            .map_err(|source| StoreError::Read { path, source })?;
        Ok(Some(bytes))
    }

    /// When `name` was last written, if it exists.
    pub fn modified(&self, name: &str) -> Option<SystemTime> {
        StateFile::new(self.file(name)).modified()
    }

    /// Creates `name` with `bytes` unless it exists: `Ok(true)` when this
    /// call created it, `Ok(false)` when the name was taken. Atomic on its
    /// own (a hard link of a complete temp file), so it needs no lock.
    pub fn create_new(&self, name: &str, bytes: &[u8]) -> Result<bool, StoreError> {
        let target = self.file(name);
        let temp = self.complete_temp(&target, bytes)?;
        match fs::hard_link(temp.path(), &target) {
            Ok(()) => Ok(true),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Ok(false),
            Err(source) => Err(StoreError::Write {
                path: target,
                source,
            }),
        }
        // Dropping `temp` removes the temp name; the linked file stays.
    }

    /// Replaces (or creates) `name` with `bytes` atomically.
    pub fn replace(&self, _guard: &StateLock, name: &str, bytes: &[u8]) -> Result<(), StoreError> {
        let target = self.file(name);
        let temp = self.complete_temp(&target, bytes)?;
        temp.persist(&target).map_err(|e| StoreError::Write {
            path: target.clone(),
            source: e.error,
        })?;
        Ok(())
    }

    /// Removes `name`: `Ok(true)` when this call removed it, `Ok(false)`
    /// when it was already gone.
    pub fn remove(&self, _guard: &StateLock, name: &str) -> Result<bool, StoreError> {
        let path = self.file(name);
        match fs::remove_file(&path) {
            Ok(()) => Ok(true),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
            Err(source) => Err(StoreError::Write { path, source }),
        }
    }

    /// Removes temp files a crashed writer left behind. Only safe while
    /// holding the directory's lock: then no writer is mid-write.
    pub fn remove_temps(&self, _guard: &StateLock) -> Result<(), StoreError> {
        for name in self.names("")? {
            if name.starts_with(TEMP_PREFIX) {
                let _ = fs::remove_file(self.file(&name));
            }
        }
        Ok(())
    }

    fn complete_temp(&self, target: &Path, bytes: &[u8]) -> Result<NamedTempFile, StoreError> {
        let write_err = |source| StoreError::Write {
            path: target.to_owned(),
            source,
        };
        ensure_private_dir(&self.dir).map_err(write_err)?;
        let mut temp = tempfile::Builder::new()
            .prefix(TEMP_PREFIX)
            .rand_bytes(10)
            .tempfile_in(&self.dir)
            .map_err(write_err)?;
        temp.write_all(bytes).map_err(write_err)?;
        temp.as_file().sync_all().map_err(write_err)?;
        Ok(temp)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::DEFAULT_LOCK_TIMEOUT;

    #[test]
    fn create_new_refuses_an_existing_name_and_replace_overwrites() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let dir = StateDir::new(tmp.path().join("d"));
        assert!(dir.create_new("a.lock", b"one").expect("create"));
        assert!(!dir.create_new("a.lock", b"two").expect("create"));
        assert_eq!(
            dir.read("a.lock").expect("read").as_deref(),
            Some(&b"one"[..])
        );
        let guard = StateFile::new(tmp.path().join("i"))
            .lock(DEFAULT_LOCK_TIMEOUT)
            .expect("lock");
        dir.replace(&guard, "a.lock", b"three").expect("replace");
        assert_eq!(
            dir.read("a.lock").expect("read").as_deref(),
            Some(&b"three"[..])
        );
        // No temp file is left behind by either path.
        assert_eq!(dir.names("").expect("names"), ["a.lock"]);
        assert!(dir.remove(&guard, "a.lock").expect("remove"));
        assert!(!dir.remove(&guard, "a.lock").expect("remove"));
        assert_eq!(dir.read("a.lock").expect("read"), None);
    }

    #[test]
    fn symlinks_are_reported_not_followed() {
        let tmp = tempfile::tempdir().expect("tempdir");
        fs::write(tmp.path().join("target"), "secret").expect("write");
        std::os::unix::fs::symlink(tmp.path().join("target"), tmp.path().join("x.lock"))
            .expect("symlink");
        let dir = StateDir::new(tmp.path());
        assert!(matches!(
            dir.read("x.lock"),
            Err(StoreError::Corrupt { .. })
        ));
    }
}
