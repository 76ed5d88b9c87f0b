//! `swarm dashboard`: the real binary serving a real project on an
//! ephemeral loopback port, talked to by a small HTTP client over
//! `std::net` whose every read is bounded by a time limit.

mod access;
mod actions;
mod api;
mod attention;
mod browser;
mod command;
mod security;
mod stream;
mod usage;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::Instant;

use serde_json::{Value, json};

use crate::harness::{PATIENCE, Project, swarm_bin, swarm_outside_tmux, wait_for};

/// Runs snapshot assertions with the snapshots kept beside every other
/// one, in `tests/snapshots`, named without the module path.
fn snapshots(f: impl FnOnce()) {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path("../snapshots");
    settings.set_prepend_module_to_snapshot(false);
    settings.bind(f);
}

/// `swarm ARGS...` in `project` with a clean environment: no tmux, no
/// dashboard variables, no graphical session.
fn command(project: &Project, args: &[&str]) -> Command {
    let mut cmd = Command::new(swarm_bin());
    cmd.current_dir(project.path())
        .env_remove("TMUX")
        .env_remove("TMUX_PANE")
        .env_remove("CLAUDESWARM_ROOT")
        .env_remove("DASHBOARD_USERNAME")
        .env_remove("DASHBOARD_PASSWORD")
        .env_remove("ALLOWED_ORIGINS")
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .env(
            "SWARM_TMUX_SOCKET",
            format!("swarm-test-absent-{}", std::process::id()),
        )
        .env("NO_COLOR", "1")
        // The per-user config is the project's own `.user-config/`
        // (`Project::user_config`), never the tester's.
        .env("XDG_CONFIG_HOME", project.path().join(".user-config"))
        // The dashboard starts the project's watcher unless told not to;
        // tests that want one start `swarm watch` themselves.
        .env("SWARM_WATCHER_AUTOSTART", "false")
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    cmd
}

/// A running `swarm dashboard`, stopped (SIGKILL) when dropped.
pub(crate) struct Dashboard {
    child: Child,
    addr: SocketAddr,
    /// The URL it printed.
    url: String,
    /// The secret of that URL (none when a password guards it instead).
    key: Option<String>,
    lines: mpsc::Receiver<String>,
    printed: Vec<String>,
}

impl Dashboard {
    /// `swarm dashboard --host 127.0.0.1 --port 0 --no-browser`.
    pub(crate) fn start(project: &Project) -> Dashboard {
        Dashboard::with(project, &[], &[])
    }

    /// The dashboard with more environment and arguments (these replace
    /// `--no-browser` when they name `--host` themselves).
    pub(crate) fn with(project: &Project, env: &[(&str, &str)], args: &[&str]) -> Dashboard {
        let mut all = vec!["dashboard"];
        if !args.contains(&"--host") {
            all.extend(["--host", "127.0.0.1", "--port", "0", "--no-browser"]);
        }
        all.extend(args);
        let mut cmd = command(project, &all);
        cmd.envs(env.iter().copied());
        Dashboard::spawn(cmd)
    }

