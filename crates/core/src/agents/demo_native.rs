//! The demo agent's own channel, made like Claude Code's so that swarm's
//! socket delivery can be tested end to end without a real agent: a
//! session file `<config dir>/sessions/<pid>.json` (its `CLAUDE_CONFIG_DIR`,
//! else `.claude` in its `HOME`) naming a Unix socket in a private
//! directory; one JSON line `{"type":"user","message":{"content":TEXT}}`
//! per message; and a transcript under `<config dir>/projects/` recording
//! each as a `queue-operation` `enqueue`, then `dequeue` and a `user`
//! record (an `attachment` when it waited for a busy turn) with
//! `origin.kind` `"peer"`. Faults: register without binding the socket,
//! or drop the first messages (recorded `remove`, never taken). A message
//! that comes on the socket wakes the agent's loop at once (`wake`), and
//! the time it came is kept with it, so that its record can tell how long
//! the agent itself took to take it.

use std::fs::{File, OpenOptions};
use std::io::{self, BufRead, BufReader, Read, Write};
use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, Sender, channel};

use serde_json::{Value, json};

use crate::support::time;

/// The longest message line read from the socket.
const MAX_LINE: u64 = 1 << 20;

/// How the demo agent's channel misbehaves on purpose.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NativeFaults {
    /// Write the session file but never bind the socket.
    pub unbound: bool,
    /// Drop the first N messages: queued, then removed without a turn.
    pub drop: u32,
}

/// The channel of a running demo agent.
pub(crate) struct DemoNative {
    session_file: PathBuf,
    socket: Option<PathBuf>,
    transcript: File,
    session: Value,
    /// Each message and when it came on the socket (Unix seconds).
    incoming: Receiver<Arrival>,
    /// Readable when a message came: the agent's loop waits on it beside
    /// its terminal.
    wake: UnixStream,
    drop: u32,
    /// Messages that came while busy, taken when the turn ends.
    waiting: Vec<Arrival>,
}

/// A message that came on the socket, and when (Unix seconds).
pub(crate) type Arrival = (String, f64);

/// Claude Code's folder name for a project: every character other than a
/// letter or digit made `-`.
fn project_dir(cwd: &Path) -> String {
    cwd.to_string_lossy()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect()
}

/// Where Claude Code would keep its files for this process.
fn config_dir() -> io::Result<PathBuf> {
    let from = |name: &str| {
        std::env::var_os(name)
            .map(PathBuf::from)
            .filter(|p| p.is_absolute())
    };
    from("CLAUDE_CONFIG_DIR")
        .or_else(|| from("HOME").map(|h| h.join(".claude")))
        .ok_or_else(|| io::Error::other("neither CLAUDE_CONFIG_DIR nor HOME is set"))
}

impl DemoNative {
    /// Writes the session file and, unless `faults.unbound`, binds the
    /// socket and starts taking messages on it.
    pub(crate) fn start(faults: NativeFaults) -> io::Result<DemoNative> {
        let dir = config_dir()?;
        let pid = std::process::id();
        let cwd = std::env::current_dir()?;
        let session_id = format!("demo-{pid}-{}", time::now().timestamp_micros());
        let socks = std::env::temp_dir().join(format!(
            "swarm-demo-socks-{}",
            crate::support::sys::own_uid()
        ));
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(&socks)?;
        std::fs::set_permissions(&socks, std::fs::Permissions::from_mode(0o700))?;
        let socket_path = socks.join(format!("{pid}.sock"));
        let _ = std::fs::remove_file(&socket_path);
        let (tx, incoming) = channel();
        let (wake, waker) = UnixStream::pair()?;
        wake.set_nonblocking(true)?;
        waker.set_nonblocking(true)?;
        let socket = if faults.unbound {
            None
        } else {
            let listener = UnixListener::bind(&socket_path)?;
            std::fs::set_permissions(&socket_path, std::fs::Permissions::from_mode(0o600))?;
            std::thread::spawn(move || listen(&listener, &tx, &waker));
            Some(socket_path.clone())
        };
        let projects = dir.join("projects").join(project_dir(&cwd));
        std::fs::create_dir_all(&projects)?;
        let transcript = OpenOptions::new()
            .create(true)
            .append(true)
            .open(projects.join(format!("{session_id}.jsonl")))?;
        let sessions = dir.join("sessions");
        std::fs::create_dir_all(&sessions)?;
        let session = json!({
            "pid": pid,
            "sessionId": session_id,
            "cwd": cwd,
            "kind": "interactive",
            "peerProtocol": 1,
            "messagingSocketPath": socket_path,
            "status": "idle",
        });
        let native = DemoNative {
            session_file: sessions.join(format!("{pid}.json")),
            socket,
            transcript,
            session,
            incoming,
            wake,
            drop: faults.drop,
            waiting: Vec::new(),
        };
        native.write_session()?;
        Ok(native)
    }

