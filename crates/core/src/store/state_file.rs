//! `StateFile`: one JSON (or text) state file, written atomically under a
//! stable sidecar lock.
//!
//! Writers take an exclusive `flock` on `.<name>.lock` beside the file (never
//! on the data file, which is replaced by rename), read, modify, write a
//! unique temp file, fsync it and rename it over the target. A reader never
//! sees a half-written file, and a crash at any point leaves the old or the
//! new version. Links are not followed: a state file that is a symlink is
//! reported as damaged and replaced, never written through.

use std::fs::{self, DirBuilder, File, OpenOptions, TryLockError};
use std::io::{self, Read, Write};
use std::ops::ControlFlow;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use serde::de::DeserializeOwned;

use super::error::StoreError;
use crate::support::poll::{Pauses, deadline_in};

/// How long a writer waits for another process to finish with a file.
pub const DEFAULT_LOCK_TIMEOUT: Duration = Duration::from_secs(10);

/// What reading a state file found.
#[derive(Debug, PartialEq)]
pub(crate) enum Loaded<T> {
    /// No file: a fresh project.
    Missing,
    /// A valid file.
    Valid(T),
    /// A file that exists but cannot be used (empty, not JSON, wrong
    /// shape, a symlink); the reason says which.
    Corrupt(String),
}

/// One state file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct StateFile {
    path: PathBuf,
}

/// Proof that the caller holds a file's exclusive lock; released on drop
/// (closing the descriptor releases the `flock`, also when a process dies).
#[derive(Debug)]
pub struct StateLock {
    pub(super) _file: File,
    pub(super) data: PathBuf,
}

/// Opens a state file for reading: never through a symlink, never blocking
/// on a FIFO someone put in its place, and only if it is a regular file.
/// `Ok(None)` when it does not exist; anything else that is not a regular
/// file is reported as damaged.
pub(crate) fn open_for_read(path: &Path) -> Result<Option<File>, StoreError> {
    let corrupt = |reason: &str| StoreError::Corrupt {
        path: path.to_owned(),
        reason: reason.into(),
    };
    let read_err = |source| StoreError::Read {
        path: path.to_owned(),
        source,
    };
    let file = match OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC | libc::O_NONBLOCK)
        .open(path)
    {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) if crate::support::sys::refused_symlink(&e) => {
            return Err(corrupt(
                "it is a symbolic link, and swarm never follows links for state files",
            ));
        }
        Err(e) => return Err(read_err(e)),
    };
    if !file.metadata().map_err(read_err)?.is_file() {
        return Err(corrupt(
            "it is not a regular file (a directory, FIFO, socket or device)",
        ));
    }
    Ok(Some(file))
}

/// Creates `dir` and any missing parents with mode 0700.
pub fn ensure_private_dir(dir: &Path) -> io::Result<()> {
    if dir.is_dir() {
        return Ok(());
    }
    DirBuilder::new().recursive(true).mode(0o700).create(dir)
}

impl StateFile {
    /// The state file at `path`.
    pub(crate) fn new(path: impl Into<PathBuf>) -> StateFile {
        StateFile { path: path.into() }
    }

    /// Where the data lives.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// When the file was last written, if it exists (a final symbolic link
    /// is not followed).
    pub(crate) fn modified(&self) -> Option<SystemTime> {
        fs::symlink_metadata(&self.path)
            .and_then(|m| m.modified())
            .ok()
    }

