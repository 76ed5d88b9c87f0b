//! `PresenceLock`: a file whose lock says whether a kind of process runs.
//! Every such process holds a shared lock on it for as long as it lives
//! (the kernel drops the lock when the process dies, however it dies), so
//! "does one run?" is one failed attempt at an exclusive lock, and no
//! stale pid file can ever claim a process that is gone.

use std::fs::{File, OpenOptions, TryLockError};
use std::io;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use super::error::StoreError;
use super::state_file::ensure_private_dir;

/// A presence lock file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct PresenceLock {
    path: PathBuf,
}

/// Held while the process that took it lives (or until dropped).
#[derive(Debug)]
pub struct Present {
    _file: File,
}

impl PresenceLock {
    /// The lock file at `path`.
    pub(crate) fn new(path: impl Into<PathBuf>) -> PresenceLock {
        PresenceLock { path: path.into() }
    }

    fn open(&self) -> Result<File, StoreError> {
        let lock_err = |source| StoreError::Lock {
            path: self.path.clone(),
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
                .open(&self.path)
        };
        match open() {
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                ensure_private_dir(self.path.parent().unwrap_or(Path::new(".")))
                    .and_then(|()| open())
            }
            opened => opened,
        }
        .map_err(lock_err)
    }

    /// Says "one runs" for as long as the result is held (any number of
    /// processes may).
    pub(crate) fn announce(&self) -> Result<Present, StoreError> {
        let file = self.open()?;
        file.lock_shared().map_err(|source| StoreError::Lock {
            path: self.path.clone(),
            source,
        })?;
        Ok(Present { _file: file })
    }

    /// Claims being the only one, for as long as the result is held;
    /// `None` when another holds it (or announces itself).
    pub(crate) fn claim(&self) -> Result<Option<Present>, StoreError> {
        let file = self.open()?;
        match file.try_lock() {
            Ok(()) => Ok(Some(Present { _file: file })),
            Err(TryLockError::WouldBlock) => Ok(None),
            Err(TryLockError::Error(source)) => Err(StoreError::Lock {
                path: self.path.clone(),
                source,
            }),
        }
    }

    /// Whether some process announces itself (or claims it) now. A missing
    /// file means none ever did.
    pub(crate) fn is_held(&self) -> Result<bool, StoreError> {
        if !self.path.exists() {
            return Ok(false);
        }
        Ok(self.claim()?.is_none())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn announced_until_dropped() {
        let tmp = tempfile::tempdir().expect("test value");
        let lock = PresenceLock::new(tmp.path().join(".swarm/w.lock"));
        assert!(!lock.is_held().expect("test value"));
        let a = lock.announce().expect("test value");
        let b = lock.announce().expect("test value");
        assert!(lock.is_held().expect("test value"));
        assert!(lock.claim().expect("test value").is_none());
        drop(a);
        assert!(lock.is_held().expect("test value"));
        drop(b);
        assert!(!lock.is_held().expect("test value"));
        let only = lock.claim().expect("test value");
        assert!(only.is_some());
        assert!(lock.claim().expect("test value").is_none());
    }
}