    /// What wakes the agent's loop when a message came.
    pub(crate) fn wake(&self) -> &UnixStream {
        &self.wake
    }

    fn write_session(&self) -> io::Result<()> {
        let tmp = self.session_file.with_extension("json.tmp");
        std::fs::write(&tmp, self.session.to_string())?;
        std::fs::rename(&tmp, &self.session_file)
    }

    /// Says in the session file whether a turn is running (written only
    /// when it changes).
    pub(crate) fn set_busy(&mut self, busy: bool) {
        let status = json!(if busy { "busy" } else { "idle" });
        if self.session["status"] != status {
            self.session["status"] = status;
            let _ = self.write_session();
        }
    }

    fn record(&mut self, value: &Value) {
        let mut line = value.to_string();
        line.push('\n');
        let _ = self.transcript.write_all(line.as_bytes());
    }

    /// The messages that came since the last look, to take now (`busy`:
    /// they wait for the end of the turn, see `after_turn`). Each is
    /// recorded as queued; a dropped one as removed too, and not returned.
    pub(crate) fn arrived(&mut self, busy: bool) -> Vec<Arrival> {
        let mut take = Vec::new();
        while let Ok((text, came)) = self.incoming.try_recv() {
            let at = time::utc_iso(time::now());
            self.record(&json!({"type": "queue-operation", "operation": "enqueue",
                "timestamp": at, "content": text}));
            if self.drop > 0 {
                self.drop -= 1;
                self.record(&json!({"type": "queue-operation", "operation": "remove",
                    "timestamp": at, "content": text}));
                continue;
            }
            if busy {
                self.waiting.push((text, came));
            } else {
                self.taken(&text, "user");
                take.push((text, came));
            }
        }
        take
    }

    /// The messages that waited for the turn that just ended.
    pub(crate) fn after_turn(&mut self) -> Vec<Arrival> {
        let waiting = std::mem::take(&mut self.waiting);
        for (text, _) in &waiting {
            self.taken(text, "attachment");
        }
        waiting
    }

    fn taken(&mut self, text: &str, kind: &str) {
        let at = time::utc_iso(time::now());
        self.record(&json!({"type": "queue-operation", "operation": "dequeue", "timestamp": at}));
        self.record(&json!({"type": kind, "timestamp": at,
            "origin": {"kind": "peer", "from": "unknown"},
            "message": {"role": "user",
                "content": format!("Another session sent a message:\n{text}")}}));
    }
}

impl Drop for DemoNative {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.session_file);
        if let Some(socket) = &self.socket {
            let _ = std::fs::remove_file(socket);
        }
    }
}

/// Takes connections on `listener`, each a series of message lines; each
/// message goes to `tx` with the time it came, and a byte to `waker`
/// wakes the agent's loop (a full socket already will: it is not waited
/// for).
fn listen(listener: &UnixListener, tx: &Sender<Arrival>, waker: &UnixStream) {
    for stream in listener.incoming() {
        let Ok(stream) = stream else { continue };
        let tx = tx.clone();
        let Ok(mut waker) = waker.try_clone() else {
            continue;
        };
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stream.take(MAX_LINE * 16));
            let mut line = String::new();
            while matches!(reader.read_line(&mut line), Ok(n) if n > 0) {
                if let Some(text) = message_of(&line) {
                    let came = time::unix_seconds(time::now());
                    let _ = tx.send((text, came));
                    let _ = waker.write(b"!");
                }
                line.clear();
            }
        });
    }
}

/// The text of one message line; `None` for anything else.
fn message_of(line: &str) -> Option<String> {
    let value: Value = serde_json::from_str(line.trim()).ok()?;
    if value.get("type")?.as_str()? != "user" {
        return None;
    }
    let content = value.get("message")?.get("content")?.as_str()?;
    Some(content.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_user_message_lines_are_taken() {
        let line = r#"{"type":"user","message":{"role":"user","content":"hi"}}"#;
        assert_eq!(message_of(line).as_deref(), Some("hi"));
        assert_eq!(message_of(r#"{"type":"other"}"#), None);
        assert_eq!(message_of("junk"), None);
        assert_eq!(
            message_of(r#"{"type":"user","message":{"content":7}}"#),
            None
        );
    }

    #[test]
    fn projects_are_named_as_claude_code_names_them() {
        assert_eq!(project_dir(Path::new("/a/b.c")), "-a-b-c");
    }
}
