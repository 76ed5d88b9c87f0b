//! Test harness: a private tmux server per test, a project directory, and
//! a `swarm` command wired to both. Nothing here touches the user's own
//! tmux server: every call passes `-L swarm-test-<unique>` and `-f
//! /dev/null`, and `TMUX`/`TMUX_PANE` are removed from the environment.
//!
//! Every helper more than one test module uses lives here (the house test
//! refuses a helper borrowed from another test module): the commands' own
//! clients in submodules by subject (`dashboard`, `mcp`, `monitor`,
//! `chromium`, `http`, `repo`, `usage`, `watcher`, Redis servers, another
//! local account).

#![allow(dead_code)]

#[cfg(feature = "dashboard")]
pub mod chromium;
#[cfg(feature = "dashboard")]
pub mod dashboard;
pub mod http;
#[cfg(feature = "mcp")]
pub mod mcp;
#[cfg(feature = "monitor")]
pub mod monitor;
pub mod other_account;
pub mod redis_cluster;
pub mod redis_server;
pub mod repo;
pub mod usage;
pub mod watcher;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

/// The swarm binary under test.
pub fn swarm_bin() -> &'static str {
    env!("CARGO_BIN_EXE_swarm")
}

/// The real `tmux` on `PATH`, for a test's own `tmux` in front of it.
pub fn real_tmux() -> PathBuf {
    std::env::var_os("PATH")
        .and_then(|path| {
            std::env::split_paths(&path)
                .map(|dir| dir.join("tmux"))
                .find(|candidate| candidate.is_file())
        })
        .expect("tmux on PATH")
}

/// How long `wait_for` waits for a condition before failing the test.
/// Generous: the machine is shared and slow; a healthy run takes
/// milliseconds.
pub const PATIENCE: Duration = Duration::from_secs(30);

/// Polls `check` until it returns `Some`, failing the test with `what`
/// after `PATIENCE`. This waits for an observable event (a line in a
/// file, text on screen); it never stands in for synchronisation.
pub fn wait_for<T>(what: &str, mut check: impl FnMut() -> Option<T>) -> T {
    let started = Instant::now();
    let mut pause = Duration::from_millis(2);
    loop {
        if let Some(v) = check() {
            return v;
        }
        assert!(started.elapsed() < PATIENCE, "timed out waiting for {what}");
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(50));
    }
}

/// Stops a child the test started with SIGTERM (as a person's Ctrl-C
/// does) and waits for it to exit; then its status, every line it printed
/// (`printed`, the lines read so far, followed by the rest from `lines`,
/// each waited for at most `drain`) and its stderr. `what` names it in
/// the wait's failure.
pub fn stop_child(
    what: &str,
    child: &mut std::process::Child,
    lines: &std::sync::mpsc::Receiver<String>,
    printed: &mut Vec<String>,
    drain: Duration,
) -> (std::process::ExitStatus, Vec<String>, String) {
    use std::io::Read;
    let pid = child.id().to_string();
    let killed = Command::new("kill")
        .args(["-TERM", &pid])
        .status()
        .expect("kill");
    assert!(killed.success());
    let status = wait_for(&format!("{what} to exit"), || {
        child.try_wait().expect("wait")
    });
    while let Ok(line) = lines.recv_timeout(drain) {
        printed.push(line);
    }
    let mut stderr = String::new();
    if let Some(mut e) = child.stderr.take() {
        e.read_to_string(&mut stderr).expect("stderr");
    }
    (status, std::mem::take(printed), stderr)
}

/// The process backend the `swarm` commands of this run use: what
/// `SWARM_PROCESS_BACKEND` says (scripts/test runs the discovery, delivery,
/// launch and doctor tests once with it unset and once with `portable`),
/// else the automatic choice.
pub fn process_backend() -> String {
    match std::env::var("SWARM_PROCESS_BACKEND") {
        Ok(v) if !v.trim().is_empty() && v.trim() != "auto" => v.trim().to_owned(),
        _ if cfg!(target_os = "linux") => "proc".into(),
        _ => "portable".into(),
    }
}

