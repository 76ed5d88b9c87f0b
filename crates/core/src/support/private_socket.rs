//! The one rule for the Unix sockets swarm makes and connects to: a
//! socket (never a symlink where one is not expected), mode 0600, owned by
//! the account it is meant for, in a directory of that account that is
//! open to nobody else (0700) and is no symlink either. Swarm's own
//! sockets (a Codex pane's app server, the demo agent's channel) are made
//! by this rule in swarm's socket directory: `$XDG_RUNTIME_DIR/swarm` when
//! that is set, else `/tmp/swarm-<uid>`. Another local account can then
//! not even reach the socket's name: its `connect` is refused (EACCES) by
//! the directory before the socket's own mode is looked at.

use std::fs;
use std::io;
use std::os::unix::fs::{DirBuilderExt, FileTypeExt, MetadataExt, PermissionsExt};
use std::os::unix::net::UnixListener;
use std::path::{Path, PathBuf};

use super::sys::own_uid;

/// Longest socket path swarm makes: a Unix socket's address holds 108
/// bytes on Linux (104 on macOS and the BSDs), the final NUL included.
pub(crate) const MAX_SOCKET_PATH: usize = 100;

/// Longest socket path swarm connects to: what fits the smallest address
/// of the systems swarm runs on (macOS: 104 bytes with the NUL).
pub(crate) const MAX_CONNECT_PATH: usize = 103;

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

/// Makes `dir` (0700) when missing and checks it is this user's private
/// directory (`check_directory`). A directory that is there already is
/// never loosened or tightened: one that is wrong is refused.
pub(crate) fn ensure_directory(dir: &Path) -> io::Result<()> {
    match fs::DirBuilder::new().mode(0o700).create(dir) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(e),
    }
    check_directory(dir, own_uid())
}

/// Checks `dir` without changing it: a directory, not a symlink, owned by
/// `owner`, open to nobody else.
pub(crate) fn check_directory(dir: &Path, owner: u32) -> io::Result<()> {
    let meta = fs::symlink_metadata(dir)?;
    if meta.file_type().is_symlink() {
        return Err(refused(dir, "is a symlink, not a directory"));
    }
    if !meta.file_type().is_dir() {
        return Err(refused(dir, "is not a directory"));
    }
    check_owner_and_mode(dir, &meta, owner, "want mode 0700")
}

/// Checks the socket at `path` (the path itself, never followed): a
/// socket owned by `owner`, open to nobody else, in a directory that
/// passes `check_directory` for the same owner.
pub(crate) fn check_socket(path: &Path, owner: u32) -> io::Result<()> {
    let meta = fs::symlink_metadata(path)?;
    if meta.file_type().is_symlink() {
        return Err(refused(path, "is a symlink, not a socket"));
    }
    if !meta.file_type().is_socket() {
        return Err(refused(path, "is not a socket"));
    }
    check_owner_and_mode(path, &meta, owner, "want mode 0600")?;
    check_directory(path.parent().unwrap_or(Path::new("/")), owner)
}

/// The path `path` names when it is one symlink (how Codex's app server
/// lays its socket out: the socket in a private directory of its own, a
/// link at the path it was given), else `path` itself. Only that one link
/// is followed; what it points at is for `check_socket` to judge.
pub(crate) fn through_one_link(path: &Path) -> io::Result<PathBuf> {
    if !fs::symlink_metadata(path)?.file_type().is_symlink() {
        return Ok(path.to_path_buf());
    }
    let link = fs::read_link(path)?;
    let target = if link.is_absolute() {
        link
    } else {
        path.parent().unwrap_or(Path::new("/")).join(link)
    };
    if target.as_os_str().len() > MAX_CONNECT_PATH {
        return Err(refused(&target, "is too long for a Unix socket"));
    }
    Ok(target)
}

/// Binds a socket of swarm's own at `path`: its directory made private
/// when missing and checked, a socket left there by a process that is
/// gone removed (never anything else), the socket made 0600 and checked
/// before anything can be told its name.
pub(crate) fn bind(path: &Path) -> io::Result<UnixListener> {
    if path.as_os_str().len() > MAX_SOCKET_PATH {
        return Err(refused(
            path,
            "is too long for a Unix socket (set XDG_RUNTIME_DIR to a shorter directory)",
        ));
    }
    ensure_directory(path.parent().unwrap_or(Path::new("/")))?;
    match fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_socket() => fs::remove_file(path)?,
        Ok(_) => return Err(refused(path, "is there already and is not a socket")),
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(e),
    }
    let listener = UnixListener::bind(path)?;
    // The directory already keeps every other account out; the mode is the
    // rule's second wall, set before the name is handed to anyone.
    fs::set_permissions(path, fs::Permissions::from_mode(0o600))?;
    check_socket(path, own_uid())?;
    Ok(listener)
}

