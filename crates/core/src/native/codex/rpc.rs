//! A JSON-RPC connection to Codex CLI's app server over its Unix socket.
//! The server speaks WebSocket there (a plain `GET` with `Upgrade:
//! websocket`, then one JSON message per text frame), as it does on TCP.
//! Blocking, every wait bounded by a deadline: the core has no async
//! runtime, and a server that stops answering must never hang `swarm msg`.

use std::io;
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::time::{Duration, Instant};

use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use tungstenite::protocol::WebSocketConfig;
use tungstenite::{Message, WebSocket};

use super::protocol::{Incoming, RpcError, initialize_params, method};

/// The most one message from the server may hold (a thread's metadata is
/// a few kilobytes; a page of turns can be more).
const MAX_MESSAGE: usize = 8 << 20;

/// Notifications kept while a request waits for its answer; older ones are
/// dropped (swarm only looks for its own message's items).
const MAX_KEPT: usize = 512;

/// What went wrong talking to the server.
#[derive(Debug)]
pub(crate) enum RpcFailure {
    /// No connection (no socket, refused), or the WebSocket handshake or
    /// the connection failed.
    Transport(String),
    /// The server answered with an error.
    Answer(RpcError),
    /// The server sent what the protocol does not allow, or an answer of
    /// the wrong shape.
    Protocol(String),
    /// No answer before the deadline: the request may or may not have
    /// been taken.
    Timeout,
}

impl std::fmt::Display for RpcFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RpcFailure::Transport(why) => write!(f, "{why}"),
            RpcFailure::Answer(e) => {
                write!(f, "the app server answered error {}: {}", e.code, e.message)
            }
            RpcFailure::Protocol(why) => write!(f, "app server protocol error: {why}"),
            RpcFailure::Timeout => write!(f, "the app server did not answer in time"),
        }
    }
}

/// One notification from the server: its method and params.
#[derive(Clone, Debug)]
pub(crate) struct Notice {
    pub(crate) method: String,
    pub(crate) params: Value,
}

/// An initialized connection.
pub(crate) struct Connection {
    socket: WebSocket<UnixStream>,
    next_id: u64,
    /// Notifications that came while waiting for answers, oldest first.
    pub(crate) notices: Vec<Notice>,
}

impl Connection {
    /// Connects to the server at `path`, does the WebSocket handshake and
    /// `initialize`, all within `within`.
    pub(crate) fn open(path: &Path, within: Duration) -> Result<Connection, RpcFailure> {
        let deadline = Instant::now() + within;
        let stream = UnixStream::connect(path).map_err(|e| {
            RpcFailure::Transport(format!("cannot connect to {}: {e}", path.display()))
        })?;
        set_deadline(&stream, deadline).map_err(|e| RpcFailure::Transport(e.to_string()))?;
        let config = WebSocketConfig::default()
            .max_message_size(Some(MAX_MESSAGE))
            .max_frame_size(Some(MAX_MESSAGE));
        let socket = match tungstenite::client::client_with_config(
            "ws://localhost/",
            stream,
            Some(config),
        ) {
            Ok((socket, _)) => socket,
            Err(e) => {
                return Err(RpcFailure::Transport(format!(
                    "no WebSocket handshake with the app server: {e}"
                )));
            }
        };
        let mut c = Connection {
            socket,
            next_id: 0,
            notices: Vec::new(),
        };
        let version = env!("CARGO_PKG_VERSION");
        c.call_value(method::INITIALIZE, initialize_params(version), deadline)?;
        c.notify(method::INITIALIZED, deadline)?;
        Ok(c)
    }

    /// Calls `method` and reads its answer as `T`.
    pub(crate) fn call<T: DeserializeOwned>(
        &mut self,
        method: &str,
        params: Value,
        deadline: Instant,
    ) -> Result<T, RpcFailure> {
        let value = self.call_value(method, params, deadline)?;
        serde_json::from_value(value)
            .map_err(|e| RpcFailure::Protocol(format!("{method}'s answer: {e}")))
    }

