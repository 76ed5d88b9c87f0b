//! Claude Code's messaging socket. Each interactive session writes
//! `<config dir>/sessions/<pid>.json` (its `CLAUDE_CONFIG_DIR`, else
//! `.claude` in its own `HOME`) naming a Unix socket; one JSON line
//! `{"type":"user","message":{"role":"user","content":TEXT}}` written to
//! it starts a turn when the session is idle, and waits for the end of
//! the turn when it is busy. The socket answers nothing: the session's
//! transcript (`<config dir>/projects/<cwd>/<sessionId>.jsonl`) is the
//! receipt (`transcript.rs`). The session file and everything it names
//! are the agent's, so hostile: `session.rs` checks them before swarm
//! connects anywhere.

mod session;
mod settings;
pub(crate) mod transcript;

use std::io::Write;
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::json;

use super::{Channel, Post, Receipt, Recipient};
use crate::support::sys::own_uid;

pub(crate) use settings::Inbound;

/// How long a write to the socket may take before it counts as refused
/// (nothing written) or cut short (something written).
const WRITE_TIMEOUT: Duration = Duration::from_secs(2);

/// A Claude Code session's socket, checked: ours, bound, and the session
/// file that names it is the agent process's own.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Endpoint {
    /// The agent process.
    pub pid: u32,
    /// The socket.
    socket: PathBuf,
    /// The session file that named it.
    pub session_file: PathBuf,
    /// The session's transcript (it may not exist before its first turn).
    transcript: PathBuf,
    /// What the session does with a peer message.
    pub inbound: Inbound,
    /// The session file said it was busy: a message waits for its turn
    /// to end.
    pub busy: bool,
}

impl Endpoint {
    /// The checked socket of the Claude Code session of `r`, or why there
    /// is none to use (the channel is then typing).
    pub(crate) fn find(r: &Recipient) -> Result<Endpoint, String> {
        let dir = r
            .claude_dir
            .as_deref()
            .ok_or("the agent's environment names no HOME or CLAUDE_CONFIG_DIR")?;
        // The agent's files must be its own user's, and that user swarm's:
        // a message is never handed to another account's session. Where
        // the process view cannot tell the agent's user (no /proc), the
        // files must be swarm's user's.
        let me = own_uid();
        let owner = r.uid.unwrap_or(me);
        if owner != me {
            return Err(format!(
                "the agent process runs as another user (uid {owner}, swarm runs as {me})"
            ));
        }
        let file = session::read(dir, r.pid, owner)?;
        let socket = session::checked_socket(&file.socket, owner)?;
        // Bound: a connection is taken. Nothing is written on it.
        UnixStream::connect(&socket).map_err(|e| {
            format!(
                "the session's socket {} is not bound: {e}",
                socket.display()
            )
        })?;
        let inbound = settings::inbound(dir, r.cwd.as_deref(), &r.argv);
        if inbound == Inbound::Refuse {
            return Err(
                "the session refuses peer messages (its crossSessionInbound setting is \"refuse\")"
                    .into(),
            );
        }
        Ok(Endpoint {
            pid: r.pid,
            transcript: dir
                .join("projects")
                .join(crate::usage::locate::claude_project_dir(&file.cwd))
                .join(format!("{}.jsonl", file.session_id)),
            socket,
            session_file: dir.join("sessions").join(format!("{}.json", r.pid)),
            inbound,
            busy: file.busy,
        })
    }

    /// The socket.
    pub(crate) fn socket_path(&self) -> &Path {
        &self.socket
    }

    /// Writes `text` as one message line. `Refused` when nothing was
    /// written (connection refused, the first write failed); `Accepted`
    /// as soon as any byte of it was, even when the rest was not: from
    /// then on the message is the agent's and is never typed as well.
    pub(crate) fn post(&self, msg_id: &str, marker: &str, text: &str) -> Post {
        let offset = std::fs::metadata(&self.transcript).map_or(0, |m| m.len());
        let mut line = json!({
            "type": "user",
            "message": {"role": "user", "content": text},
        })
        .to_string();
        line.push('\n');
        let mut stream = match UnixStream::connect(&self.socket) {
            Ok(s) => s,
            Err(e) => {
                return Post::Refused(format!(
                    "could not connect to {}: {e}",
                    self.socket.display()
                ));
            }
        };
        if let Err(e) = stream.set_write_timeout(Some(WRITE_TIMEOUT)) {
            return Post::Refused(format!("could not set up the socket: {e}"));
        }
        let receipt = Receipt {
            channel: Channel::Socket,
            msg_id: msg_id.to_owned(),
            marker: marker.to_owned(),
            record: self.transcript.clone(),
            offset,
            cut_short: false,
        };
        let bytes = line.as_bytes();
        let mut written = 0;
        while written < bytes.len() {
            match stream.write(&bytes[written..]) {
                Ok(0) => break,
                Ok(n) => written += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) if written == 0 => {
                    return Post::Refused(format!(
                        "could not write to {}: {e}",
                        self.socket.display()
                    ));
                }
                Err(_) => break,
            }
        }
        if written == 0 {
            return Post::Refused(format!("{} took nothing", self.socket.display()));
        }
        let _ = stream.flush();
        let _ = stream.shutdown(std::net::Shutdown::Write);
        Post::Accepted(Receipt {
            cut_short: written < bytes.len(),
            ..receipt
        })
    }
}
