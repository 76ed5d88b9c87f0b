//! A Claude Code session file, `<config dir>/sessions/<pid>.json`, read
//! as hostile input: at most `MAX_SESSION_BYTES`, a regular file owned by
//! the agent process's own user, its `pid` the agent process's own (the
//! `tmux` field names no server, so it is not trusted), a `sessionId` that
//! is a plain id, a peer protocol swarm speaks; and the socket it names
//! checked before anything connects to it: an absolute path short enough
//! for a socket address, then swarm's socket rule
//! (`support::private_socket`) for the agent's user: a socket (not a
//! symlink) of that user, 0600, in a 0700 directory of that user.

use std::io::Read;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::support::private_socket::{self, MAX_CONNECT_PATH};

/// The most of a session file read (they are well under a kilobyte).
const MAX_SESSION_BYTES: u64 = 64 * 1024;

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

/// Reads and checks the session file of process `pid`, which runs as
/// user `owner`, under `dir`.
pub(super) fn read(dir: &Path, pid: u32, owner: u32) -> Result<SessionFile, String> {
    let path = dir.join("sessions").join(format!("{pid}.json"));
    let meta = std::fs::symlink_metadata(&path)
        .map_err(|_| format!("no Claude Code session file {}", path.display()))?;
    if !meta.is_file() {
        return Err(format!("{} is not a regular file", path.display()));
    }
    // Anyone who could write a session file under another account's name
    // could point swarm's messages at a socket of their choosing.
    if meta.uid() != owner {
        return Err(format!(
            "the session file {} belongs to another user (uid {}) than the agent process (uid {owner})",
            path.display(),
            meta.uid()
        ));
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

/// `socket` when it is safe to connect to for an agent process of user
/// `owner` (see the module's doc).
pub(super) fn checked_socket(socket: &Path, owner: u32) -> Result<PathBuf, String> {
    let shown = socket.display();
    if !socket.is_absolute() {
        return Err(format!("the socket path {shown} is not absolute"));
    }
    if socket.as_os_str().len() > MAX_CONNECT_PATH {
        return Err(format!("the socket path {shown} is too long"));
    }
    match std::fs::symlink_metadata(socket) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(format!(
                "the session's socket {shown} is not bound (no such file)"
            ));
        }
        _ => {}
    }
    private_socket::check_socket(socket, owner)
        .map_err(|e| format!("the session's socket is not the agent's own: {e}"))?;
    Ok(socket.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::support::sys::own_uid;

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
    fn a_socket_must_be_a_private_socket_of_the_agents_user() {
        use std::os::unix::fs::PermissionsExt;
        let me = own_uid();
        let tmp = tempfile::tempdir().expect("as set up");
        let dir = tmp.path().join("cc-socks");
        let sock = dir.join("s.sock");
        let _listener = private_socket::bind(&sock).expect("as set up");
        assert_eq!(checked_socket(&sock, me).expect("as set up"), sock);
        let refused = |path: &Path, owner: u32| checked_socket(path, owner).expect_err("refused");
        assert!(refused(&sock, me.wrapping_add(1)).contains("belongs to another user"));
        let plain = dir.join("plain.sock");
        std::fs::write(&plain, "").expect("as set up");
        assert!(refused(&plain, me).contains("not a socket"));
        let link = tmp.path().join("link.sock");
        std::os::unix::fs::symlink(&sock, &link).expect("as set up");
        assert!(refused(&link, me).contains("is a symlink"));
        assert!(refused(&dir.join("gone.sock"), me).contains("not bound"));
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).expect("as set up");
        assert!(refused(&sock, me).contains("open to other users"));
        let long = PathBuf::from(format!("/{}", "x".repeat(200)));
        assert!(refused(&long, me).contains("too long"));
        assert!(refused(Path::new("rel.sock"), me).contains("not absolute"));
    }

    #[test]
    fn a_session_file_of_another_user_than_the_agents_is_refused() {
        let me = own_uid();
        let tmp = tempfile::tempdir().expect("as set up");
        let sessions = tmp.path().join("sessions");
        std::fs::create_dir(&sessions).expect("as set up");
        std::fs::write(sessions.join("42.json"), GOOD).expect("as set up");
        assert_eq!(
            read(tmp.path(), 42, me).expect("as set up").session_id,
            "74fc2ed9-aa"
        );
        let other = me.wrapping_add(1);
        let err = read(tmp.path(), 42, other).expect_err("refused");
        assert!(
            err.contains(&format!(
                "belongs to another user (uid {me}) than the agent process (uid {other})"
            )),
            "{err}"
        );
        assert!(
            read(tmp.path(), 43, me)
                .expect_err("refused")
                .contains("no Claude Code session file")
        );
    }
}