fn check_owner_and_mode(
    path: &Path,
    meta: &fs::Metadata,
    owner: u32,
    want: &str,
) -> io::Result<()> {
    if meta.uid() != owner {
        return Err(refused(
            path,
            &format!("belongs to another user (uid {}, not {owner})", meta.uid()),
        ));
    }
    let mode = meta.permissions().mode() & 0o777;
    if mode & 0o077 != 0 {
        return Err(refused(
            path,
            &format!("is open to other users (mode {mode:04o}; {want})"),
        ));
    }
    Ok(())
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
    use std::os::unix::fs::symlink;

    fn private_dir(tmp: &tempfile::TempDir) -> PathBuf {
        let dir = tmp.path().join("s");
        ensure_directory(&dir).expect("made");
        dir
    }

    fn message(e: &io::Error) -> String {
        e.to_string()
    }

    #[test]
    fn the_directory_is_made_private_and_a_loose_one_refused() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let dir = private_dir(&tmp);
        let meta = fs::metadata(&dir).expect("there");
        assert_eq!(meta.permissions().mode() & 0o777, 0o700);
        assert_eq!(meta.uid(), own_uid());
        for mode in [0o750, 0o705, 0o777] {
            fs::set_permissions(&dir, fs::Permissions::from_mode(mode)).expect("chmod");
            let err = ensure_directory(&dir).expect_err("a loose directory is refused");
            assert_eq!(err.kind(), io::ErrorKind::PermissionDenied);
            assert!(
                message(&err).contains(&format!("is open to other users (mode {mode:04o}")),
                "{err}"
            );
            assert_eq!(
                fs::metadata(&dir).expect("there").permissions().mode() & 0o777,
                mode,
                "a directory that is there is never changed"
            );
        }
    }

    #[test]
    fn a_directory_of_another_owner_is_refused() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let dir = private_dir(&tmp);
        let other = own_uid().wrapping_add(1);
        let err = check_directory(&dir, other).expect_err("not the owner asked for");
        assert!(
            message(&err).contains(&format!(
                "belongs to another user (uid {}, not {other})",
                own_uid()
            )),
            "{err}"
        );
    }

    #[test]
    fn a_symlink_or_a_file_is_no_directory() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let dir = private_dir(&tmp);
        let link = tmp.path().join("l");
        symlink(&dir, &link).expect("symlink");
        let err = check_directory(&link, own_uid()).expect_err("a symlink is refused");
        assert!(message(&err).contains("is a symlink"), "{err}");
        assert!(ensure_directory(&link).is_err(), "not made through a link");
        let file = tmp.path().join("f");
        fs::write(&file, "x").expect("write");
        let err = check_directory(&file, own_uid()).expect_err("a file is refused");
        assert!(message(&err).contains("is not a directory"), "{err}");
    }

    #[test]
    fn a_bound_socket_is_private_and_checked() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let dir = tmp.path().join("new");
        let sock = dir.join("a.sock");
        let _listener = bind(&sock).expect("bound");
        assert_eq!(
            fs::metadata(&dir).expect("made").permissions().mode() & 0o777,
            0o700
        );
        assert_eq!(
            fs::symlink_metadata(&sock)
                .expect("bound")
                .permissions()
                .mode()
                & 0o777,
            0o600
        );
        check_socket(&sock, own_uid()).expect("passes the rule");
        let err = check_socket(&sock, own_uid().wrapping_add(1)).expect_err("another owner");
        assert!(message(&err).contains("belongs to another user"), "{err}");
        fs::set_permissions(&sock, fs::Permissions::from_mode(0o660)).expect("chmod");
        let err = check_socket(&sock, own_uid()).expect_err("open to the group");
        assert!(message(&err).contains("want mode 0600"), "{err}");
        fs::set_permissions(&sock, fs::Permissions::from_mode(0o600)).expect("chmod");
        fs::set_permissions(&dir, fs::Permissions::from_mode(0o711)).expect("chmod");
        let err = check_socket(&sock, own_uid()).expect_err("its directory is open");
        assert!(message(&err).contains("want mode 0700"), "{err}");
    }

    #[test]
    fn binding_replaces_a_dead_socket_but_nothing_else() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let dir = private_dir(&tmp);
        let sock = dir.join("a.sock");
        drop(bind(&sock).expect("bound"));
        assert!(fs::symlink_metadata(&sock).is_ok(), "left behind");
        let _again = bind(&sock).expect("a dead socket is replaced");
        let file = dir.join("f.sock");
        fs::write(&file, "keep").expect("write");
        let err = bind(&file).expect_err("a file is never removed");
        assert!(message(&err).contains("is not a socket"), "{err}");
        assert_eq!(fs::read_to_string(&file).expect("kept"), "keep");
        let long = dir.join("x".repeat(MAX_SOCKET_PATH));
        assert!(message(&bind(&long).expect_err("too long")).contains("too long"));
    }

    #[test]
    fn a_socket_is_never_trusted_through_a_link_but_one_link_is_followed_on_purpose() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let dir = private_dir(&tmp);
        let sock = dir.join("a.sock");
        let _listener = bind(&sock).expect("bound");
        let link = tmp.path().join("link.sock");
        symlink(&sock, &link).expect("symlink");
        let err = check_socket(&link, own_uid()).expect_err("a link is no socket");
        assert!(message(&err).contains("is a symlink"), "{err}");
        assert_eq!(through_one_link(&link).expect("followed"), sock);
        assert_eq!(through_one_link(&sock).expect("no link"), sock);
        symlink("a.sock", dir.join("rel.sock")).expect("symlink");
        assert_eq!(
            through_one_link(&dir.join("rel.sock")).expect("followed"),
            sock
        );
        let file = dir.join("plain");
        fs::write(&file, "x").expect("write");
        assert!(
            message(&check_socket(&file, own_uid()).expect_err("a file")).contains("not a socket")
        );
        assert!(check_socket(&dir.join("missing"), own_uid()).is_err());
    }

    #[test]
    fn the_directory_is_short_and_runtime_based_when_it_can_be() {
        let fallback = directory_from(None);
        assert_eq!(fallback, PathBuf::from(format!("/tmp/swarm-{}", own_uid())));
        let long = PathBuf::from(format!("/{}", "x".repeat(80)));
        assert_eq!(
            directory_from(Some(&long)),
            fallback,
            "a long one is not used"
        );
        assert_eq!(
            directory_from(Some(Path::new("/run/user/1"))),
            PathBuf::from("/run/user/1/swarm")
        );
        assert_eq!(directory_from(Some(Path::new("rel"))), fallback);
    }
}
