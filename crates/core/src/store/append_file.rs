//! `AppendFile`: a log that only grows, one line per record (the audit
//! log). Each line is one `write` to a file opened with `O_APPEND`, under
//! the file's sidecar lock, so lines from concurrent writers never
//! interleave and a reader never sees half a line from a live writer.
//! Every append-only log (this one, the message log, the activity feed,
//! the hook and watcher logs) is opened by `open_append`, which refuses
//! anything but a regular file instead of blocking on a FIFO.

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use super::error::StoreError;
use super::state_file::{DEFAULT_LOCK_TIMEOUT, StateFile};

/// How an append-only log is opened by `open_append`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum AppendMode {
    /// Appending, the file created (0600) when missing.
    Append,
    /// Appending and reading (to look at the last byte written).
    AppendAndRead,
    /// Started afresh: created or truncated (a log past its size limit).
    Truncate,
}

/// Opens the append-only log at `path` for writing: created with mode
/// 0600 when missing, never through a symbolic link, and never waiting on
/// a FIFO, socket or device someone put there. The open is non-blocking
/// (a FIFO without a reader then fails at once instead of waiting for
/// one) and the type is checked on the opened handle, so nothing can be
/// swapped in between a check and the open. A regular file ignores
/// `O_NONBLOCK`, so the handle behaves as a plain one.
pub(crate) fn open_append(path: &Path, mode: AppendMode) -> Result<File, StoreError> {
    let write_err = |source| StoreError::Write {
        path: path.to_owned(),
        source,
    };
    let not_regular = |kind: &'static str| StoreError::NotRegular {
        path: path.to_owned(),
        kind,
    };
    let mut options = OpenOptions::new();
    options
        .create(true)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC | libc::O_NONBLOCK);
    match mode {
        AppendMode::Append => options.append(true),
        AppendMode::AppendAndRead => options.append(true).read(true),
        AppendMode::Truncate => options.write(true).truncate(true),
    };
    let file = match options.open(path) {
        Ok(f) => f,
        Err(e) if crate::support::sys::refused_symlink(&e) => {
            return Err(not_regular("a symbolic link"));
        }
        // What a non-blocking open of a FIFO nobody reads says.
        Err(e) if e.raw_os_error() == Some(libc::ENXIO) => return Err(not_regular("a FIFO")),
        Err(e) if e.kind() == io::ErrorKind::IsADirectory => {
            return Err(not_regular("a directory"));
        }
        Err(e) => return Err(write_err(e)),
    };
    let kind = file.metadata().map_err(write_err)?.file_type();
    if kind.is_file() {
        return Ok(file);
    }
    Err(not_regular(if kind.is_fifo() {
        "a FIFO"
    } else if kind.is_socket() {
        "a socket"
    } else if kind.is_char_device() || kind.is_block_device() {
        "a device"
    } else if kind.is_dir() {
        "a directory"
    } else {
        "not a regular file"
    }))
}

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
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// The file opened for a process swarm starts to write its output to
    /// (standard output and error), started afresh when it is larger than
    /// `limit` bytes.
    pub(crate) fn open_for_child(&self, limit: u64) -> Result<File, StoreError> {
        let write_err = |source| StoreError::Write {
            path: self.path.clone(),
            source,
        };
        if let Some(dir) = self.path.parent() {
            super::state_file::ensure_private_dir(dir).map_err(write_err)?;
        }
        let fresh = std::fs::symlink_metadata(&self.path).is_ok_and(|m| m.len() > limit);
        open_append(
            &self.path,
            if fresh {
                AppendMode::Truncate
            } else {
                AppendMode::Append
            },
        )
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
        let mut file = open_append(&self.path, AppendMode::Append)?;
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
                return Err(write_err(io::Error::other(format!(
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
