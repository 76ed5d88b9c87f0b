//! Where the app server of a Codex pane listens, and whether a socket
//! found there can be trusted.
//!
//! Each pane swarm starts Codex in gets a socket of its own in swarm's
//! socket directory (`support::private_socket`: 0700, this user's, no
//! symlink, checked every time). The socket's name is random (`cx-<16
//! hex>.sock`), so the pane command needs no pane id, and the path stays
//! far below the 108-byte limit of a Unix socket's address. Codex's app
//! server puts the socket itself in a 0700 directory of its own and leaves
//! a symlink at the path it was given; swarm follows that one link and
//! holds the socket there to the same rule as its own.

use std::io;
use std::path::{Path, PathBuf};

use crate::support::private_socket::{self, MAX_SOCKET_PATH};
use crate::support::sys::own_uid;

/// The prefix and suffix of a pane's socket name.
const PREFIX: &str = "cx-";
const SUFFIX: &str = ".sock";

/// A new socket path in `dir` for one pane.
pub(crate) fn new_path(dir: &Path) -> io::Result<PathBuf> {
    let token = uuid::Uuid::new_v4().simple().to_string();
    let path = dir.join(format!("{PREFIX}{}{SUFFIX}", &token[..16]));
    if path.as_os_str().len() > MAX_SOCKET_PATH {
        return Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            format!(
                "{} is too long for a Unix socket (set XDG_RUNTIME_DIR to a shorter directory)",
                path.display()
            ),
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
/// symlink to a socket (how Codex's app server lays it out), and that
/// socket passes swarm's socket rule for this user. Returns the socket's
/// own path, which is what to connect to.
pub(crate) fn check_socket(path: &Path) -> io::Result<PathBuf> {
    let target = private_socket::through_one_link(path)?;
    private_socket::check_socket(&target, own_uid())?;
    Ok(target)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn pane_sockets_are_short_and_named_alike() {
        let dir = private_socket::directory();
        let p = new_path(&dir).expect("no error");
        assert!(p.as_os_str().len() <= MAX_SOCKET_PATH);
        assert!(is_pane_socket(&dir, &p));
        assert!(!is_pane_socket(&dir, &dir.join("cx-zz.sock")));
        assert!(!is_pane_socket(Path::new("/elsewhere"), &p));
    }

    #[test]
    fn only_a_private_socket_of_ours_is_trusted() {
        let tmp = tempfile::tempdir().expect("no error");
        let dir = tmp.path().join("d");
        let sock = dir.join("a.sock");
        let _l = private_socket::bind(&sock).expect("no error");
        assert_eq!(check_socket(&sock).expect("no error"), sock);
        // Codex's layout: a symlink to the socket in a private directory.
        let link = tmp.path().join("link.sock");
        std::os::unix::fs::symlink(&sock, &link).expect("no error");
        assert_eq!(check_socket(&link).expect("no error"), sock);
        // A link to a link is one link too many.
        let twice = tmp.path().join("twice.sock");
        std::os::unix::fs::symlink(&link, &twice).expect("no error");
        assert!(check_socket(&twice).is_err(), "two links");
        fs::set_permissions(&sock, fs::Permissions::from_mode(0o666)).expect("no error");
        assert!(check_socket(&sock).is_err(), "open to others");
        let file = dir.join("plain");
        fs::write(&file, "x").expect("no error");
        assert!(check_socket(&file).is_err(), "not a socket");
        assert!(check_socket(&dir.join("missing")).is_err());
    }
}
