//! Where the app server of a Codex pane listens, and whether a socket
//! found there can be trusted.
//!
//! Each pane swarm starts Codex in gets a socket of its own in swarm's
//! socket directory: `$XDG_RUNTIME_DIR/swarm` when that is set, else
//! `/tmp/swarm-<uid>`, made 0700 and checked to be ours and no symlink
//! every time. The socket's name is random (`cx-<16 hex>.sock`), so the
//! pane command needs no pane id, and the path stays far below the
//! 108-byte limit of a Unix socket's address. Codex's app server puts the
//! socket itself in a 0700 directory of its own and leaves a symlink at
//! the path it was given; swarm follows that one link and checks the
//! socket there: a socket, owned by this user, not open to others.

use std::fs;
use std::io;
use std::os::unix::fs::{DirBuilderExt, FileTypeExt, MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

use crate::support::sys::own_uid;

/// Longest socket path swarm uses: a Unix socket's address holds 108
/// bytes on Linux (104 on macOS and the BSDs), the final NUL included.
pub(crate) const MAX_SOCKET_PATH: usize = 100;

/// The prefix and suffix of a pane's socket name.
const PREFIX: &str = "cx-";
const SUFFIX: &str = ".sock";

/// Swarm's socket directory for this user, as named by the environment
/// (not made).
pub(crate) fn directory() -> PathBuf {
    directory_from(
        std::env::var_os("XDG_RUNTIME_DIR")
            .as_deref()
            .map(Path::new),
    )
}

fn directory_from(runtime: Option<&Path>) -> PathBuf {
    match runtime {
        // Only a short absolute one: the socket's name must still fit.
        Some(r) if r.is_absolute() && r.as_os_str().len() <= 60 => r.join("swarm"),
        _ => PathBuf::from(format!("/tmp/swarm-{}", own_uid())),
    }
}

/// Makes `dir` (0700) when missing and checks it: a directory, not a
/// symlink, owned by this user, open to nobody else.
pub(crate) fn ensure_directory(dir: &Path) -> io::Result<()> {
    match fs::DirBuilder::new().mode(0o700).create(dir) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(e),
    }
    check_directory(dir)
}

/// Checks swarm's socket directory without changing it.
pub(crate) fn check_directory(dir: &Path) -> io::Result<()> {
    let meta = fs::symlink_metadata(dir)?;
    if !meta.file_type().is_dir() {
        return Err(refused(dir, "is not a directory"));
    }
    if meta.uid() != own_uid() {
        return Err(refused(dir, "belongs to another user"));
    }
    if meta.permissions().mode() & 0o077 != 0 {
        return Err(refused(dir, "is open to other users (want mode 0700)"));
    }
    Ok(())
}

/// A new socket path in `dir` for one pane.
pub(crate) fn new_path(dir: &Path) -> io::Result<PathBuf> {
    let token = uuid::Uuid::new_v4().simple().to_string();
    let path = dir.join(format!("{PREFIX}{}{SUFFIX}", &token[..16]));
    if path.as_os_str().len() > MAX_SOCKET_PATH {
        return Err(refused(
            &path,
            "is too long for a Unix socket (set XDG_RUNTIME_DIR to a shorter directory)",
        ));
    }
    Ok(path)
}

/// True when `path` names a pane socket in `dir` (by its place and name
/// alone; `check_socket` looks at what is there).
pub(crate) fn is_pane_socket(dir: &Path, path: &Path) -> bool {
    let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
        return false;
    };
    path.parent() == Some(dir)
        && name
            .strip_prefix(PREFIX)
            .and_then(|n| n.strip_suffix(SUFFIX))
            .is_some_and(|t| t.len() == 16 && t.bytes().all(|b| b.is_ascii_hexdigit()))
        && path.as_os_str().len() <= MAX_SOCKET_PATH
}