    /// Calls `method`; its `result` as it came.
    pub(crate) fn call_value(
        &mut self,
        method: &str,
        params: Value,
        deadline: Instant,
    ) -> Result<Value, RpcFailure> {
        self.next_id += 1;
        let id = self.next_id;
        let request = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        self.send(&request, deadline)?;
        loop {
            let m = self.receive(deadline)?;
            match (&m.id, &m.method) {
                (Some(got), None) if got.as_u64() == Some(id) => {
                    if let Some(e) = m.error {
                        return Err(RpcFailure::Answer(e));
                    }
                    return m.result.ok_or_else(|| {
                        RpcFailure::Protocol(format!("{method}'s answer has no result"))
                    });
                }
                (None, Some(_)) => self.keep(m),
                // A request of the server's own (an approval to answer):
                // swarm never takes those on, the TUI does.
                (Some(_), Some(_)) => {}
                _ => {
                    return Err(RpcFailure::Protocol(
                        "an answer to a request swarm did not make".into(),
                    ));
                }
            }
        }
    }

    /// Waits until `deadline` for a notification `found` accepts, looking
    /// first at those already kept. `Ok(None)` when none came in time.
    pub(crate) fn wait_for<T>(
        &mut self,
        deadline: Instant,
        mut found: impl FnMut(&Notice) -> Option<T>,
    ) -> Result<Option<T>, RpcFailure> {
        if let Some(t) = self.notices.iter().find_map(&mut found) {
            return Ok(Some(t));
        }
        loop {
            let m = match self.receive(deadline) {
                Ok(m) => m,
                Err(RpcFailure::Timeout) => return Ok(None),
                Err(e) => return Err(e),
            };
            if let (None, Some(method)) = (&m.id, &m.method) {
                let notice = Notice {
                    method: method.clone(),
                    params: m.params.clone().unwrap_or(Value::Null),
                };
                if let Some(t) = found(&notice) {
                    return Ok(Some(t));
                }
                self.keep(m);
            }
        }
    }

    fn keep(&mut self, m: Incoming) {
        let Some(method) = m.method else { return };
        if self.notices.len() >= MAX_KEPT {
            self.notices.remove(0);
        }
        self.notices.push(Notice {
            method,
            params: m.params.unwrap_or(Value::Null),
        });
    }

    fn notify(&mut self, method: &str, deadline: Instant) -> Result<(), RpcFailure> {
        self.send(&json!({"jsonrpc": "2.0", "method": method}), deadline)
    }

    fn send(&mut self, value: &Value, deadline: Instant) -> Result<(), RpcFailure> {
        set_deadline(self.socket.get_ref(), deadline).map_err(|_| RpcFailure::Timeout)?;
        self.socket
            .send(Message::text(value.to_string()))
            .map_err(failure)
    }

    /// The next message, skipping pings (answered by the library) and
    /// binary frames.
    fn receive(&mut self, deadline: Instant) -> Result<Incoming, RpcFailure> {
        loop {
            set_deadline(self.socket.get_ref(), deadline).map_err(|_| RpcFailure::Timeout)?;
            match self.socket.read().map_err(failure)? {
                Message::Text(text) => {
                    return serde_json::from_str(text.as_str())
                        .map_err(|e| RpcFailure::Protocol(format!("not a JSON-RPC message: {e}")));
                }
                Message::Close(_) => {
                    return Err(RpcFailure::Transport(
                        "the app server closed the connection".into(),
                    ));
                }
                _ => {}
            }
        }
    }
}

/// Sets both socket timeouts to what is left until `deadline`; an error
/// when nothing is left.
fn set_deadline(stream: &UnixStream, deadline: Instant) -> io::Result<()> {
    let left = deadline.saturating_duration_since(Instant::now());
    if left.is_zero() {
        return Err(io::Error::from(io::ErrorKind::TimedOut));
    }
    stream.set_read_timeout(Some(left))?;
    stream.set_write_timeout(Some(left))
}

fn failure(e: tungstenite::Error) -> RpcFailure {
    match e {
        tungstenite::Error::Io(io)
            if matches!(
                io.kind(),
                io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
            ) =>
        {
            RpcFailure::Timeout
        }
        tungstenite::Error::ConnectionClosed | tungstenite::Error::AlreadyClosed => {
            RpcFailure::Transport("the app server closed the connection".into())
        }
        tungstenite::Error::Io(io) => RpcFailure::Transport(format!("app server connection: {io}")),
        other => RpcFailure::Protocol(other.to_string()),
    }
}