    fn file_name(&self) -> String {
        self.path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "state".into())
    }

    fn dir(&self) -> &Path {
        self.path.parent().unwrap_or(Path::new("."))
    }

    /// The sidecar lock file, `.<name>.lock` beside the data.
    pub(crate) fn lock_path(&self) -> PathBuf {
        self.dir().join(format!(".{}.lock", self.file_name()))
    }

    fn temp_prefix(&self) -> String {
        format!(".{}.tmp-", self.file_name())
    }

    /// Takes the exclusive lock, waiting at most `timeout`. Creates the
    /// directory (0700) and the sidecar (0600) when missing.
    pub(crate) fn lock(&self, timeout: Duration) -> Result<StateLock, StoreError> {
        self.take_lock(timeout, true)
    }

    /// As `lock`, for a file used only as a mutex (never written through
    /// `write`, so no temp file of it can be left to clean up): skips the
    /// directory listing `lock` makes, which for the per-pane delivery
    /// locks of a broadcast would list one directory once per pane.
    pub(crate) fn lock_only(&self, timeout: Duration) -> Result<StateLock, StoreError> {
        self.take_lock(timeout, false)
    }

    fn take_lock(&self, timeout: Duration, clean_temps: bool) -> Result<StateLock, StoreError> {
        let file = flock(&self.lock_path(), timeout)?;
        // Holding the lock means no other writer of this file is mid-write:
        // temp files left now were left by a writer that died.
        if clean_temps {
            remove_stale_temps(self.dir(), &self.temp_prefix());
        }
        Ok(StateLock {
            _file: file,
            data: self.path.clone(),
        })
    }

    /// The raw content; `Ok(None)` when the file does not exist.
    pub(crate) fn read(&self) -> Result<Option<Vec<u8>>, StoreError> {
        let read_err = |source| StoreError::Read {
            path: self.path.clone(),
            source,
        };
        let Some(mut file) = open_for_read(&self.path)? else {
            return Ok(None);
        };
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes).map_err(read_err)?;
        Ok(Some(bytes))
    }

    /// Reads and parses JSON. A missing file is `Missing`; an empty file,
    /// invalid JSON, the wrong shape or a symlink is `Corrupt` with the
    /// reason; only I/O failures (permissions, ...) are errors.
    pub(crate) fn read_json<T: DeserializeOwned>(&self) -> Result<Loaded<T>, StoreError> {
        let bytes = match self.read() {
            Ok(Some(bytes)) => bytes,
            Ok(None) => return Ok(Loaded::Missing),
            Err(StoreError::Corrupt { reason, .. }) => return Ok(Loaded::Corrupt(reason)),
            Err(e) => return Err(e),
        };
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return Ok(Loaded::Corrupt("the file is empty".into()));
        }
        Ok(match serde_json::from_slice(&bytes) {
            Ok(value) => Loaded::Valid(value),
            Err(e) => Loaded::Corrupt(e.to_string()),
        })
    }

    /// Reads JSON under `lock` for a change: a missing file is the
    /// default; a damaged one is moved aside (see `preserve`) and counts
    /// as the default, with a warning ending in `then` (", and the queue
    /// starts empty"); only I/O failures are errors.
    pub(crate) fn read_json_for_change<T: DeserializeOwned + Default>(
        &self,
        lock: &StateLock,
        warnings: &mut Vec<String>,
        then: &str,
    ) -> Result<T, StoreError> {
        match self.read_json::<T>() {
            Ok(Loaded::Valid(v)) => Ok(v),
            Ok(Loaded::Missing) => Ok(T::default()),
            Ok(Loaded::Corrupt(why)) | Err(StoreError::Corrupt { reason: why, .. }) => {
                let aside = self.preserve(lock)?;
                warnings.push(format!(
                    "{} was damaged ({why}); moved aside{}{then}",
                    self.path.display(),
                    aside
                        .map(|p| format!(" to {}", p.display()))
                        .unwrap_or_default()
                ));
                Ok(T::default())
            }
            Err(e) => Err(e),
        }
    }

    /// `read_json_for_change` for a store whose operations carry no
    /// warnings: what it would warn of is reported as a notice
    /// (`notices.rs`) instead.
    pub(crate) fn load_for_change<T: DeserializeOwned + Default>(
        &self,
        lock: &StateLock,
        then: &str,
    ) -> Result<T, StoreError> {
        let mut warnings = Vec::new();
        let value = self.read_json_for_change(lock, &mut warnings, then)?;
        for warning in warnings {
            super::notices::report(warning);
        }
        Ok(value)
    }

    /// Reads JSON without the lock (writes are atomic renames): a missing
    /// file is the default. A damaged one is not silently read as empty:
    /// the lock is taken and it is moved aside by `load_for_change`,
    /// which says so, so the first read that finds the damage reports it
    /// and keeps its bytes before any write could replace them.
    pub(crate) fn load_or_set_aside<T: DeserializeOwned + Default>(
        &self,
        then: &str,
    ) -> Result<T, StoreError> {
        match self.read_json::<T>()? {
            Loaded::Valid(v) => Ok(v),
            Loaded::Missing => Ok(T::default()),
            Loaded::Corrupt(_) => {
                let lock = self.lock(DEFAULT_LOCK_TIMEOUT)?;
                self.load_for_change(&lock, then)
            }
        }
    }

    /// Replaces the content atomically (temp file, fsync, rename; mode
    /// 0600). Temp files a crashed writer left behind were removed when the
    /// lock was taken.
    pub(crate) fn write(&self, lock: &StateLock, bytes: &[u8]) -> Result<(), StoreError> {
        self.replace(lock, bytes, true)
    }

    /// Like `write`, without the fsync: still atomic for readers and
    /// crash-safe for the process, but a power loss may bring back the
    /// previous version. For state that is cheap to lose or rebuilt from
    /// other files (rate-limit windows, read cursors, the lock index) and
    /// written on hot paths.
    pub(crate) fn write_unsynced(&self, lock: &StateLock, bytes: &[u8]) -> Result<(), StoreError> {
        self.replace(lock, bytes, false)
    }

    fn replace(&self, lock: &StateLock, bytes: &[u8], sync: bool) -> Result<(), StoreError> {
        debug_assert_eq!(lock.data, self.path, "lock taken for another file");
        let write_err = |source| StoreError::Write {
            path: self.path.clone(),
            source,
        };
        let mut temp = tempfile::Builder::new()
            .prefix(&self.temp_prefix())
            .rand_bytes(10)
            .tempfile_in(self.dir())
            .map_err(write_err)?;
        temp.write_all(bytes).map_err(write_err)?;
        if sync {
            temp.as_file().sync_all().map_err(write_err)?;
        }
        temp.persist(&self.path).map_err(|e| write_err(e.error))?;
        Ok(())
    }

    /// Moves a damaged file aside to `<name>.corrupt-<UTC time>` so that it
    /// is preserved (for the user to inspect) before being replaced.
    /// Returns where it went, or `None` when there was nothing to move.
    pub(crate) fn preserve(&self, lock: &StateLock) -> Result<Option<PathBuf>, StoreError> {
        debug_assert_eq!(lock.data, self.path, "lock taken for another file");
        if fs::symlink_metadata(&self.path).is_err() {
            return Ok(None);
        }
        let stamp = chrono::Utc::now().format("%Y%m%dT%H%M%S%.6fZ");
        let aside = self
            .dir()
            .join(format!("{}.corrupt-{stamp}", self.file_name()));
        fs::rename(&self.path, &aside).map_err(|source| StoreError::Write {
            path: self.path.clone(),
            source,
        })?;
        Ok(Some(aside))
    }

    /// Deletes the file; `Ok(false)` when there was none. Only the data
    /// goes: the sidecar lock stays, since other processes may be waiting
    /// on it.
    pub(crate) fn remove(&self, lock: &StateLock) -> Result<bool, StoreError> {
        debug_assert_eq!(lock.data, self.path, "lock taken for another file");
        match fs::remove_file(&self.path) {
            Ok(()) => Ok(true),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
            Err(source) => Err(StoreError::Write {
                path: self.path.clone(),
                source,
            }),
        }
    }
}