/// Checks what listens at `path`: the path itself is a socket or one
/// symlink to a socket (how Codex's app server lays it out), owned by this
/// user and open to nobody else, in a directory that is ours too. Returns
/// the socket's own path, which is what to connect to.
pub(crate) fn check_socket(path: &Path) -> io::Result<PathBuf> {
    let meta = fs::symlink_metadata(path)?;
    let target = if meta.file_type().is_symlink() {
        let link = fs::read_link(path)?;
        let target = if link.is_absolute() {
            link
        } else {
            path.parent().unwrap_or(Path::new("/")).join(link)
        };
        if target.as_os_str().len() > MAX_SOCKET_PATH + 8 {
            return Err(refused(&target, "is too long for a Unix socket"));
        }
        target
    } else {
        path.to_path_buf()
    };
    let meta = fs::symlink_metadata(&target)?;
    if !meta.file_type().is_socket() {
        return Err(refused(&target, "is not a socket"));
    }
    if meta.uid() != own_uid() {
        return Err(refused(&target, "belongs to another user"));
    }
    if meta.permissions().mode() & 0o077 != 0 {
        return Err(refused(&target, "is open to other users"));
    }
    let parent = target.parent().unwrap_or(Path::new("/"));
    check_directory(parent)?;
    Ok(target)
}

fn refused(path: &Path, why: &str) -> io::Error {
    io::Error::new(
        io::ErrorKind::PermissionDenied,
        format!("{} {why}", path.display()),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::net::UnixListener;

    #[test]
    fn the_directory_is_made_private_and_a_loose_one_refused() {
        let tmp = tempfile::tempdir().expect("no error");
        let dir = tmp.path().join("s");
        ensure_directory(&dir).expect("no error");
        assert_eq!(
            fs::metadata(&dir).expect("no error").permissions().mode() & 0o777,
            0o700
        );
        fs::set_permissions(&dir, fs::Permissions::from_mode(0o755)).expect("no error");
        assert!(ensure_directory(&dir).is_err());
        let link = tmp.path().join("l");
        std::os::unix::fs::symlink(tmp.path(), &link).expect("no error");
        assert!(check_directory(&link).is_err(), "a symlink is refused");
    }

    #[test]
    fn pane_sockets_are_short_and_named_alike() {
        let dir = directory_from(None);
        let p = new_path(&dir).expect("no error");
        assert!(p.as_os_str().len() <= MAX_SOCKET_PATH);
        assert!(is_pane_socket(&dir, &p));
        assert!(!is_pane_socket(&dir, &dir.join("cx-zz.sock")));
        assert!(!is_pane_socket(Path::new("/elsewhere"), &p));
        let long = PathBuf::from(format!("/{}", "x".repeat(80)));
        assert_eq!(
            directory_from(Some(&long)),
            dir,
            "a long runtime dir is not used"
        );
        assert_eq!(
            directory_from(Some(Path::new("/run/user/1"))),
            PathBuf::from("/run/user/1/swarm")
        );
        assert_eq!(directory_from(Some(Path::new("rel"))), dir);
    }

    #[test]
    fn only_a_private_socket_of_ours_is_trusted() {
        let tmp = tempfile::tempdir().expect("no error");
        let dir = tmp.path().join("d");
        ensure_directory(&dir).expect("no error");
        let sock = dir.join("a.sock");
        let _l = UnixListener::bind(&sock).expect("no error");
        fs::set_permissions(&sock, fs::Permissions::from_mode(0o600)).expect("no error");
        assert_eq!(check_socket(&sock).expect("no error"), sock);
        // Codex's layout: a symlink to the socket in a private directory.
        let link = tmp.path().join("link.sock");
        std::os::unix::fs::symlink(&sock, &link).expect("no error");
        assert_eq!(check_socket(&link).expect("no error"), sock);
        fs::set_permissions(&sock, fs::Permissions::from_mode(0o666)).expect("no error");
        assert!(check_socket(&sock).is_err(), "open to others");
        let file = dir.join("plain");
        fs::write(&file, "x").expect("no error");
        assert!(check_socket(&file).is_err(), "not a socket");
        assert!(check_socket(&dir.join("missing")).is_err());
    }
}
