//! Looking at state files without using them, for `swarm doctor`: what
//! kind of file each is, its mode, and the names in a state directory.

use std::fs;
use std::io;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use super::error::StoreError;

/// What is at a path (links are not followed).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
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
pub struct Status {
    /// What it is.
    pub kind: Kind,
    /// Permission bits (`0o600`); 0 when missing.
    pub mode: u32,
    /// Size in bytes; 0 when missing.
    pub len: u64,
}

/// The status of `path`, without following a final symbolic link.
pub fn status(path: &Path) -> Result<Status, StoreError> {
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
            Ok(Status {
                kind,
                mode: m.permissions().mode() & 0o7777,
                len: m.len(),
            })
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(Status {
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
pub fn list_dir(dir: &Path) -> Result<Vec<String>, StoreError> {
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

#[cfg(test)]
mod tests {
    use super::*;

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
