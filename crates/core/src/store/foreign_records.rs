//! Reading files that other programs append to and swarm only reads: the
//! agents' own usage records under each agent's home (docs/USAGE.md). A
//! file is known by its identity (device and inode), so a reader can tell
//! a file that grew from one that was replaced or cut short; a read hands
//! back the identity of the file it read, so the bytes and the identity
//! always belong together.

use std::fs::{self, File};
use std::io::{self, Read, Seek, SeekFrom};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use super::error::StoreError;

/// Who a file is and how far it has grown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct RecordFile {
    /// Its device.
    pub dev: u64,
    /// Its inode: the same across appends, new when the file is replaced.
    pub ino: u64,
    /// Its size in bytes.
    pub len: u64,
    /// When it was last written.
    pub modified: Option<SystemTime>,
    /// When it was made, where the file system tells.
    pub created: Option<SystemTime>,
}

impl RecordFile {
    fn of(meta: &fs::Metadata) -> RecordFile {
        RecordFile {
            dev: meta.dev(),
            ino: meta.ino(),
            len: meta.len(),
            modified: meta.modified().ok(),
            created: meta.created().ok(),
        }
    }
}

/// What a file of records is now; `None` when it is missing or is not a
/// regular file (a link to one is followed: people link their agents'
/// homes).
pub(crate) fn record_file(path: &Path) -> Option<RecordFile> {
    let meta = fs::metadata(path).ok()?;
    meta.is_file().then(|| RecordFile::of(&meta))
}

/// The regular files directly in `dir`, in name order; empty when the
/// directory is missing or unreadable.
pub(crate) fn record_files_in(dir: &Path) -> Vec<(PathBuf, RecordFile)> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<(PathBuf, RecordFile)> = entries
        .flatten()
        .filter_map(|e| {
            let path = e.path();
            record_file(&path).map(|f| (path, f))
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// At most `max` bytes of `path` from `offset`, with the identity of the
/// file read; `Ok(None)` when the file is missing. A file shorter than
/// `offset` gives no bytes: the caller compares the length it gets.
pub(crate) fn read_records(
    path: &Path,
    offset: u64,
    max: u64,
) -> Result<Option<(RecordFile, Vec<u8>)>, StoreError> {
    let read_err = |source| StoreError::Read {
        path: path.to_owned(),
        source,
    };
    let mut file = match File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(read_err(e)),
    };
    let meta = file.metadata().map_err(read_err)?;
    if !meta.is_file() {
        return Ok(None);
    }
    let id = RecordFile::of(&meta);
    if offset >= id.len {
        return Ok(Some((id, Vec::new())));
    }
    file.seek(SeekFrom::Start(offset)).map_err(read_err)?;
    let mut bytes = Vec::new();
    file.take(max).read_to_end(&mut bytes).map_err(read_err)?;
    Ok(Some((id, bytes)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn reads_from_an_offset_and_tells_a_replaced_file() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("a.jsonl");
        assert!(read_records(&path, 0, 100).expect("read").is_none());
        fs::write(&path, b"one\ntwo\n").expect("write");
        let (first, bytes) = read_records(&path, 4, 100).expect("read").expect("file");
        assert_eq!(bytes, b"two\n");
        assert_eq!(first.len, 8);
        let (_, bytes) = read_records(&path, 8, 100).expect("read").expect("file");
        assert!(bytes.is_empty());
        let (_, bytes) = read_records(&path, 0, 3).expect("read").expect("file");
        assert_eq!(bytes, b"one");
        let mut f = fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .expect("open");
        f.write_all(b"three\n").expect("append");
        let grown = record_file(&path).expect("stat");
        assert_eq!(
            (grown.dev, grown.ino, grown.len),
            (first.dev, first.ino, 14)
        );
        let other = dir.path().join("b.jsonl");
        fs::write(&other, b"x\n").expect("write");
        fs::rename(&other, &path).expect("replace");
        let replaced = record_file(&path).expect("stat");
        assert_ne!(replaced.ino, first.ino);
        let listed = record_files_in(dir.path());
        assert_eq!(listed.len(), 1);
        assert!(record_files_in(&dir.path().join("none")).is_empty());
    }
}
