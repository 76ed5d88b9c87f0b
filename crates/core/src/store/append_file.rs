//! `AppendFile`: a log that only grows, one line per record (the audit
//! log). Each line is one `write` to a file opened with `O_APPEND`, under
//! the file's sidecar lock, so lines from concurrent writers never
//! interleave and a reader never sees half a line from a live writer.

use std::fs::OpenOptions;
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::PathBuf;

use super::error::StoreError;
use super::state_file::{DEFAULT_LOCK_TIMEOUT, StateFile};

/// An append-only file of lines.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct AppendFile {
    path: PathBuf,
}

impl AppendFile {
    /// The file at `path` (created with mode 0600 on first append).
    pub(crate) fn new(path: impl Into<PathBuf>) -> AppendFile {
        AppendFile { path: path.into() }
    }

    /// Where the lines go.
    #[cfg(test)]
    pub(crate) fn path(&self) -> &std::path::Path {
        &self.path
    }

    /// The file opened for a process swarm starts to write its output to
    /// (standard output and error), started afresh when it is larger than
    /// `limit` bytes.
    pub(crate) fn open_for_child(&self, limit: u64) -> Result<std::fs::File, StoreError> {
        let write_err = |source| StoreError::Write {
            path: self.path.clone(),
            source,
        };
        if let Some(dir) = self.path.parent() {
            super::state_file::ensure_private_dir(dir).map_err(write_err)?;
        }
        let fresh = std::fs::symlink_metadata(&self.path).is_ok_and(|m| m.len() > limit);
        OpenOptions::new()
            .create(true)
            .append(!fresh)
            .write(true)
            .truncate(fresh)
            .mode(0o600)
            .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
            .open(&self.path)
            .map_err(write_err)
    }

    /// Appends each of `lines` (a newline is added to any that lacks one)
    /// and flushes them to disk before returning.
    pub(crate) fn append_lines(&self, lines: &[Vec<u8>]) -> Result<(), StoreError> {
        self.append(lines, true)
    }

    /// The same without waiting for the disk: for records whose last lines
    /// may be lost in a power cut (the activity feed), not for the audit.
    pub(crate) fn append_lines_unsynced(&self, lines: &[Vec<u8>]) -> Result<(), StoreError> {
        self.append(lines, false)
    }

    fn append(&self, lines: &[Vec<u8>], sync: bool) -> Result<(), StoreError> {
        if lines.is_empty() {
            return Ok(());
        }
        let write_err = |source| StoreError::Write {
            path: self.path.clone(),
            source,
        };
        // The sidecar lock is the same one StateFile would take for this
        // path, so nothing else can be writing it meanwhile.
        let _guard = StateFile::new(&self.path).lock(DEFAULT_LOCK_TIMEOUT)?;
        let mut file = OpenOptions::new()
            .append(true)
            .create(true)
            .mode(0o600)
            .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
            .open(&self.path)
            .map_err(write_err)?;
        for line in lines {
            let mut buf = Vec::with_capacity(line.len() + 1);
            buf.extend_from_slice(line);
            if buf.last() != Some(&b'\n') {
                buf.push(b'\n');
            }
            // One write call per line: with O_APPEND the kernel places it
            // at the end in one piece.
            let written = file.write(&buf).map_err(write_err)?;
            if written != buf.len() {
                return Err(write_err(std::io::Error::other(format!(
                    "short write ({written} of {} bytes)",
                    buf.len()
                ))));
            }
        }
        if sync {
            file.sync_data().map_err(write_err)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Barrier};
    use std::thread;

    #[test]
    fn concurrent_appends_keep_every_line_whole() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let log = AppendFile::new(tmp.path().join("sub/audit.log"));
        let writers = 8;
        let per_writer = 20;
        let barrier = Arc::new(Barrier::new(writers));
        let handles: Vec<_> = (0..writers)
            .map(|w| {
                let (log, barrier) = (log.clone(), Arc::clone(&barrier));
                thread::spawn(move || {
                    barrier.wait();
                    for i in 0..per_writer {
                        let line = format!(
                            "{{\"w\": {w}, \"i\": {i}, \"pad\": \"{}\"}}",
                            "x".repeat(500)
                        );
                        log.append_lines(&[line.into_bytes()]).expect("append");
                    }
                })
            })
            .collect();
        for h in handles {
            h.join().expect("thread");
        }
        let text = std::fs::read_to_string(log.path()).expect("read");
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), writers * per_writer);
        for line in lines {
            serde_json::from_str::<serde_json::Value>(line).expect("whole JSON line");
        }
    }
}
