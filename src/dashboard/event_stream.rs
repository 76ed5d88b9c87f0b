//! `GET /api/v1/stream`: server-sent events (README, Dashboard). A stream opens
//! with `connected`, then sends the current agents, locks, pending ACKs,
//! latest messages and counts, then each of them again whenever it
//! changes, and a `heartbeat` every 15 seconds. HTTP/1.1 clients get the
//! events as chunks (the stream has no length); HTTP/1.0 ones until the
//! connection closes.

use std::io::{self, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::support::time;

use super::api;
use super::app::App;
use super::live::TOPICS;
use super::request::{Request, Version};
use super::response::{Response, SECURITY_HEADERS, json_bytes};

/// Time between heartbeats.
pub(crate) const HEARTBEAT: Duration = Duration::from_secs(15);

/// Longest wait before a stream looks whether its client is still there.
const CHECK_CLIENT: Duration = Duration::from_secs(1);

/// Longest wait for the first scan after a stream opens.
const FIRST_SCAN: Duration = Duration::from_secs(30);

/// Serves one event stream until the client leaves or the server stops.
pub(super) fn serve(app: &App, conn: &TcpStream, req: &Request, cors: &[(&'static str, String)]) {
    let Some(_slot) = app.streams.take() else {
        let busy = Response::detail(503, "Too many open event streams; try again shortly")
            .with("Retry-After", "5");
        let _ = busy.write_to(&mut &*conn, cors, false);
        return;
    };
    let chunked = req.version == Version::Http11;
    let start = app.live.subscribe();
    let _unsubscribe = Unsubscribe(app);
    let mut out = Events { conn, chunked };
    if out.head(cors).is_err()
        || out
            .event("connected", &api::connected(time::now()))
            .is_err()
    {
        return;
    }
    let mut sent = [0u64; TOPICS.len()];
    let mut after = start;
    let mut waiting_first = true;
    let opened = Instant::now();
    let mut last_beat = Instant::now();
    loop {
        let until = (Instant::now() + CHECK_CLIENT).min(last_beat + HEARTBEAT);
        let changes = app.live.wait(&sent, after, until);
        if changes.stopping || app.stopping() {
            out.end();
            return;
        }
        for (topic, version, json) in &changes.items {
            if out.raw_event(topic.event(), json).is_err() {
                return;
            }
            sent[topic.index()] = *version;
        }
        if waiting_first && (!changes.items.is_empty() || opened.elapsed() > FIRST_SCAN) {
            waiting_first = false;
            after = 0;
        }
        if last_beat.elapsed() >= HEARTBEAT {
            last_beat = Instant::now();
            if out
                .event("heartbeat", &api::heartbeat(time::now()))
                .is_err()
            {
                return;
            }
        }
        if client_left(conn) {
            return;
        }
    }
}

struct Unsubscribe<'a>(&'a App);

impl Drop for Unsubscribe<'_> {
    fn drop(&mut self) {
        self.0.live.unsubscribe();
    }
}

/// True when the client closed its side: a read that would block means
/// it is still there; end of stream means it left.
fn client_left(conn: &TcpStream) -> bool {
    if conn.set_nonblocking(true).is_err() {
        return true;
    }
    let mut byte = [0u8; 1];
    let left = match conn.peek(&mut byte) {
        Ok(0) => true,
        Ok(_) => false,
        Err(e) => e.kind() != io::ErrorKind::WouldBlock && e.kind() != io::ErrorKind::Interrupted,
    };
    left || conn.set_nonblocking(false).is_err()
}

struct Events<'a> {
    conn: &'a TcpStream,
    chunked: bool,
}

impl Events<'_> {
    fn head(&mut self, cors: &[(&'static str, String)]) -> io::Result<()> {
        let mut head = String::from("HTTP/1.1 200 OK\r\n");
        let own = [
            ("Content-Type", "text/event-stream; charset=utf-8"),
            ("Cache-Control", "no-cache"),
            ("X-Accel-Buffering", "no"),
        ];
        for (name, value) in SECURITY_HEADERS.iter().chain(&own) {
            head.push_str(&format!("{name}: {value}\r\n"));
        }
        for (name, value) in cors {
            head.push_str(&format!("{name}: {value}\r\n"));
        }
        if self.chunked {
            head.push_str("Transfer-Encoding: chunked\r\nConnection: keep-alive\r\n");
        } else {
            head.push_str("Connection: close\r\n");
        }
        head.push_str("\r\n");
        self.send(head.as_bytes(), false)
    }

    fn event(&mut self, name: &str, value: &Value) -> io::Result<()> {
        let json = String::from_utf8_lossy(&json_bytes(value)).into_owned();
        self.raw_event(name, &json)
    }

    /// `event: NAME`, `data: JSON` (always one line: the JSON escapes line
    /// breaks), and the blank line that ends an event.
    fn raw_event(&mut self, name: &str, json: &str) -> io::Result<()> {
        let text = format!("event: {name}\ndata: {json}\n\n");
        self.send(text.as_bytes(), self.chunked)
    }

    /// The last chunk, so the client sees a complete answer.
    fn end(&mut self) {
        if self.chunked {
            let _ = self.send(b"0\r\n\r\n", false);
        }
    }

    fn send(&mut self, bytes: &[u8], as_chunk: bool) -> io::Result<()> {
        let mut conn = self.conn;
        if as_chunk {
            let mut chunk = format!("{:x}\r\n", bytes.len()).into_bytes();
            chunk.extend_from_slice(bytes);
            chunk.extend_from_slice(b"\r\n");
            conn.write_all(&chunk)?;
        } else {
            conn.write_all(bytes)?;
        }
        conn.flush()
    }
}