/// Takes an exclusive `flock` on the file at `lock_path`, waiting at most
/// `timeout`; creates the file (0600) and its directory (0700) when
/// missing. The lock lasts as long as the returned file is open.
pub(super) fn flock(lock_path: &Path, timeout: Duration) -> Result<File, StoreError> {
    let lock_err = |source| StoreError::Lock {
        path: lock_path.to_owned(),
        source,
    };
    let open = || {
        OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .mode(0o600)
            .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
            .open(lock_path)
    };
    // The directory is made only when it is missing, so taking a lock in
    // place (every lock of a broadcast) costs no look at it first.
    let file = match open() {
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            ensure_private_dir(lock_path.parent().unwrap_or(Path::new("."))).and_then(|()| open())
        }
        opened => opened,
    }
    .map_err(lock_err)?;
    let taken = LOCK_LOOKS.until(deadline_in(timeout), || match file.try_lock() {
        Ok(()) => ControlFlow::Break(Ok(())),
        Err(TryLockError::WouldBlock) => ControlFlow::Continue(()),
        Err(TryLockError::Error(e)) => ControlFlow::Break(Err(e)),
    });
    match taken {
        Ok(Ok(())) => Ok(file),
        Ok(Err(e)) => Err(lock_err(e)),
        Err(()) => Err(StoreError::LockTimeout {
            path: lock_path.to_owned(),
            timeout,
        }),
    }
}

/// How often a lock another process holds is tried again: soon at first
/// (most holders are done within a millisecond), then every 10 ms.
const LOCK_LOOKS: Pauses = Pauses::new(Duration::from_micros(200), Duration::from_millis(10));