    /// Starts `cmd` and waits for the address it prints.
    fn spawn(mut cmd: Command) -> Dashboard {
        let mut child = cmd.spawn().expect("start swarm dashboard");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { return };
                if tx.send(line).is_err() {
                    return;
                }
            }
        });
        let mut printed = Vec::new();
        let url = wait_for("the dashboard's URL", || {
            while let Ok(line) = rx.try_recv() {
                printed.push(line);
            }
            if let Ok(Some(status)) = child.try_wait() {
                let mut err = String::new();
                if let Some(mut e) = child.stderr.take() {
                    let _ = e.read_to_string(&mut err);
                }
                panic!("the dashboard exited with {status}: {printed:?} {err}");
            }
            printed
                .iter()
                .find_map(|l| l.strip_prefix("Dashboard URL: "))
                .map(str::to_owned)
        });
        let rest = url.strip_prefix("http://").expect("an http URL");
        let (addr, path) = rest.split_once('/').unwrap_or((rest, ""));
        let addr = addr.parse().expect("the URL names an address");
        let key = path.split_once("token=").map(|(_, k)| k.to_owned());
        Dashboard {
            child,
            addr,
            url,
            key,
            lines: rx,
            printed,
        }
    }

    /// The URL it printed, secret included.
    pub(crate) fn url(&self) -> String {
        self.url.clone()
    }

    /// The secret of the printed URL.
    pub(crate) fn key(&self) -> String {
        self.key
            .clone()
            .unwrap_or_else(|| panic!("no secret in the printed URL {}", self.url))
    }

    /// The name of the cookie the secret is traded for.
    pub(crate) fn cookie_name(&self) -> String {
        format!("swarm-dashboard-{}", self.addr.port())
    }

    /// The `Cookie` header line a browser that opened the printed URL
    /// sends (none when a password guards the dashboard instead).
    fn cookie(&self) -> String {
        match &self.key {
            Some(key) => format!("Cookie: {}={key}\r\n", self.cookie_name()),
            None => String::new(),
        }
    }

    /// The header lines of a request from the person who started this
    /// dashboard: its `Host` and the cookie of its printed URL.
    fn host(&self) -> String {
        format!("Host: {}\r\n{}", self.addr, self.cookie())
    }

    /// `GET path`, as the person who started it.
    pub(crate) fn get(&self, path: &str) -> Reply {
        self.get_with(path, "")
    }

    /// `GET path` with more header lines (each ending in `\r\n`).
    fn get_with(&self, path: &str, headers: &str) -> Reply {
        self.send(&format!(
            "GET {path} HTTP/1.1\r\n{}{headers}\r\n",
            self.host()
        ))
    }

    /// `GET path` without the secret: what anyone else sends.
    fn get_anonymous(&self, path: &str) -> Reply {
        self.get_anonymous_with(path, "")
    }

    /// `GET path` without the secret, with more header lines.
    fn get_anonymous_with(&self, path: &str, headers: &str) -> Reply {
        self.send(&format!(
            "GET {path} HTTP/1.1\r\nHost: {}\r\n{headers}\r\n",
            self.addr
        ))
    }

    /// The action token the page hands to a request without the secret,
    /// if it hands one out.
    fn page_token_as_anyone(&self) -> Option<String> {
        let page = self.get_anonymous("/").text();
        let (_, rest) = page.split_once("name=\"swarm-token\" content=\"")?;
        rest.split('"').next().map(str::to_owned)
    }

    /// Sends `raw` as it is and reads the answer to its end.
    fn send(&self, raw: &str) -> Reply {
        request(self.addr, raw)
    }

    /// Opens the event stream, as the person who started it.
    fn events(&self, headers: &str) -> Events {
        Events::open(self.addr, &format!("{}{headers}", self.cookie()))
    }

    /// Stops it with SIGTERM; returns how it ended, what it printed and
    /// its stderr.
    fn stop(mut self) -> (ExitStatus, Vec<String>, String) {
        let pid = self.child.id().to_string();
        let killed = Command::new("kill")
            .args(["-TERM", &pid])
            .status()
            .expect("kill");
        assert!(killed.success());
        let child = &mut self.child;
        let status = wait_for("the dashboard to exit", || child.try_wait().expect("wait"));
        while let Ok(line) = self.lines.recv_timeout(PATIENCE) {
            self.printed.push(line);
        }
        let mut stderr = String::new();
        if let Some(mut e) = self.child.stderr.take() {
            e.read_to_string(&mut stderr).expect("stderr");
        }
        (status, std::mem::take(&mut self.printed), stderr)
    }
}

impl Drop for Dashboard {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// An answer.
#[derive(Debug)]
pub(crate) struct Reply {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Reply {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    pub(crate) fn json(&self) -> Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.text()))
    }
}

