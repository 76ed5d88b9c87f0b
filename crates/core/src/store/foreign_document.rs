//! `ForeignDocument`: a file another program owns and people commit (an
//! agent CLI's project configuration, Claude Code's settings), changed by
//! swarm atomically under a lock of its own in `.swarm/locks/`, so that no
//! file of swarm's is left beside it.

use std::fs::{self, DirBuilder};
use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::de::DeserializeOwned;

use super::error::StoreError;
use super::paths::Paths;
use super::state_file::{self, Loaded, StateFile, StateLock};

/// One file of another program that swarm merges its entries into.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ForeignDocument {
    /// Reads go through the file's `StateFile` (no links followed); the
    /// lock lives elsewhere and writes keep the file's mode.
    file: StateFile,
    lock_path: PathBuf,
}

impl ForeignDocument {
    /// The document at `path`, locked through `Paths::document_lock`.
    pub(crate) fn new(paths: &Paths, path: impl Into<PathBuf>) -> ForeignDocument {
        let path = path.into();
        ForeignDocument {
            lock_path: paths.document_lock(&path),
            file: StateFile::new(path),
        }
    }

    /// Where the document lives.
    pub(crate) fn path(&self) -> &Path {
        self.file.path()
    }

    /// Takes swarm's exclusive lock of the document, waiting at most
    /// `timeout`; the program that owns the file takes no part in it.
    /// Removes the temp files a writer that died left beside it.
    pub(crate) fn lock(&self, timeout: Duration) -> Result<StateLock, StoreError> {
        let file = state_file::flock(&self.lock_path, timeout)?;
        state_file::remove_stale_temps(self.dir(), &self.temp_prefix());
        Ok(StateLock {
            _file: file,
            data: self.path().to_owned(),
        })
    }

    /// The raw content; `Ok(None)` when the file does not exist. Never
    /// through a link (see `StateFile::read`).
    pub(crate) fn read(&self) -> Result<Option<Vec<u8>>, StoreError> {
        self.file.read()
    }

    /// Reads and parses JSON, as `StateFile::read_json`.
    pub(crate) fn read_json<T: DeserializeOwned>(&self) -> Result<Loaded<T>, StoreError> {
        self.file.read_json()
    }

    /// Replaces the content atomically (temp file, fsync, rename). The file
    /// keeps the mode it has; a new one, and any directory it needs, get
    /// the mode an editor would give them (0666 and 0777 less the umask),
    /// since people commit and share these files.
    pub(crate) fn write(&self, lock: &StateLock, bytes: &[u8]) -> Result<(), StoreError> {
        debug_assert_eq!(lock.data, self.path(), "lock taken for another file");
        let write_err = |source| StoreError::Write {
            path: self.path().to_owned(),
            source,
        };
        // The kernel applies the umask to the modes asked for here.
        DirBuilder::new()
            .recursive(true)
            .mode(0o777)
            .create(self.dir())
            .map_err(write_err)?;
        let kept = fs::symlink_metadata(self.path())
            .ok()
            .filter(fs::Metadata::is_file)
            .map(|m| m.permissions().mode() & 0o7777);
        let mut temp = tempfile::Builder::new()
            .prefix(&self.temp_prefix())
            .rand_bytes(10)
            .permissions(fs::Permissions::from_mode(0o666))
            .tempfile_in(self.dir())
            .map_err(write_err)?;
        temp.write_all(bytes).map_err(write_err)?;
        if let Some(mode) = kept {
            temp.as_file()
                .set_permissions(fs::Permissions::from_mode(mode))
                .map_err(write_err)?;
        }
        temp.as_file().sync_all().map_err(write_err)?;
        temp.persist(self.path()).map_err(|e| write_err(e.error))?;
        Ok(())
    }

    /// Deletes the document; `Ok(false)` when there was none.
    pub(crate) fn remove(&self, lock: &StateLock) -> Result<bool, StoreError> {
        self.file.remove(lock)
    }

    fn dir(&self) -> &Path {
        self.path().parent().unwrap_or(Path::new("."))
    }

    fn temp_prefix(&self) -> String {
        let name = self
            .path()
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        format!(".{name}.tmp-")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::DEFAULT_LOCK_TIMEOUT;

    #[test]
    fn changes_leave_nothing_beside_the_document() {
        let dir = tempfile::tempdir().expect("tempdir");
        let paths = Paths::new(dir.path());
        let doc = ForeignDocument::new(&paths, dir.path().join(".codex").join("config.toml"));
        let lock = doc.lock(DEFAULT_LOCK_TIMEOUT).expect("lock");
        assert!(paths.document_lock(doc.path()).exists());
        // A temp file of a writer that died is cleaned up by the next one.
        drop(lock);
        fs::create_dir(dir.path().join(".codex")).expect("mkdir");
        fs::write(dir.path().join(".codex/.config.toml.tmp-crashed"), "x").expect("write");
        let lock = doc.lock(DEFAULT_LOCK_TIMEOUT).expect("lock");
        doc.write(&lock, b"a = 1\n").expect("write");
        assert_eq!(doc.read().expect("read").as_deref(), Some(&b"a = 1\n"[..]));
        let names: Vec<String> = fs::read_dir(dir.path().join(".codex"))
            .expect("ls")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, ["config.toml"]);
        // Held, it keeps other swarm writers out.
        let err = doc
            .lock(Duration::from_millis(20))
            .expect_err("held by the first");
        assert!(matches!(err, StoreError::LockTimeout { .. }), "{err}");
        assert!(doc.remove(&lock).expect("remove"));
        assert!(!dir.path().join(".codex/config.toml").exists());
    }

    #[test]
    fn a_replaced_document_keeps_its_mode() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("settings.json");
        fs::write(&path, "{}").expect("write");
        fs::set_permissions(&path, fs::Permissions::from_mode(0o640)).expect("chmod");
        let doc = ForeignDocument::new(&Paths::new(dir.path()), &path);
        let lock = doc.lock(DEFAULT_LOCK_TIMEOUT).expect("lock");
        doc.write(&lock, b"{\"a\": 1}").expect("write");
        let mode = fs::metadata(&path).expect("meta").permissions().mode() & 0o7777;
        assert_eq!(mode, 0o640);
    }
}
