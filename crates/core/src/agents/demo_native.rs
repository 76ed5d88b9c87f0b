//! The demo agent's own channel, made like Claude Code's so that swarm's
//! socket delivery can be tested end to end without a real agent: a
//! session file `<config dir>/sessions/<pid>.json` (its `CLAUDE_CONFIG_DIR`,
//! else `.claude` in its `HOME`) naming a Unix socket in a private
//! directory; one JSON line `{"type":"user","message":{"content":TEXT}}`
//! per message; and a transcript under `<config dir>/projects/` recording
//! each as a `queue-operation` `enqueue`, then `dequeue` and a `user`
//! record (an `attachment` when it waited for a busy turn) with
//! `origin.kind` `"peer"`. Faults: register without binding the socket,
//! drop the first messages (recorded `remove`, never taken), hold each
//! for the person's approval (a `system` record "Held peer message ..."
//! quoting its start without square brackets, never taken), or take one
//! that comes while busy into the running turn (a `remove` for
//! `absorbed_mid_turn`, then an `attachment` with the origin inside it),
//! as Claude Code does. A message that comes on the socket wakes the
//! agent's loop at once (`wake`), and the time it came is kept with it, so
//! that its record can tell how long the agent itself took to take it.

use std::fs::{File, OpenOptions};
use std::io::{self, BufRead, BufReader, Read, Write};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::support::{private_socket, time};

/// The longest message line read from the socket.
const MAX_LINE: u64 = 1 << 20;

/// How long after it came a message is taken into a running turn (the
/// turn's next step), with `absorb`: as with Claude Code, the message is
/// first queued, and the queue's record of it comes before the taking.
const ABSORB_AFTER: Duration = Duration::from_millis(300);

/// How the demo agent's channel misbehaves on purpose.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NativeFaults {
    /// Write the session file but never bind the socket.
    pub unbound: bool,
    /// Drop the first N messages: queued, then removed without a turn.
    pub drop: u32,
    /// Hold every message for the person's approval (never taken).
    pub hold: bool,
    /// Take a message that comes while busy into the running turn.
    pub absorb: bool,
}

/// What came on the socket since the last look.
#[derive(Debug, Default)]
pub(crate) struct Arrivals {
    /// To take now, each as a turn of its own, with when it came.
    pub take: Vec<Arrival>,
    /// Taken into the running turn.
    pub absorbed: Vec<String>,
    /// Held for the person's approval.
    pub held: Vec<String>,
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
    hold: bool,
    absorb: bool,
    /// Messages that came while busy, taken when the turn ends.
    waiting: Vec<Arrival>,
    /// Messages that came while busy, taken into the running turn at its
    /// next step (`absorb`): when.
    absorbing: Vec<(Instant, Arrival)>,
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
        // Swarm's own socket, made by swarm's one socket rule (0600 in the
        // private socket directory), like Claude Code's in its own.
        let socket_path = private_socket::directory().join(format!("demo-{pid}.sock"));
        let (tx, incoming) = channel();
        let (wake, waker) = UnixStream::pair()?;
        wake.set_nonblocking(true)?;
        waker.set_nonblocking(true)?;
        let socket = if faults.unbound {
            private_socket::ensure_directory(&private_socket::directory())?;
            // One a process of the same pid left: nobody listens on it.
            let _ = std::fs::remove_file(&socket_path);
            None
        } else {
            let listener = private_socket::bind(&socket_path)?;
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
            hold: faults.hold,
            absorb: faults.absorb,
            waiting: Vec::new(),
            absorbing: Vec::new(),
        };
        native.write_session()?;
        Ok(native)
    }

    /// When the running turn next takes in a message waiting for it
    /// (`absorb`), if one waits.
    pub(crate) fn next_step(&self) -> Option<Instant> {
        self.absorbing.iter().map(|(at, _)| *at).min()
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

    /// The messages that came since the last look (`busy`: a turn runs,
    /// and they wait for its end, see `after_turn`, unless absorbed). Each
    /// is recorded as the faults say: held, or queued (and removed when
    /// dropped or absorbed).
    pub(crate) fn arrived(&mut self, busy: bool) -> Arrivals {
        let mut came = Arrivals::default();
        while let Ok((text, when)) = self.incoming.try_recv() {
            let at = time::utc_iso(time::now());
            if self.hold {
                let quote: String = text.chars().filter(|c| !matches!(c, '[' | ']')).collect();
                let preview: String = quote.chars().take(120).collect();
                self.record(&json!({"type": "system", "subtype": "informational",
                    "timestamp": at, "level": "warning",
                    "content": format!("Held peer message \u{2014} from an unidentified \
                        session; preview: \u{ab}{preview}\u{bb} \u{2014} not delivered \
                        (held for the person's approval)")}));
                came.held.push(text);
                continue;
            }
            self.record(&json!({"type": "queue-operation", "operation": "enqueue",
                "timestamp": at, "content": text}));
            if self.drop > 0 {
                self.drop -= 1;
                self.record(&json!({"type": "queue-operation", "operation": "remove",
                    "timestamp": at, "content": text}));
                continue;
            }
            if busy && self.absorb {
                self.absorbing
                    .push((Instant::now() + ABSORB_AFTER, (text, when)));
            } else if busy {
                self.waiting.push((text, when));
            } else {
                self.taken(&text, "user");
                came.take.push((text, when));
            }
        }
        // The running turn's next step takes in what waits for it.
        let now = Instant::now();
        let (due, later) = std::mem::take(&mut self.absorbing)
            .into_iter()
            .partition(|(at, _)| busy && *at <= now);
        self.absorbing = later;
        for (_, (text, _)) in due {
            let at = time::utc_iso(time::now());
            self.record(&json!({"type": "queue-operation", "operation": "remove",
                "timestamp": at, "content": text, "reason": "absorbed_mid_turn"}));
            self.record(&json!({"type": "attachment", "timestamp": at,
                "attachment": {"type": "queued_command", "prompt": text,
                    "origin": {"kind": "peer", "from": "unknown"}}}));
            came.absorbed.push(text);
        }
        came
    }

    /// The messages that waited for the turn that just ended.
    pub(crate) fn after_turn(&mut self) -> Vec<Arrival> {
        // What the turn ended before taking in waits like the rest.
        let absorbing = std::mem::take(&mut self.absorbing);
        self.waiting
            .extend(absorbing.into_iter().map(|(_, arrival)| arrival));
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