/// One request on a fresh connection; the server closes it after the
/// answer, which is read to the end.
fn request(addr: SocketAddr, raw: &str) -> Reply {
    let mut conn = TcpStream::connect_timeout(&addr, PATIENCE).expect("connect");
    conn.set_read_timeout(Some(PATIENCE)).expect("timeout");
    conn.set_write_timeout(Some(PATIENCE)).expect("timeout");
    conn.write_all(raw.as_bytes()).expect("send");
    let mut bytes = Vec::new();
    conn.read_to_end(&mut bytes).expect("read the answer");
    let end = find(&bytes, b"\r\n\r\n")
        .unwrap_or_else(|| panic!("no complete head in {:?}", String::from_utf8_lossy(&bytes)));
    let (status, headers) = parse_head(&bytes[..end]);
    let body = bytes[end + 4..].to_vec();
    if let Some(len) = headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case("content-length"))
    {
        let len: usize = len.1.parse().expect("a length");
        let head_only = raw.starts_with("HEAD ");
        assert_eq!(body.len(), if head_only { 0 } else { len }, "body length");
    }
    Reply {
        status,
        headers,
        body,
    }
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

fn parse_head(head: &[u8]) -> (u16, Vec<(String, String)>) {
    let text = String::from_utf8(head.to_vec()).expect("an ASCII head");
    let mut lines = text.split("\r\n");
    let status_line = lines.next().expect("a status line");
    let status = status_line
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("bad status line {status_line:?}"));
    let headers = lines
        .map(|l| {
            let (n, v) = l
                .split_once(": ")
                .unwrap_or_else(|| panic!("bad header {l:?}"));
            (n.to_owned(), v.to_owned())
        })
        .collect();
    (status, headers)
}

/// A client of the event stream, decoding chunks as they come.
struct Events {
    conn: TcpStream,
    status: u16,
    headers: Vec<(String, String)>,
    /// Bytes received and not yet de-chunked.
    raw: Vec<u8>,
    /// De-chunked bytes not yet parsed into events.
    text: Vec<u8>,
    /// The last chunk (or the end of the connection) arrived.
    ended: bool,
}

impl Events {
    fn open(addr: SocketAddr, headers: &str) -> Events {
        let mut conn = TcpStream::connect_timeout(&addr, PATIENCE).expect("connect");
        conn.set_read_timeout(Some(PATIENCE)).expect("timeout");
        conn.set_write_timeout(Some(PATIENCE)).expect("timeout");
        conn.write_all(
            format!("GET /api/v1/stream HTTP/1.1\r\nHost: {addr}\r\nAccept: text/event-stream\r\n{headers}\r\n")
                .as_bytes(),
        )
        .expect("send");
        let mut events = Events {
            conn,
            status: 0,
            headers: Vec::new(),
            raw: Vec::new(),
            text: Vec::new(),
            ended: false,
        };
        let deadline = Instant::now() + PATIENCE;
        let end = loop {
            if let Some(end) = find(&events.raw, b"\r\n\r\n") {
                break end;
            }
            assert!(
                events.read_more(deadline),
                "the stream closed before its head"
            );
        };
        let (status, headers) = parse_head(&events.raw[..end]);
        events.raw.drain(..end + 4);
        events.status = status;
        events.headers = headers;
        events
    }

    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// Reads once; false when the connection ended.
    fn read_more(&mut self, deadline: Instant) -> bool {
        assert!(Instant::now() < deadline, "timed out waiting for events");
        let mut buf = [0u8; 16 * 1024];
        match self.conn.read(&mut buf) {
            Ok(0) => false,
            Ok(n) => {
                self.raw.extend_from_slice(&buf[..n]);
                true
            }
            Err(e) => panic!("reading the stream failed: {e}"),
        }
    }

