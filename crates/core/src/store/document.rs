//! Files people read and edit rather than state swarm keeps: the config
//! file and `COORDINATION.md`. Written atomically like state files, but
//! readable by everyone (0644, or the mode the file already has), and
//! never replaced unless the caller says so.

use std::fs;
use std::io::{self, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use super::error::StoreError;

/// Mode of a new document.
const DOCUMENT_MODE: u32 = 0o644;

/// Writes `bytes` to `path` in one step (temp file, fsync, rename). With
/// `replace` false an existing file is left alone and `Exists` returned;
/// the check and the write are one atomic operation, so two concurrent
/// writers cannot both create the file. A replaced file keeps its mode.
pub(crate) fn write_document(path: &Path, bytes: &[u8], replace: bool) -> Result<(), StoreError> {
    let write_err = |source| StoreError::Write {
        path: path.to_owned(),
        source,
    };
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    if !replace && fs::symlink_metadata(path).is_ok() {
        return Err(StoreError::Exists {
            path: path.to_owned(),
        });
    }
    let mode = fs::metadata(path)
        .map(|m| m.permissions().mode() & 0o7777)
        .unwrap_or(DOCUMENT_MODE);
    let mut temp = tempfile::Builder::new()
        .prefix(&format!(
            ".{}.tmp-",
            path.file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default()
        ))
        .rand_bytes(10)
        .tempfile_in(dir)
        .map_err(write_err)?;
    temp.write_all(bytes).map_err(write_err)?;
    temp.as_file()
        .set_permissions(fs::Permissions::from_mode(mode))
        .map_err(write_err)?;
    temp.as_file().sync_all().map_err(write_err)?;
    if replace {
        temp.persist(path).map_err(|e| write_err(e.error))?;
    } else {
        temp.persist_noclobber(path).map_err(|e| {
            if e.error.kind() == io::ErrorKind::AlreadyExists {
                StoreError::Exists {
                    path: path.to_owned(),
                }
            } else {
                write_err(e.error)
            }
        })?;
    }
    Ok(())
}

/// Reads a document as text; `Ok(None)` when it does not exist.
pub(crate) fn read_document(path: &Path) -> Result<Option<String>, StoreError> {
    match fs::read(path) {
        Ok(bytes) => Ok(Some(String::from_utf8_lossy(&bytes).into_owned())),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(source) => Err(StoreError::Read {
            path: path.to_owned(),
            source,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn creates_once_then_refuses_unless_replacing() {
        let dir = tempfile::tempdir().expect("tempdir");
        let p = dir.path().join("doc.md");
        write_document(&p, b"one", false).expect("create");
        let mode = fs::metadata(&p).expect("meta").permissions().mode() & 0o777;
        assert_eq!(mode, 0o644);
        let err = write_document(&p, b"two", false).expect_err("exists");
        assert!(matches!(err, StoreError::Exists { .. }), "{err}");
        assert_eq!(fs::read(&p).expect("read"), b"one");
        fs::set_permissions(&p, fs::Permissions::from_mode(0o600)).expect("chmod");
        write_document(&p, b"three", true).expect("replace");
        assert_eq!(fs::read(&p).expect("read"), b"three");
        let mode = fs::metadata(&p).expect("meta").permissions().mode() & 0o777;
        assert_eq!(mode, 0o600, "a replaced file keeps its mode");
        assert_eq!(
            fs::read_dir(dir.path()).expect("ls").count(),
            1,
            "no temp file left"
        );
        assert_eq!(read_document(&p).expect("read").as_deref(), Some("three"));
        assert_eq!(read_document(&dir.path().join("none")).expect("read"), None);
    }
}