/// A private tmux server, killed when dropped.
pub struct TmuxServer {
    pub socket: String,
}

impl TmuxServer {
    /// Starts a server with one placeholder session (`harness`) so that it
    /// keeps running while tests open and close panes.
    pub fn start() -> TmuxServer {
        static COUNTER: AtomicU32 = AtomicU32::new(0);
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.subsec_nanos())
            .unwrap_or(0);
        let server = TmuxServer {
            socket: format!("swarm-test-{}-{n}-{nanos:x}", std::process::id()),
        };
        server.tmux(&[
            "new-session",
            "-d",
            "-s",
            "harness",
            "-x",
            "200",
            "-y",
            "50",
            "--",
            "sleep 86400",
        ]);
        server
    }

    /// A `tmux` command for this server.
    pub fn command(&self) -> Command {
        let mut cmd = Command::new("tmux");
        cmd.args(["-L", &self.socket, "-f", "/dev/null"])
            .env_remove("TMUX")
            .env_remove("TMUX_PANE");
        cmd
    }

    /// Runs tmux and returns stdout; fails the test on error.
    pub fn tmux(&self, args: &[&str]) -> String {
        let out = self.try_tmux(args);
        assert!(
            out.status.success(),
            "tmux {args:?} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Runs tmux and returns whatever happened.
    pub fn try_tmux(&self, args: &[&str]) -> Output {
        self.command().args(args).output().expect("run tmux")
    }

    /// Opens a pane (a new window of the harness session) running
    /// `command` through `sh -c` in `cwd`; returns its id (`%N`).
    pub fn pane(&self, cwd: &Path, command: &str) -> String {
        let cwd = cwd.to_str().expect("utf-8 path");
        self.tmux(&[
            "new-window",
            "-d",
            "-P",
            "-F",
            "#{pane_id}",
            "-t",
            "harness",
            "-c",
            cwd,
            "--",
            command,
        ])
        .trim()
        .to_owned()
    }

    /// A pane at an interactive bash prompt, ready for input.
    pub fn shell(&self, cwd: &Path) -> String {
        let pane = self.pane(cwd, "PS1='ready$ ' exec bash --norc --noprofile");
        self.wait_for_screen(&pane, "ready$");
        pane
    }

    /// A pane running the demo agent, recording into `record`; returns
    /// once the agent has switched on bracketed paste.
    pub fn demo_agent(&self, cwd: &Path, record: &Path) -> String {
        let pane = self.pane(cwd, &format!("exec {}", demo_agent_command(record)));
        self.wait_for_screen(&pane, "waiting for messages");
        pane
    }

    /// A shell pane in which the demo agent was started from the prompt,
    /// recording into `record`: the shell stays when the agent ends.
    /// Returns once the agent is waiting for messages.
    pub fn demo_agent_from_shell(&self, cwd: &Path, record: &Path) -> String {
        let shell = self.shell(cwd);
        self.type_line(&shell, &demo_agent_command(record));
        self.wait_for_screen(&shell, "waiting for messages");
        shell
    }

    /// Types `text` into `pane` as a person would, then presses Enter.
    pub fn type_line(&self, pane: &str, text: &str) {
        self.tmux(&["send-keys", "-t", pane, "-l", "--", text]);
        self.tmux(&["send-keys", "-t", pane, "Enter"]);
    }

    /// The visible text of a pane.
    pub fn capture(&self, pane: &str) -> String {
        self.tmux(&["capture-pane", "-p", "-J", "-t", pane])
    }

    /// Waits until `text` is on the pane's screen.
    pub fn wait_for_screen(&self, pane: &str, text: &str) {
        wait_for(&format!("{text:?} on pane {pane}"), || {
            self.capture(pane).contains(text).then_some(())
        });
    }

    /// Pane ids of every pane, in `list-panes -a` order.
    pub fn pane_ids(&self) -> Vec<String> {
        self.tmux(&["list-panes", "-a", "-F", "#{pane_id}"])
            .lines()
            .map(str::to_owned)
            .collect()
    }

    /// A pane option (`@swarm_agent`), empty when unset.
    pub fn pane_option(&self, pane: &str, option: &str) -> String {
        self.tmux(&[
            "display-message",
            "-p",
            "-t",
            pane,
            &format!("#{{{option}}}"),
        ])
        .trim_end()
        .to_owned()
    }

    /// Kills a pane (its processes get SIGHUP).
    pub fn kill_pane(&self, pane: &str) {
        self.tmux(&["kill-pane", "-t", pane]);
    }
}

impl Drop for TmuxServer {
    fn drop(&mut self) {
        let _ = self.command().arg("kill-server").output();
    }
}

/// The shell command that starts the demo agent, recording into `record`.
pub fn demo_agent_command(record: &Path) -> String {
    format!(
        "'{}' demo-agent --record '{}'",
        swarm_bin(),
        record.display()
    )
}

/// Demo agents in `n` panes, discovered as agent-0 .. agent-(n-1), each
/// recording into `rec<i>.jsonl`; the panes in id order.
pub fn agents(server: &TmuxServer, project: &Project, n: usize) -> Vec<String> {
    let panes: Vec<String> = (0..n)
        .map(|i| server.demo_agent(&project.path(), &project.file(&format!("rec{i}.jsonl"))))
        .collect();
    swarm(project, server).arg("discover").assert().success();
    let by_pane: std::collections::BTreeMap<String, String> = project
        .agents()
        .into_iter()
        .map(|(id, pane, _)| (pane, id))
        .collect();
    let mut order: Vec<(String, String)> = panes
        .into_iter()
        .map(|p| (by_pane.get(&p).cloned().expect("registered"), p))
        .collect();
    order.sort();
    order.into_iter().map(|(_, p)| p).collect()
}

/// `swarm launch N --agent demo` in session `session`: the (id, pane) of
/// each agent, once each has drawn its banner (until it has, swarm cannot
/// tell its screen from a starting program's and rightly holds a message).
pub fn launch_demo(
    project: &Project,
    server: &TmuxServer,
    n: usize,
    session: &str,
) -> Vec<(String, String)> {
    let out = ok(swarm(project, server).args([
        "launch",
        &n.to_string(),
        "--agent",
        "demo",
        "--session",
        session,
        "--no-attach",
        "--json",
    ]));
    let agents: Vec<(String, String)> = stdout_json(&out)["agents"]
        .as_array()
        .expect("agents")
        .iter()
        .map(|a| {
            (
                a["id"].as_str().expect("id").to_owned(),
                a["pane"].as_str().expect("pane").to_owned(),
            )
        })
        .collect();
    for (id, pane) in &agents {
        server.wait_for_screen(pane, &format!("{id}: swarm demo agent"));
    }
    agents
}

/// `swarm launch N` of panes that run no agent (`sleep 600`; they are
/// registered all the same) in session `session`.
pub fn launch_idle(project: &Project, server: &TmuxServer, n: usize, session: &str) {
    ok(swarm(project, server).args([
        "launch",
        &n.to_string(),
        "--cmd",
        "sleep 600",
        "--session",
        session,
        "--no-attach",
    ]));
}

/// The answers a demo agent recorded into `record`, in order.
pub fn answers(record: &Path) -> Vec<String> {
    records(record)
        .into_iter()
        .filter_map(|r| r.get("answer").and_then(|a| a.as_str()).map(str::to_owned))
        .collect()
}

/// Runs `swarm hook AGENT` in the project with `input` on stdin, as if
/// in `pane` (none: outside tmux).
pub fn run_hook(
    project: &Project,
    server: &TmuxServer,
    agent: &str,
    pane: Option<&str>,
    input: &[u8],
) -> Output {
    use std::io::Write;
    use std::process::Stdio;
    let mut cmd = swarm_process(project, Some(server));
    cmd.args(["hook", agent])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(pane) = pane {
        cmd.env("TMUX_PANE", pane);
    }
    let mut child = cmd.spawn().expect("swarm hook");
    if let Some(mut stdin) = child.stdin.take() {
        let _ = stdin.write_all(input);
    }
    child.wait_with_output().expect("swarm hook ends")
}

/// Runs `cmd`, failing the test unless it succeeds; its output.
pub fn ok(cmd: &mut assert_cmd::Command) -> Output {
    let out = cmd.output().expect("run swarm");
    assert!(
        out.status.success(),
        "{:?} failed: {}{}",
        cmd,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// `ok`, and its stdout as text.
pub fn ok_stdout(cmd: &mut assert_cmd::Command) -> String {
    stdout(&ok(cmd))
}

/// Runs `cmd`, failing the test unless it exits with `code`; its stderr.
pub fn fails_with(cmd: &mut assert_cmd::Command, code: i32) -> String {
    let out = cmd.output().expect("run swarm");
    let stderr = stderr(&out);
    assert_eq!(out.status.code(), Some(code), "{cmd:?}: {stderr}");
    stderr
}

/// Runs `cmd`: its exit code, stdout and stderr.
pub fn outcome(cmd: &mut assert_cmd::Command) -> (Option<i32>, String, String) {
    let out = cmd.output().expect("run swarm");
    (out.status.code(), stdout(&out), stderr(&out))
}

/// A finished command's stdout, as text.
pub fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A finished command's stderr, as text.
pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A scratch project: a temp directory with a `.git` marker.
pub struct Project {
    dir: tempfile::TempDir,
}

impl Project {
    pub fn new() -> Project {
        let dir = tempfile::Builder::new()
            .prefix("swarm-test-")
            .tempdir()
            .expect("tempdir");
        fs::create_dir(dir.path().join(".git")).expect("mkdir .git");
        Project { dir }
    }

    /// The project root (symlinks resolved, as swarm sees it).
    pub fn path(&self) -> PathBuf {
        self.dir.path().canonicalize().expect("canonical")
    }

    pub fn file(&self, rel: &str) -> PathBuf {
        self.path().join(rel)
    }

    pub fn read(&self, rel: &str) -> String {
        fs::read_to_string(self.file(rel)).unwrap_or_else(|e| panic!("read {rel}: {e}"))
    }

    pub fn write(&self, rel: &str, text: &str) {
        fs::write(self.file(rel), text).expect("write");
    }

    /// The registry, parsed.
    pub fn registry(&self) -> serde_json::Value {
        serde_json::from_str(&self.read("ACTIVE_AGENTS.json")).expect("registry is JSON")
    }

    /// `(id, tmux_pane_id, status)` of every registry entry, in order.
    pub fn agents(&self) -> Vec<(String, String, String)> {
        let reg = self.registry();
        reg["agents"]
            .as_array()
            .expect("agents array")
            .iter()
            .map(|a| {
                let s = |k: &str| a[k].as_str().unwrap_or_default().to_owned();
                (s("id"), s("tmux_pane_id"), s("status"))
            })
            .collect()
    }

    /// Adds agents to the registry (creating it) as if discovery had
    /// found them in panes of a session `test` that tmux does not have:
    /// for commands that only check that an `--agent`/`--from` is a
    /// registered agent. Ids already registered are left as they are.
    pub fn register(&self, ids: &[&str]) {
        self.register_in(ids, None);
    }

    /// Like `register`, but stale, in a live pane that runs no agent (such
    /// as the harness's own `%0`), seen now: discovery keeps them for
    /// `discovery.stale_threshold` seconds, and a broadcast skips them.
    pub fn register_in(&self, ids: &[&str], pane: Option<&str>) {
        register_agents(&self.path(), ids, pane);
    }

    /// Writes the per-user config file the `swarm` commands of this
    /// project read (`$XDG_CONFIG_HOME/swarm/config.toml`); returns its
    /// path.
    pub fn user_config(&self, text: &str) -> PathBuf {
        let dir = self.file(".user-config/swarm");
        fs::create_dir_all(&dir).expect("mkdir");
        let path = dir.join("config.toml");
        fs::write(&path, text).expect("write");
        path
    }

    /// Names of the files in a directory of the project, sorted.
    pub fn ls(&self, rel: &str) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(self.file(rel))
            .expect("read_dir")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }
}

/// `Project::register_in` for any project root.
pub fn register_agents(root: &Path, ids: &[&str], pane: Option<&str>) {
    let path = root.join("ACTIVE_AGENTS.json");
    let mut reg: serde_json::Value = fs::read_to_string(&path)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_else(|| {
            serde_json::json!({
                "session_name": "test",
                "updated_at": "2026-01-01T00:00:00+00:00",
                "agents": []
            })
        });
    let agents = reg["agents"].as_array_mut().expect("agents array");
    for id in ids {
        if agents.iter().any(|a| a["id"] == *id) {
            continue;
        }
        let n = agents.len();
        let seen = match pane {
            Some(_) => chrono::Utc::now()
                .format("%Y-%m-%dT%H:%M:%S%.6f+00:00")
                .to_string(),
            None => "2026-01-01T00:00:00+00:00".to_owned(),
        };
        agents.push(serde_json::json!({
            "id": id, "pane_index": format!("test:0.{n}"), "pid": 0,
            "status": if pane.is_some() { "stale" } else { "active" },
            "last_seen": seen,
            "session_name": "test", "tmux_pane_id": pane
        }));
    }
    fs::write(&path, serde_json::to_string_pretty(&reg).expect("json")).expect("write");
}

/// `swarm` in `project`, talking to `server`, with a clean environment.
pub fn swarm(project: &Project, server: &TmuxServer) -> assert_cmd::Command {
    let mut cmd = swarm_outside_tmux(project);
    cmd.env("SWARM_TMUX_SOCKET", &server.socket);
    cmd
}

/// `swarm` in `project` with no tmux server configured at all.
pub fn swarm_outside_tmux(project: &Project) -> assert_cmd::Command {
    let mut cmd = assert_cmd::Command::from_std(swarm_process(project, None));
    cmd.timeout(PATIENCE);
    cmd
}

/// `swarm` in `project` as a plain process, for one the test starts and
/// stops itself (a `watch`, a process killed mid-write): a clean
/// environment, talking to `server` (to none when `None`). The per-user
/// config file is looked for in the project's `.user-config/` (see
/// `Project::user_config`), never in the tester's own, and the tester's
/// notification settings are not passed on.
pub fn swarm_process(project: &Project, server: Option<&TmuxServer>) -> Command {
    let mut cmd = Command::new(swarm_bin());
    cmd.current_dir(project.path())
        .env_remove("TMUX")
        .env_remove("TMUX_PANE")
        .env_remove("CLAUDESWARM_ROOT")
        .env_remove("SWARM_TMUX_SOCKET")
        .env_remove("SWARM_NOTIFY_WEBHOOK")
        .env_remove("SWARM_NOTIFY_COMMAND")
        .env_remove("SWARM_NOTIFY_DESKTOP")
        .env("XDG_CONFIG_HOME", project.path().join(".user-config"))
        // Tests that exercise the background watcher turn it on
        // themselves; elsewhere it would type held messages in behind
        // the test's back.
        .env("SWARM_WATCHER_AUTOSTART", "false")
        .env("NO_COLOR", "1");
    if let Some(server) = server {
        cmd.env("SWARM_TMUX_SOCKET", &server.socket);
    }
    cmd
}

/// True when `text`, as typed into a pane, ends with its header's type and
/// the short id of its message, then `body`: `...[TYPE][#1a2b3c4d]: body`.
pub fn typed_as(text: &str, ty: &str, body: &str) -> bool {
    let Some(head) = text.strip_suffix(&format!("]: {body}")) else {
        return false;
    };
    let Some((before, id)) = head.rsplit_once("[#") else {
        return false;
    };
    id.chars().count() == 8 && before.ends_with(&format!("[{ty}]"))
}

/// Parses a command's stdout as JSON.
pub fn stdout_json(output: &Output) -> serde_json::Value {
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is not JSON ({e}): {}",
            String::from_utf8_lossy(&output.stdout)
        )
    })
}