    /// Moves every complete chunk from `raw` to `text`.
    fn dechunk(&mut self) {
        loop {
            let Some(line_end) = find(&self.raw, b"\r\n") else {
                return;
            };
            let size_text = String::from_utf8_lossy(&self.raw[..line_end]).into_owned();
            let size = usize::from_str_radix(size_text.trim(), 16)
                .unwrap_or_else(|_| panic!("bad chunk size {size_text:?}"));
            if size == 0 {
                self.ended = true;
                return;
            }
            let start = line_end + 2;
            if self.raw.len() < start + size + 2 {
                return;
            }
            self.text.extend_from_slice(&self.raw[start..start + size]);
            assert_eq!(
                &self.raw[start + size..start + size + 2],
                b"\r\n",
                "chunk end"
            );
            self.raw.drain(..start + size + 2);
        }
    }

    /// The next event, or `None` once the stream has ended.
    fn next(&mut self, deadline: Instant) -> Option<(String, Value)> {
        loop {
            self.dechunk();
            if let Some(end) = find(&self.text, b"\n\n") {
                let block = String::from_utf8(self.text[..end].to_vec()).expect("UTF-8 events");
                self.text.drain(..end + 2);
                let mut name = String::from("message");
                let mut data = String::new();
                for line in block.lines() {
                    if let Some(n) = line.strip_prefix("event: ") {
                        name = n.to_owned();
                    } else if let Some(d) = line.strip_prefix("data: ") {
                        assert!(data.is_empty(), "one data line per event: {block:?}");
                        data = d.to_owned();
                    }
                }
                let value = serde_json::from_str(&data)
                    .unwrap_or_else(|e| panic!("event data is not JSON ({e}): {data:?}"));
                return Some((name, value));
            }
            if self.ended || !self.read_more(deadline) {
                return None;
            }
        }
    }

    /// Reads events until one named `name` satisfies `check`; returns it
    /// with the names of every event read on the way.
    fn until(&mut self, name: &str, check: impl Fn(&Value) -> bool) -> (Value, Vec<String>) {
        let deadline = Instant::now() + PATIENCE;
        let mut seen = Vec::new();
        loop {
            let Some((n, v)) = self.next(deadline) else {
                panic!("the stream ended before a matching {name} event; saw {seen:?}");
            };
            seen.push(n.clone());
            if n == name && check(&v) {
                return (v, seen);
            }
        }
    }
}

// --- The project every API test serves -------------------------------

const UPDATED: &str = "2026-11-21T13:26:58.589963+00:00";

/// A registry as the Python tool writes it: one active agent, one stale.
fn registry() -> Value {
    let agent = |i: usize, status: &str, seen: &str| {
        json!({"id": format!("agent-{i}"), "pane_index": format!("swarm:0.{i}"), "pid": 18877 + i,
               "status": status, "last_seen": seen, "session_name": "swarm",
               "tmux_pane_id": format!("%{i}")})
    };
    json!({"session_name": "swarm", "updated_at": UPDATED,
           "agents": [agent(0, "active", UPDATED), agent(1, "stale", "2026-11-21T13:20:00+00:00")],
           "session_names": ["swarm"]})
}

/// A message line in the shape both tools write.
fn log_line(id: &str, from: &str, to: &[&str], kind: &str, when: &str, content: &str) -> String {
    json!({
        "sender": from, "timestamp": when, "msg_type": kind, "content": content,
        "recipients": to, "msg_id": id,
        "delivery_status": to.iter().map(|r| (r.to_string(), json!(true))).collect::<serde_json::Map<_, _>>(),
        "success_count": to.len(), "failure_count": 0
    })
    .to_string()
}

fn append(project: &Project, line: &str) {
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .open(project.file("agent_messages.log"))
        .expect("open the log");
    writeln!(f, "{line}").expect("append");
}

