//! `swarm dashboard` as the tests run it: the real binary serving a real
//! project on an ephemeral loopback port, talked to by a small HTTP client
//! over `std::net` whose every read is bounded by a time limit.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::Instant;

use serde_json::Value;

use super::watcher::Watch;
use super::{PATIENCE, Project, TmuxServer, stop_child, swarm, swarm_bin, wait_for};

/// `swarm ARGS...` in `project` with a clean environment: no tmux, no
/// dashboard variables, no graphical session.
pub fn command(project: &Project, args: &[&str]) -> Command {
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
pub struct Dashboard {
    pub child: Child,
    pub addr: SocketAddr,
    /// The URL it printed.
    pub url: String,
    /// The secret of that URL (none when a password guards it instead).
    pub key: Option<String>,
    pub lines: mpsc::Receiver<String>,
    pub printed: Vec<String>,
}

impl Dashboard {
    /// `swarm dashboard --host 127.0.0.1 --port 0 --no-browser`.
    pub fn start(project: &Project) -> Dashboard {
        Dashboard::with(project, &[], &[])
    }

    /// The dashboard with more environment and arguments (these replace
    /// `--no-browser` when they name `--host` themselves).
    pub fn with(project: &Project, env: &[(&str, &str)], args: &[&str]) -> Dashboard {
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
    pub fn spawn(mut cmd: Command) -> Dashboard {
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
    pub fn url(&self) -> String {
        self.url.clone()
    }

    /// The secret of the printed URL.
    pub fn key(&self) -> String {
        self.key
            .clone()
            .unwrap_or_else(|| panic!("no secret in the printed URL {}", self.url))
    }

    /// The name of the cookie the secret is traded for.
    pub fn cookie_name(&self) -> String {
        format!("swarm-dashboard-{}", self.addr.port())
    }

    /// The `Cookie` header line a browser that opened the printed URL
    /// sends (none when a password guards the dashboard instead).
    pub fn cookie(&self) -> String {
        match &self.key {
            Some(key) => format!("Cookie: {}={key}\r\n", self.cookie_name()),
            None => String::new(),
        }
    }

    /// The header lines of a request from the person who started this
    /// dashboard: its `Host` and the cookie of its printed URL.
    pub fn host(&self) -> String {
        format!("Host: {}\r\n{}", self.addr, self.cookie())
    }

    /// `GET path`, as the person who started it.
    pub fn get(&self, path: &str) -> Reply {
        self.get_with(path, "")
    }

    /// `GET path` with more header lines (each ending in `\r\n`).
    pub fn get_with(&self, path: &str, headers: &str) -> Reply {
        self.send(&format!(
            "GET {path} HTTP/1.1\r\n{}{headers}\r\n",
            self.host()
        ))
    }

    /// `GET path` without the secret: what anyone else sends.
    pub fn get_anonymous(&self, path: &str) -> Reply {
        self.get_anonymous_with(path, "")
    }

    /// `GET path` without the secret, with more header lines.
    pub fn get_anonymous_with(&self, path: &str, headers: &str) -> Reply {
        self.send(&format!(
            "GET {path} HTTP/1.1\r\nHost: {}\r\n{headers}\r\n",
            self.addr
        ))
    }

    /// The action token the page hands to a request without the secret,
    /// if it hands one out.
    pub fn page_token_as_anyone(&self) -> Option<String> {
        let page = self.get_anonymous("/").text();
        let (_, rest) = page.split_once("name=\"swarm-token\" content=\"")?;
        rest.split('"').next().map(str::to_owned)
    }

    /// Sends `raw` as it is and reads the answer to its end.
    pub fn send(&self, raw: &str) -> Reply {
        request(self.addr, raw)
    }

    /// Opens the event stream, as the person who started it.
    pub fn events(&self, headers: &str) -> Events {
        Events::open(self.addr, &format!("{}{headers}", self.cookie()))
    }

    /// Stops it with SIGTERM; returns how it ended, what it printed and
    /// its stderr.
    pub fn stop(mut self) -> (ExitStatus, Vec<String>, String) {
        stop_child(
            "the dashboard",
            &mut self.child,
            &self.lines,
            &mut self.printed,
            PATIENCE,
        )
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
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Reply {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    pub fn json(&self) -> Value {
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
pub struct Events {
    pub conn: TcpStream,
    pub status: u16,
    pub headers: Vec<(String, String)>,
    /// Bytes received and not yet de-chunked.
    pub raw: Vec<u8>,
    /// De-chunked bytes not yet parsed into events.
    pub text: Vec<u8>,
    /// The last chunk (or the end of the connection) arrived.
    pub ended: bool,
}

impl Events {
    pub fn open(addr: SocketAddr, headers: &str) -> Events {
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

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// Reads once; false when the connection ended.
    pub fn read_more(&mut self, deadline: Instant) -> bool {
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
    pub fn dechunk(&mut self) {
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
    pub fn next(&mut self, deadline: Instant) -> Option<(String, Value)> {
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
    pub fn until(&mut self, name: &str, check: impl Fn(&Value) -> bool) -> (Value, Vec<String>) {
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

/// One demo agent, registered, its project's watcher running, and the
/// dashboard serving it.
pub struct Watched {
    /// The dashboard (stopped first when dropped).
    pub dash: Dashboard,
    /// The watcher.
    pub watch: Watch,
    /// The agent's pane.
    pub pane: String,
    /// The agent's record file.
    pub record: std::path::PathBuf,
    /// The project.
    pub project: Project,
    /// The tmux server.
    pub server: TmuxServer,
}

impl Watched {
    pub fn start() -> Watched {
        let server = TmuxServer::start();
        let project = Project::new();
        let record = project.file("rec.jsonl");
        let pane = server.demo_agent(&project.path(), &record);
        swarm(&project, &server).arg("discover").assert().success();
        let watch = Watch::start(&project, &server);
        let dash = Dashboard::with(&project, &[("SWARM_TMUX_SOCKET", &server.socket)], &[]);
        Watched {
            dash,
            watch,
            pane,
            record,
            project,
            server,
        }
    }
}
