//! Looking at state files without using them: what kind of file each is,
//! its mode, and the names in a state directory (for `swarm doctor`); and
//! cheap stamps that change whenever a file or a directory's entries do
//! (for the dashboard's change detection).

use std::fs;
use std::io;
use std::os::unix::fs::{DirEntryExt, MetadataExt, PermissionsExt};
use std::path::Path;

use super::error::StoreError;

/// What is at a path (links are not followed).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// Nothing.
    Missing,
    /// A regular file.
    File,
    /// A directory.
    Dir,
    /// A symbolic link (swarm never follows these for state files).
    Symlink,
    /// A socket, fifo or device.
    Other,
}

/// The kind and permission bits of a path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct PathStatus {
    /// What it is.
    pub kind: Kind,
    /// Permission bits (`0o600`); 0 when missing.
    pub mode: u32,
    /// Size in bytes; 0 when missing.
    pub len: u64,
}

/// The status of `path`, without following a final symbolic link.
pub(crate) fn status(path: &Path) -> Result<PathStatus, StoreError> {
    match fs::symlink_metadata(path) {
        Ok(m) => {
            let t = m.file_type();
            let kind = if t.is_symlink() {
                Kind::Symlink
            } else if t.is_dir() {
                Kind::Dir
            } else if t.is_file() {
                Kind::File
            } else {
                Kind::Other
            };
            Ok(PathStatus {
                kind,
                mode: m.permissions().mode() & 0o7777,
                len: m.len(),
            })
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(PathStatus {
            kind: Kind::Missing,
            mode: 0,
            len: 0,
        }),
        Err(source) => Err(StoreError::Read {
            path: path.to_owned(),
            source,
        }),
    }
}

/// The names in directory `dir`, sorted; empty when it does not exist.
pub(crate) fn list_dir(dir: &Path) -> Result<Vec<String>, StoreError> {
    let entries = match fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(source) => {
            return Err(StoreError::Read {
                path: dir.to_owned(),
                source,
            });
        }
    };
    let mut names = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|source| StoreError::Read {
            path: dir.to_owned(),
            source,
        })?;
        names.push(entry.file_name().to_string_lossy().into_owned());
    }
    names.sort();
    Ok(names)
}

/// What identifies one version of a file: device, inode, size and
/// modification time (ns). State files are replaced by rename, so a new
/// version has a new inode even when the clock did not move; `None` when
/// the path is missing or cannot be looked at.
pub type Stamp = Option<(u64, u64, u64, i128)>;

/// The stamp of `path` (a final symbolic link is not followed).
pub fn file_stamp(path: &Path) -> Stamp {
    let m = fs::symlink_metadata(path).ok()?;
    let mtime = i128::from(m.mtime()) * 1_000_000_000 + i128::from(m.mtime_nsec());
    Some((m.dev(), m.ino(), m.len(), mtime))
}

/// The entries of directory `dir` whose names end with `suffix`, as
/// sorted (name, inode) pairs, read from the directory alone (no file is
/// opened or looked at): a file created, removed or replaced by rename
/// changes the list. Empty when the directory does not exist.
pub fn dir_entries(dir: &Path, suffix: &str) -> Result<Vec<(String, u64)>, StoreError> {
    let read_err = |source| StoreError::Read {
        path: dir.to_owned(),
        source,
    };
    let entries = match fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(read_err(e)),
    };
    let mut found = Vec::new();
    for entry in entries {
        let entry = entry.map_err(read_err)?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.ends_with(suffix) {
            found.push((name, entry.ino()));
        }
    }
    found.sort();
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stamps_change_with_every_new_version() {
        let dir = tempfile::tempdir().expect("tempdir");
        let f = dir.path().join("f");
        assert_eq!(file_stamp(&f), None);
        fs::write(&f, "one").expect("write");
        let first = file_stamp(&f);
        assert!(first.is_some());
        // Replaced by rename within the same clock tick: a new inode.
        let t = dir.path().join("t");
        fs::write(&t, "two").expect("write");
        fs::rename(&t, &f).expect("rename");
        assert_ne!(file_stamp(&f), first);

        let locks = dir.path().join("locks");
        assert!(dir_entries(&locks, ".lock").expect("missing").is_empty());
        fs::create_dir(&locks).expect("mkdir");
        fs::write(locks.join("b.lock"), "").expect("write");
        fs::write(locks.join("a.lock"), "").expect("write");
        fs::write(locks.join("a.lock.tmp"), "").expect("write");
        let names: Vec<String> = dir_entries(&locks, ".lock")
            .expect("list")
            .into_iter()
            .map(|(n, _)| n)
            .collect();
        assert_eq!(names, ["a.lock", "b.lock"]);
        let before = dir_entries(&locks, ".lock").expect("list");
        fs::rename(locks.join("a.lock.tmp"), locks.join("a.lock")).expect("rename");
        assert_ne!(dir_entries(&locks, ".lock").expect("list"), before);
    }

    #[test]
    fn kinds_and_listing() {
        let dir = tempfile::tempdir().expect("tempdir");
        let f = dir.path().join("f");
        fs::write(&f, "x").expect("write");
        fs::set_permissions(&f, fs::Permissions::from_mode(0o640)).expect("chmod");
        std::os::unix::fs::symlink(&f, dir.path().join("l")).expect("symlink");
        fs::create_dir(dir.path().join("d")).expect("mkdir");
        let s = status(&f).expect("status");
        assert_eq!((s.kind, s.mode, s.len), (Kind::File, 0o640, 1));
        assert_eq!(
            status(&dir.path().join("l")).expect("l").kind,
            Kind::Symlink
        );
        assert_eq!(status(&dir.path().join("d")).expect("d").kind, Kind::Dir);
        assert_eq!(
            status(&dir.path().join("n")).expect("n").kind,
            Kind::Missing
        );
        assert_eq!(list_dir(dir.path()).expect("ls"), ["d", "f", "l"]);
        assert!(list_dir(&dir.path().join("n")).expect("ls").is_empty());
    }
}
