//! A Claude Code session file, `<config dir>/sessions/<pid>.json`, read
//! as hostile input: at most `MAX_SESSION_BYTES`, a regular file, its
//! `pid` the agent process's own (the `tmux` field names no server, so it
//! is not trusted), a `sessionId` that is a plain id, a peer protocol
//! swarm speaks; and the socket it names checked before anything connects
//! to it: an absolute path short enough for a socket address, a socket
//! (not a symlink) owned by swarm's own user, in a directory owned by that
//! user that nobody else can write to.

use std::io::Read;
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::{Path, PathBuf};

use serde_json::Value;

/// The most of a session file read (they are well under a kilobyte).
const MAX_SESSION_BYTES: u64 = 64 * 1024;

/// The longest socket path a Unix socket address holds on every system
/// swarm runs on (macOS: 104 bytes with the terminating NUL).
const MAX_SOCKET_PATH: usize = 103;

/// The peer protocol swarm speaks.
const PEER_PROTOCOL: u64 = 1;

/// What swarm uses of a session file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct SessionFile {
    /// The session's id: its transcript's name.
    pub session_id: String,
    /// The directory the session was started in: its transcript's folder.
    pub cwd: PathBuf,
    /// The socket it names, unchecked.
    pub socket: PathBuf,
    /// Its `status` is `busy`.
    pub busy: bool,
}

/// Reads and checks the session file of process `pid` under `dir`.
pub(super) fn read(dir: &Path, pid: u32) -> Result<SessionFile, String> {
    let path = dir.join("sessions").join(format!("{pid}.json"));
    let meta = std::fs::symlink_metadata(&path)
        .map_err(|_| format!("no Claude Code session file {}", path.display()))?;
    if !meta.is_file() {
        return Err(format!("{} is not a regular file", path.display()));
    }
    let mut text = String::new();
    std::fs::File::open(&path)
        .and_then(|f| f.take(MAX_SESSION_BYTES + 1).read_to_string(&mut text))
        .map_err(|e| format!("could not read {}: {e}", path.display()))?;
    if text.len() as u64 > MAX_SESSION_BYTES {
        return Err(format!("{} is too large", path.display()));
    }
    parse(&text, pid).map_err(|why| format!("{}: {why}", path.display()))
}

/// The session file `text` of process `pid`.
pub(super) fn parse(text: &str, pid: u32) -> Result<SessionFile, String> {
    let value: Value = serde_json::from_str(text).map_err(|_| "not JSON".to_owned())?;
    if value.get("pid").and_then(Value::as_u64) != Some(u64::from(pid)) {
        return Err(format!("its pid is not {pid}"));
    }
    let text_of = |key: &str| value.get(key).and_then(Value::as_str);
    let session_id = text_of("sessionId").ok_or("no sessionId")?;
    if !(1..=100).contains(&session_id.len())
        || !session_id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-')
    {
        return Err("its sessionId is not a plain id".into());
    }
    match value.get("peerProtocol").and_then(Value::as_u64) {
        Some(PEER_PROTOCOL) => {}
        Some(n) => {
            return Err(format!(
                "it speaks peer protocol {n}, swarm knows {PEER_PROTOCOL}"
            ));
        }
        None => return Err("it names no peer protocol".into()),
    }
    let cwd = text_of("cwd")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .ok_or("no absolute cwd")?;
    let socket = text_of("messagingSocketPath")
        .filter(|p| !p.is_empty())
        .ok_or("the session registered without a messaging socket")?;
    Ok(SessionFile {
        session_id: session_id.to_owned(),
        cwd,
        socket: PathBuf::from(socket),
        busy: text_of("status") == Some("busy"),
    })
}

/// `socket` when it is safe to connect to (see the module's doc).
pub(super) fn checked_socket(socket: &Path) -> Result<PathBuf, String> {
    let shown = socket.display();
    if !socket.is_absolute() {
        return Err(format!("the socket path {shown} is not absolute"));
    }
    if socket.as_os_str().len() > MAX_SOCKET_PATH {
        return Err(format!("the socket path {shown} is too long"));
    }
    let me = crate::support::sys::own_uid();
    let meta = std::fs::symlink_metadata(socket)
        .map_err(|_| format!("the session's socket {shown} is not bound (no such file)"))?;
    if !meta.file_type().is_socket() {
        return Err(format!("{shown} is not a socket"));
    }
    if meta.uid() != me {
        return Err(format!("the socket {shown} belongs to another user"));
    }
    let parent = socket
        .parent()
        .ok_or_else(|| format!("the socket {shown} has no directory"))?;
    let dir = std::fs::symlink_metadata(parent)
        .map_err(|e| format!("could not look at {}: {e}", parent.display()))?;
    if !dir.is_dir() {
        return Err(format!("{} is not a directory", parent.display()));
    }
    if dir.uid() != me || dir.mode() & 0o022 != 0 {
        return Err(format!(
            "the socket's directory {} is not private to this user",
            parent.display()
        ));
    }
    Ok(socket.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = r#"{"pid":42,"sessionId":"74fc2ed9-aa","cwd":"/w","peerProtocol":1,
        "tmux":"s:@0.%0","messagingSocketPath":"/tmp/cc-socks/42.sock","status":"idle"}"#;

    #[test]
    fn a_session_file_is_read_for_its_own_process_only() {
        let file = parse(GOOD, 42).expect("as set up");
        assert_eq!(file.session_id, "74fc2ed9-aa");
        assert_eq!(file.socket, PathBuf::from("/tmp/cc-socks/42.sock"));
        assert!(parse(GOOD, 43).expect_err("refused").contains("pid"));
    }

    #[test]
    fn hostile_session_files_are_refused() {
        for (from, to, why) in [
            ("74fc2ed9-aa", "../../etc/x", "sessionId"),
            ("\"peerProtocol\":1", "\"peerProtocol\":2", "protocol 2"),
            (
                "\"/tmp/cc-socks/42.sock\"",
                "\"\"",
                "without a messaging socket",
            ),
            ("\"cwd\":\"/w\"", "\"cwd\":\"w\"", "cwd"),
        ] {
            let err = parse(&GOOD.replace(from, to), 42).expect_err("refused");
            assert!(err.contains(why), "{err}");
        }
        assert!(parse("[]", 42).is_err());
        assert!(parse("not json", 42).is_err());
    }

    #[test]
    fn a_socket_must_be_a_private_socket_of_ours() {
        let dir = tempfile::tempdir().expect("as set up");
        let plain = dir.path().join("plain.sock");
        std::fs::write(&plain, "").expect("as set up");
        assert!(
            checked_socket(&plain)
                .expect_err("refused")
                .contains("not a socket")
        );
        let sock = dir.path().join("s.sock");
        let _listener = std::os::unix::net::UnixListener::bind(&sock).expect("as set up");
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o700))
            .expect("as set up");
        assert_eq!(checked_socket(&sock).expect("as set up"), sock);
        let link = dir.path().join("link.sock");
        std::os::unix::fs::symlink(&sock, &link).expect("as set up");
        assert!(
            checked_socket(&link)
                .expect_err("refused")
                .contains("not a socket")
        );
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o777))
            .expect("as set up");
        assert!(
            checked_socket(&sock)
                .expect_err("refused")
                .contains("not private")
        );
        let long = PathBuf::from(format!("/{}", "x".repeat(200)));
        assert!(
            checked_socket(&long)
                .expect_err("refused")
                .contains("too long")
        );
        assert!(checked_socket(Path::new("rel.sock")).is_err());
    }
}
