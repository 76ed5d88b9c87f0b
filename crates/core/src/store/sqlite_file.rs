//! `SqliteFile`: a SQLite database swarm keeps beside its state files as a
//! cache of them (the message index, docs/FORMATS.md). It is opened only as
//! a regular file (never through a symbolic link), created with mode 0600
//! in a private directory, and, being a cache, thrown away with its journal
//! files when it is damaged, for its owner to build again.

use std::fs::{self, OpenOptions};
use std::io::ErrorKind;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::{Connection, ErrorCode, OpenFlags};

use super::error::StoreError;
use super::state_file::ensure_private_dir;

/// How long a statement waits for another process's write to end.
const BUSY_TIMEOUT: Duration = Duration::from_secs(10);

/// One database file.
#[derive(Clone, Debug)]
pub(crate) struct SqliteFile {
    path: PathBuf,
}

impl SqliteFile {
    /// The database at `path`.
    pub(crate) fn new(path: impl Into<PathBuf>) -> SqliteFile {
        SqliteFile { path: path.into() }
    }

    /// Where it is.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// Opens it for reading and writing, creating an empty one (mode
    /// 0600) when there is none. Something that is not a regular file in
    /// its place (a link, a directory) is removed first: it is a cache.
    /// Writers wait for each other (up to 10 s) and readers never wait
    /// for writers (write-ahead journal).
    pub(crate) fn open(&self) -> Result<Connection, StoreError> {
        let write_err = |source| StoreError::Write {
            path: self.path.clone(),
            source,
        };
        if let Some(dir) = self.path.parent() {
            ensure_private_dir(dir).map_err(write_err)?;
        }
        match fs::symlink_metadata(&self.path) {
            Ok(meta) if meta.is_file() => {}
            Ok(meta) => {
                if meta.is_dir() {
                    fs::remove_dir_all(&self.path).map_err(write_err)?;
                } else {
                    fs::remove_file(&self.path).map_err(write_err)?;
                }
                self.create()?;
            }
            // Journal files left from a database removed by hand would be
            // replayed into the new one.
            Err(e) if e.kind() == ErrorKind::NotFound => {
                self.discard()?;
                self.create()?;
            }
            Err(e) => return Err(write_err(e)),
        }
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_NO_MUTEX
            | OpenFlags::SQLITE_OPEN_NOFOLLOW;
        let conn = Connection::open_with_flags(&self.path, flags).map_err(|e| self.error(&e))?;
        conn.busy_timeout(BUSY_TIMEOUT)
            .map_err(|e| self.error(&e))?;
        // The journal mode is the file's own; asking for it reads the
        // header, so a file that is no database fails here.
        conn.pragma_update(None, "journal_mode", "WAL")
            .map_err(|e| self.error(&e))?;
        conn.pragma_update(None, "synchronous", "NORMAL")
            .map_err(|e| self.error(&e))?;
        Ok(conn)
    }

    /// Creates the empty file with mode 0600 (SQLite gives its journal
    /// files the database's mode).
    fn create(&self) -> Result<(), StoreError> {
        match OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
            .open(&self.path)
        {
            Ok(_) => Ok(()),
            Err(e) if e.kind() == ErrorKind::AlreadyExists => Ok(()),
            Err(source) => Err(StoreError::Write {
                path: self.path.clone(),
                source,
            }),
        }
    }

    /// Removes the database and its journal files.
    pub(crate) fn discard(&self) -> Result<(), StoreError> {
        for suffix in ["", "-wal", "-shm", "-journal"] {
            let mut name = self.path.clone().into_os_string();
            name.push(suffix);
            match fs::remove_file(&name) {
                Ok(()) => {}
                Err(e) if e.kind() == ErrorKind::NotFound => {}
                Err(source) => {
                    return Err(StoreError::Write {
                        path: name.into(),
                        source,
                    });
                }
            }
        }
        Ok(())
    }

    /// A SQLite failure on this database as a store error.
    pub(crate) fn error(&self, e: &rusqlite::Error) -> StoreError {
        StoreError::Database {
            path: self.path.clone(),
            detail: e.to_string(),
        }
    }
}

/// True when SQLite says the file is damaged or is no database at all:
/// what a cache answers by being built again.
pub(crate) fn is_damage(e: &rusqlite::Error) -> bool {
    matches!(
        e.sqlite_error_code(),
        Some(ErrorCode::DatabaseCorrupt | ErrorCode::NotADatabase)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn a_new_database_is_private_and_garbage_reads_as_damage() {
        let dir = tempfile::tempdir().expect("tempdir");
        let file = SqliteFile::new(dir.path().join("sub").join("x.sqlite3"));
        let conn = file.open().expect("open");
        conn.execute_batch("CREATE TABLE t(a)").expect("create");
        drop(conn);
        let mode = fs::metadata(file.path())
            .expect("meta")
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
        file.discard().expect("discard");
        fs::write(file.path(), vec![b'x'; 8192]).expect("write");
        let e = file.open().map(|_| ()).expect_err("not a database");
        assert!(e.to_string().contains("x.sqlite3"), "{e}");
        let raw = Connection::open(file.path()).expect("open raw");
        let err = raw
            .query_row("SELECT count(*) FROM sqlite_master", [], |r| {
                r.get::<_, i64>(0)
            })
            .expect_err("damaged");
        assert!(is_damage(&err), "{err}");
    }

    #[test]
    fn a_link_in_its_place_is_replaced_not_followed() {
        let dir = tempfile::tempdir().expect("tempdir");
        let target = dir.path().join("elsewhere");
        fs::write(&target, "keep").expect("write");
        let path = dir.path().join("x.sqlite3");
        std::os::unix::fs::symlink(&target, &path).expect("symlink");
        let file = SqliteFile::new(&path);
        file.open().expect("open");
        assert_eq!(fs::read_to_string(&target).expect("read"), "keep");
        assert!(fs::symlink_metadata(&path).expect("meta").is_file());
    }
}