/// Runs a swarm command that must succeed.
fn swarm_ok(project: &Project, args: &[&str]) {
    let out = swarm_outside_tmux(project)
        .args(args)
        .output()
        .expect("run");
    assert!(
        out.status.success(),
        "swarm {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The lock file whose `filepath` is `path`.
fn lock_file_of(project: &Project, path: &str) -> std::path::PathBuf {
    let found = project
        .ls(".agent_locks")
        .into_iter()
        .filter(|n| n.ends_with(".lock"))
        .find(|n| {
            let text = project.read(&format!(".agent_locks/{n}"));
            serde_json::from_str::<Value>(&text).is_ok_and(|v| v["filepath"] == json!(path))
        });
    project.file(&format!(
        ".agent_locks/{}",
        found.unwrap_or_else(|| panic!("no lock file for {path}"))
    ))
}

/// A project with state in every file: two agents, three messages (one
/// with markup in it, one whose delivery was recorded later), a garbage
/// log line, two live locks, a stale one, a damaged lock file, and a
/// pending acknowledgement.
fn populated_project() -> Project {
    let project = Project::new();
    project.write("ACTIVE_AGENTS.json", &registry().to_string());
    let lines = [
        log_line(
            "9c2c68bd-7f2c-490f-a333-2015aba90f22",
            "agent-0",
            &["agent-1"],
            "INFO",
            "2026-11-21T13:27:02.029457",
            "schema v2 merged",
        ),
        "not a message".to_owned(),
        json!({"sender": "agent-1", "timestamp": "2026-11-21T13:28:00.000000+00:00",
               "msg_type": "QUESTION", "content": "<script>alert('x')</script> & <img src=x onerror=alert(1)>",
               "recipients": ["agent-0", "agent-2"], "msg_id": "3f1e0c7a-0000-4000-8000-000000000002",
               "requires_ack": true,
               "delivery_status": {"agent-0": false, "agent-2": false},
               "success_count": 0, "failure_count": 2})
        .to_string(),
        json!({"event": "delivery", "msg_id": "3f1e0c7a-0000-4000-8000-000000000002",
               "timestamp": "2026-11-21T13:28:01.000000+00:00", "recipients": [],
               "outcomes": {"agent-0": {"status": "delivered"},
                            "agent-2": {"status": "queued", "reason": "a shell holds the pane"}}})
        .to_string(),
        log_line(
            "3f1e0c7a-0000-4000-8000-000000000003",
            "agent-0",
            &["agent-1"],
            "BLOCKED",
            "2026-11-21T13:29:30.500000+00:00",
            "need src/a.py\nsoon",
        ),
    ];
    project.write("agent_messages.log", &(lines.join("\n") + "\n"));
    swarm_ok(
        &project,
        &[
            "lock",
            "src/a.py",
            "--agent",
            "agent-0",
            "--reason",
            "editing <a>",
        ],
    );
    swarm_ok(&project, &["lock", "docs/*", "--agent", "agent-1"]);
    swarm_ok(&project, &["lock", "old.txt", "--agent", "agent-1"]);
    // Taken long ago: stale.
    let old = lock_file_of(&project, "old.txt");
    let mut record: Value =
        serde_json::from_str(&std::fs::read_to_string(&old).expect("read")).expect("JSON");
    record["locked_at"] = json!(1_000_000_000.5);
    std::fs::write(&old, record.to_string()).expect("write");
    project.write(
        &format!(".agent_locks/{}.lock", "0".repeat(64)),
        "not a lock",
    );
    project.write(
        "PENDING_ACKS.json",
        &json!({"version": 2, "pending_acks": [{
            "msg_id": "3f1e0c7a-0000-4000-8000-000000000002", "sender_id": "agent-1",
            "recipient_id": "agent-0",
            "message": {"sender": "agent-1", "msg_type": "QUESTION", "content": "ok?"},
            "sent_at": "2026-11-21T13:28:00.000000", "retry_count": 1,
            "next_retry_at": "2026-11-21T13:29:00.000000"}]})
        .to_string(),
    );
    project
}