/// The JSON lines of a demo agent's record file (empty if not created).
pub fn records(path: &Path) -> Vec<serde_json::Value> {
    fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).expect("record line is JSON"))
        .collect()
}

/// Waits until the record file holds `n` submissions and returns them.
pub fn wait_for_records(path: &Path, n: usize) -> Vec<serde_json::Value> {
    wait_for(&format!("{n} submissions in {}", path.display()), || {
        let r = records(path);
        (r.len() >= n).then_some(r)
    })
}

/// `text` as a regular expression that matches only itself.
fn regex_escape(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        if ".+*?()|[]{}^$\\".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// Runs snapshot assertions with times, pids and temp paths replaced by
/// placeholders, so snapshots hold exactly what users see minus what
/// changes per run.
pub fn redacted(f: impl FnOnce()) {
    let mut settings = insta::Settings::clone_current();
    settings.add_filter(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?\+00:00", "[time]");
    settings.add_filter(r#""pid": \d+"#, r#""pid": [pid]"#);
    settings.add_filter(r"PID: \d+", "PID: [pid]");
    // Projects live in the system's temp directory: /tmp on Linux, a
    // per-user directory under /var/folders (/private/var/... once
    // resolved) on macOS.
    let tmp = std::env::temp_dir();
    let resolved = tmp.canonicalize().unwrap_or_else(|_| tmp.clone());
    for dir in [resolved, tmp] {
        let dir = dir.to_string_lossy().trim_end_matches('/').to_owned();
        settings.add_filter(
            &format!("{}/swarm-test-[A-Za-z0-9_]+", regex_escape(&dir)),
            "[project]",
        );
    }
    settings.add_filter(r"swarm-test-\d+-\d+-[0-9a-f]+", "[socket]");
    settings.set_prepend_module_to_snapshot(false);
    settings.bind(f);
}

/// The command names `swarm --help` lists under its families: the first
/// word of a described line (`  msg        Send a message ...`), every name
/// of a line of names (`  ack, acks, thread`).
pub fn listed_commands(help: &str) -> Vec<String> {
    help.lines()
        .filter(|l| l.starts_with("  ") && !l.starts_with("   "))
        .map(str::trim)
        .filter(|l| l.starts_with(|c: char| c.is_ascii_lowercase()))
        .flat_map(|l| match l.split_once("  ") {
            Some((name, _)) => vec![name.to_owned()],
            None => l.split(", ").map(str::to_owned).collect(),
        })
        .collect()
}

/// The bytes of each copy swarm set aside of the damaged state file at
/// `path` (its `<name>.corrupt-<time>` siblings that read as files; a
/// directory or FIFO set aside has no bytes to compare).
pub fn corrupt_copies(path: &Path) -> Vec<Vec<u8>> {
    let name = path
        .file_name()
        .expect("name")
        .to_string_lossy()
        .into_owned();
    let prefix = format!("{name}.corrupt-");
    fs::read_dir(path.parent().expect("parent"))
        .expect("ls")
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with(&prefix))
        .filter_map(|e| fs::read(e.path()).ok())
        .collect()
}

/// A delivery record's outcomes for four recipients, one of each way in:
/// agent-1 accepted through a socket, agent-2 delivered through an app
/// server (confirmed by it), agent-3 delivered with no `via` (an older
/// record, confirmed by the hook), agent-4 typed (confirmed by the screen).
pub fn four_ways_in() -> serde_json::Value {
    serde_json::json!({
        "agent-1": {"status": "accepted", "via": "socket", "turn_end": true},
        "agent-2": {"status": "delivered", "confirmed": true,
                    "confirmed_by": "app-server", "via": "app-server"},
        "agent-3": {"status": "delivered", "confirmed": true, "confirmed_by": "hook"},
        "agent-4": {"status": "delivered", "confirmed": true, "confirmed_by": "screen",
                    "via": "typed"},
    })
}
