//! `LogFiles`: the files of a log kept in segments. The live segment has
//! the log's own name (`agent_messages.log`); rotated segments are renamed
//! to `<name>.<N>` with N counting up from 1 and never reused, so a
//! segment keeps its number (and its inode) for as long as it exists. A
//! `<name>.old` left by the Python tool (or an older swarm) is picked up
//! by the caller. Renames and removals need the log's lock; reads need
//! none, and count the bytes they read so callers can prove what a read
//! cost.

use std::cell::Cell;
use std::fs::{self, File};
use std::io;
use std::os::unix::fs::{FileExt, MetadataExt};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use super::error::StoreError;
use super::state_file::{StateLock, open_for_read};

/// What `stat` says about one segment file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct FileStat {
    /// Its inode: stays the same across a rename.
    pub ino: u64,
    /// Its size in bytes.
    pub len: u64,
    /// When it was last written.
    pub modified: Option<SystemTime>,
}

/// Counts the bytes read from segment files.
#[derive(Debug, Default)]
pub(crate) struct ReadMeter {
    bytes: Cell<u64>,
}

impl ReadMeter {
    /// Bytes read so far.
    #[cfg(test)]
    pub(crate) fn bytes(&self) -> u64 {
        self.bytes.get()
    }

    fn add(&self, n: usize) {
        self.bytes.set(self.bytes.get() + n as u64);
    }
}

/// The segment files of one log.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogFiles {
    current: PathBuf,
}

impl LogFiles {
    /// The segments of the log whose live file is `current`.
    pub fn new(current: impl Into<PathBuf>) -> LogFiles {
        LogFiles {
            current: current.into(),
        }
    }

    /// The live segment.
    pub(crate) fn current(&self) -> &Path {
        &self.current
    }

    fn name(&self) -> String {
        self.current
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "log".into())
    }

    /// `<name>.old`: the one rotated file the Python tool keeps.
    pub(crate) fn old(&self) -> PathBuf {
        self.current.with_file_name(format!("{}.old", self.name()))
    }

    /// `<name>.<n>`: rotated segment number `n`.
    pub fn numbered(&self, n: u64) -> PathBuf {
        self.current.with_file_name(format!("{}.{n}", self.name()))
    }

    /// The segment number a file name stands for, if it is one of ours.
    pub(crate) fn number_of(&self, file_name: &str) -> Option<u64> {
        let rest = file_name.strip_prefix(&self.name())?.strip_prefix('.')?;
        if rest.is_empty() || rest.starts_with('0') || !rest.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        rest.parse().ok()
    }

    /// The numbers of the rotated segments present, in order (one listing
    /// of the directory).
    pub fn numbers(&self) -> Result<Vec<u64>, StoreError> {
        let dir = self.current.parent().unwrap_or(Path::new("."));
        let read_err = |source| StoreError::Read {
            path: dir.to_owned(),
            source,
        };
        let mut out = Vec::new();
        for entry in fs::read_dir(dir).map_err(read_err)? {
            let entry = entry.map_err(read_err)?;
            if let Some(n) = entry.file_name().to_str().and_then(|s| self.number_of(s)) {
                out.push(n);
            }
        }
        out.sort_unstable();
        Ok(out)
    }

    /// A segment file's inode and size; `None` when it is missing or not
    /// a regular file (a link or a FIFO holds nothing of ours).
    pub(crate) fn stat(path: &Path) -> Result<Option<FileStat>, StoreError> {
        match fs::symlink_metadata(path) {
            Ok(m) if m.is_file() => Ok(Some(FileStat {
                ino: m.ino(),
                len: m.len(),
                modified: m.modified().ok(),
            })),
            Ok(_) => Ok(None),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(source) => Err(StoreError::Read {
                path: path.to_owned(),
                source,
            }),
        }
    }

    /// Opens a segment for reading; `None` when it is missing or not a
    /// regular file.
    pub(crate) fn open(path: &Path) -> Result<Option<(File, FileStat)>, StoreError> {
        let file = match open_for_read(path) {
            Ok(Some(f)) => f,
            Ok(None) | Err(StoreError::Corrupt { .. }) => return Ok(None),
            Err(e) => return Err(e),
        };
        let m = file.metadata().map_err(|source| StoreError::Read {
            path: path.to_owned(),
            source,
        })?;
        let stat = FileStat {
            ino: m.ino(),
            len: m.len(),
            modified: m.modified().ok(),
        };
        Ok(Some((file, stat)))
    }

    /// Renames segment `from` to `to` under the log's lock, refusing to
    /// replace a file that is already there.
    pub(crate) fn rename(
        &self,
        _guard: &StateLock,
        from: &Path,
        to: &Path,
    ) -> Result<(), StoreError> {
        let write_err = |source| StoreError::Write {
            path: from.to_owned(),
            source,
        };
        if fs::symlink_metadata(to).is_ok() {
            return Err(StoreError::Exists {
                path: to.to_owned(),
            });
        }
        fs::rename(from, to).map_err(write_err)
    }

    /// Removes a rotated segment under the log's lock; `Ok(false)` when it
    /// was already gone.
    pub(crate) fn remove(&self, _guard: &StateLock, path: &Path) -> Result<bool, StoreError> {
        match fs::remove_file(path) {
            Ok(()) => Ok(true),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
            Err(source) => Err(StoreError::Write {
                path: path.to_owned(),
                source,
            }),
        }
    }
}

/// Reads `len` bytes at `offset` (fewer at the end of the file), counting
/// them on `meter`.
pub(crate) fn read_at(
    file: &File,
    path: &Path,
    offset: u64,
    len: u64,
    meter: &ReadMeter,
) -> Result<Vec<u8>, StoreError> {
    let want = usize::try_from(len).unwrap_or(usize::MAX);
    let mut buf = vec![0u8; want];
    let mut got = 0;
    while got < want {
        match file.read_at(&mut buf[got..], offset + got as u64) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(source) => {
                return Err(StoreError::Read {
                    path: path.to_owned(),
                    source,
                });
            }
        }
    }
    buf.truncate(got);
    meter.add(got);
    Ok(buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_plain_numbers_are_segments() {
        let f = LogFiles::new("/p/agent_messages.log");
        assert_eq!(f.number_of("agent_messages.log.7"), Some(7));
        assert_eq!(f.number_of("agent_messages.log.12"), Some(12));
        for name in [
            "agent_messages.log",
            "agent_messages.log.old",
            "agent_messages.log.07",
            "agent_messages.log.0",
            "agent_messages.log.",
            "agent_messages.log.1.gz",
            ".agent_messages.log.lock",
            "agent_messages.logx.1",
        ] {
            assert_eq!(f.number_of(name), None, "{name}");
        }
        assert_eq!(f.numbered(3), Path::new("/p/agent_messages.log.3"));
        assert_eq!(f.old(), Path::new("/p/agent_messages.log.old"));
    }
}