/// Removes the files of `dir` whose names start with `prefix`: the temp
/// files a writer that died left behind (call only while holding the
/// file's lock).
pub(super) fn remove_stale_temps(dir: &Path, prefix: &str) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        if entry
            .file_name()
            .as_encoded_bytes()
            .starts_with(prefix.as_bytes())
        {
            let _ = fs::remove_file(entry.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;
    use std::sync::{Arc, Barrier};
    use std::thread;

    fn file(dir: &tempfile::TempDir, name: &str) -> StateFile {
        StateFile::new(dir.path().join(name))
    }

    #[test]
    fn missing_empty_garbage_and_valid() {
        let dir = tempfile::tempdir().expect("tempdir");
        let f = file(&dir, "s.json");
        assert_eq!(
            f.read_json::<serde_json::Value>().expect("read"),
            Loaded::Missing
        );
        fs::write(f.path(), "  \n").expect("write");
        assert!(
            matches!(f.read_json::<serde_json::Value>(), Ok(Loaded::Corrupt(r)) if r.contains("empty"))
        );
        fs::write(f.path(), "{\"a\":").expect("write");
        assert!(matches!(
            f.read_json::<serde_json::Value>(),
            Ok(Loaded::Corrupt(_))
        ));
        fs::write(f.path(), "[1]").expect("write");
        assert!(matches!(f.read_json::<Vec<u32>>(), Ok(Loaded::Valid(v)) if v == [1]));
        assert!(matches!(f.read_json::<String>(), Ok(Loaded::Corrupt(_))));
    }

    #[test]
    fn writes_are_private_and_leave_no_temp_files() {
        let dir = tempfile::tempdir().expect("tempdir");
        let f = file(&dir, "s.json");
        // A temp file left by a writer that crashed.
        fs::write(dir.path().join(".s.json.tmp-crashed"), "half").expect("write");
        let lock = f.lock(DEFAULT_LOCK_TIMEOUT).expect("lock");
        f.write(&lock, b"{}").expect("write");
        assert_eq!(fs::read(f.path()).expect("read"), b"{}");
        let mode = fs::metadata(f.path()).expect("meta").permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        let mut names: Vec<_> = fs::read_dir(dir.path())
            .expect("ls")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(names, [".s.json.lock", "s.json"]);
    }

    #[test]
    fn symlinks_are_reported_not_followed() {
        let dir = tempfile::tempdir().expect("tempdir");
        let outside = dir.path().join("outside.json");
        fs::write(&outside, "{\"secret\": 1}").expect("write");
        let f = file(&dir, "s.json");
        std::os::unix::fs::symlink(&outside, f.path()).expect("symlink");
        assert!(
            matches!(f.read_json::<serde_json::Value>(), Ok(Loaded::Corrupt(r)) if r.contains("symbolic link"))
        );
        let lock = f.lock(DEFAULT_LOCK_TIMEOUT).expect("lock");
        let aside = f.preserve(&lock).expect("preserve").expect("moved");
        f.write(&lock, b"{}").expect("write");
        // The link target is untouched; the link itself was moved aside.
        assert_eq!(fs::read(&outside).expect("read"), b"{\"secret\": 1}");
        assert!(
            fs::symlink_metadata(&aside)
                .expect("meta")
                .file_type()
                .is_symlink()
        );
        assert_eq!(fs::read(f.path()).expect("read"), b"{}");
    }

    #[test]
    fn remove_deletes_the_data_and_keeps_the_lock() {
        let dir = tempfile::tempdir().expect("tempdir");
        let f = file(&dir, "s.json");
        let lock = f.lock(DEFAULT_LOCK_TIMEOUT).expect("lock");
        assert!(!f.remove(&lock).expect("nothing to remove"));
        f.write(&lock, b"{}").expect("write");
        assert!(f.remove(&lock).expect("remove"));
        assert_eq!(f.read().expect("read"), None);
        assert!(f.lock_path().exists());
    }

    #[test]
    fn lock_times_out_while_held_and_is_released_on_drop() {
        let dir = tempfile::tempdir().expect("tempdir");
        let f = file(&dir, "s.json");
        let held = f.lock(DEFAULT_LOCK_TIMEOUT).expect("lock");
        let err = f.lock(Duration::from_millis(20)).expect_err("held");
        assert!(matches!(err, StoreError::LockTimeout { .. }), "{err}");
        drop(held);
        f.lock(Duration::from_millis(20)).expect("free again");
    }

    #[test]
    fn a_lock_whose_wait_is_too_long_for_the_clock_is_still_taken() {
        let dir = tempfile::tempdir().expect("tempdir");
        let f = file(&dir, "s.json");
        f.lock(Duration::MAX)
            .expect("a free lock, whatever the wait");
    }

    #[test]
    fn concurrent_read_modify_write_loses_nothing() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("n.json");
        let threads = 8;
        let per_thread = 25;
        let barrier = Arc::new(Barrier::new(threads));
        let handles: Vec<_> = (0..threads)
            .map(|_| {
                let path = path.clone();
                let barrier = Arc::clone(&barrier);
                thread::spawn(move || {
                    let f = StateFile::new(path);
                    barrier.wait();
                    for _ in 0..per_thread {
                        let lock = f.lock(DEFAULT_LOCK_TIMEOUT).expect("lock");
                        let n = match f.read_json::<u64>().expect("read") {
                            Loaded::Valid(n) => n,
                            Loaded::Missing => 0,
                            Loaded::Corrupt(why) => panic!("torn read: {why}"),
                        };
                        f.write(&lock, (n + 1).to_string().as_bytes())
                            .expect("write");
                    }
                })
            })
            .collect();
        for h in handles {
            h.join().expect("thread");
        }
        let f = StateFile::new(path);
        assert_eq!(
            f.read_json::<u64>().expect("read"),
            Loaded::Valid((threads * per_thread) as u64)
        );
    }
}
