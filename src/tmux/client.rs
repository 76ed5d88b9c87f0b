//! `Tmux`: runs tmux commands against one server, with a timeout, and turns
//! their answers into typed values.

use std::ffi::{OsStr, OsString};
use std::io::{self, Read, Write};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc;
use std::sync::{Mutex, OnceLock, PoisonError};
use std::thread;
use std::time::Duration;

use super::error::TmuxError;
use super::pane::{LIST_PANES_FORMAT, Pane, PaneId, parse_list_panes};
use super::server::Server;
use super::version::Version;

/// How long one tmux call may take before we give up on the server.
pub(super) const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);

/// A client for one tmux server. Cheap to build: nothing runs until a
/// method is called, and `tmux -V` runs at most once per process.
#[derive(Debug)]
pub struct Tmux {
    server: Server,
    program: OsString,
    /// `program` found on `PATH` once, so that each call runs it directly
    /// instead of trying every `PATH` entry again.
    resolved: OnceLock<OsString>,
    timeout: Duration,
    version: OnceLock<Version>,
    /// A client started ahead by `warm_up`, waiting for a script.
    warm: Mutex<Option<Spawned>>,
}

/// How much of a screen a capture keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ScreenDetail {
    /// The text only.
    Text,
    /// The text with its SGR attribute sequences (`capture-pane -e`), for
    /// agents whose screen markers look at colours or reverse video. About
    /// twice tmux's work of `Text` for a large pane.
    Attributes,
}

impl Drop for Tmux {
    fn drop(&mut self) {
        self.cool_down();
    }
}

/// What to label one pane with: its agent id, and which project gave it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PaneLabel {
    /// The pane.
    pub pane: PaneId,
    /// The agent id (`agent-3`); also becomes the pane title.
    pub agent: String,
    /// A short fingerprint of the project root (see `store::Paths`).
    pub project: String,
}

/// What `server_info` found: where the server listens and its sessions.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ServerInfo {
    /// The socket path as the server reports it (empty with no sessions).
    pub socket_path: String,
    /// Session names, in tmux's order.
    pub sessions: Vec<String>,
}

/// A new session for `new_session`.
#[derive(Clone, Debug)]
pub struct SessionSpec<'a> {
    /// Session name (tmux replaces `:` and `.`; callers pass clean names).
    pub name: &'a str,
    /// Working directory of the first pane.
    pub cwd: &'a Path,
    /// Width and height of the detached session.
    pub size: (u16, u16),
    /// The command of the first pane, run by tmux through `sh -c`.
    pub command: &'a str,
}

/// Arguments of one tmux invocation. Free text goes through `text`, which
/// protects a trailing `;` (tmux would take it as a command separator);
/// `then` starts the next command of a sequence.
struct Args {
    argv: Vec<OsString>,
    command: &'static str,
}

impl Args {
    fn new(command: &'static str) -> Args {
        Args {
            argv: vec![command.into()],
            command,
        }
    }

    fn flag(mut self, flag: &str) -> Args {
        self.argv.push(flag.into());
        self
    }

    fn text(mut self, text: impl AsRef<OsStr>) -> Args {
        self.argv.push(escape_trailing_semicolon(text.as_ref()));
        self
    }

    fn then(mut self, command: &'static str) -> Args {
        self.argv.push(";".into());
        self.argv.push(command.into());
        self
    }
}

/// tmux treats an argument ending in `;` as "end of command" and one ending
/// in `\;` as a literal `;`, so a literal trailing `;` gets a backslash.
fn escape_trailing_semicolon(text: &OsStr) -> OsString {
    let bytes = text.as_bytes();
    match bytes.split_last() {
        Some((b';', head)) => {
            let mut out = head.to_vec();
            out.extend_from_slice(b"\\;");
            OsString::from_vec(out)
        }
        _ => text.to_owned(),
    }
}

impl Tmux {
    /// A client for `server`, using `tmux` from `PATH`.
    pub fn new(server: Server) -> Tmux {
        Tmux {
            server,
            program: "tmux".into(),
            resolved: OnceLock::new(),
            timeout: DEFAULT_TIMEOUT,
            version: OnceLock::new(),
            warm: Mutex::new(None),
        }
    }

    /// The same client with another per-call timeout.
    pub fn with_timeout(mut self, timeout: Duration) -> Tmux {
        self.timeout = timeout;
        self
    }

    /// The server this client talks to.
    pub fn server(&self) -> &Server {
        &self.server
    }

    /// The server's tmux version (`tmux -V`), asked once per process.
    pub fn version(&self) -> Result<&Version, TmuxError> {
        if let Some(v) = self.version.get() {
            return Ok(v);
        }
        let out = self.exec_raw(vec!["-V".into()], "-V", None, false)?;
        let version = Version::parse(&out).ok_or_else(|| TmuxError::BadOutput {
            command: "-V".into(),
            detail: format!("expected `tmux X.Y`, got {:?}", out.trim()),
        })?;
        Ok(self.version.get_or_init(|| version))
    }

    /// Every pane of the server (`list-panes -a`), in tmux's order, plus a
    /// note for each output line that could not be parsed.
    pub fn list_panes(&self) -> Result<(Vec<Pane>, Vec<String>), TmuxError> {
        let out = self.exec(
            Args::new("list-panes")
                .flag("-a")
                .flag("-F")
                .text(LIST_PANES_FORMAT),
            None,
        );
        match out {
            Ok(out) => Ok(parse_list_panes(&out)),
            // A server whose last session just closed answers this while
            // it exits: it has no panes.
            Err(TmuxError::Failed { stderr, .. }) if no_sessions(&stderr) => {
                Ok((Vec::new(), Vec::new()))
            }
            Err(e) => Err(e),
        }
    }

    /// The `@swarm_agent` and `@swarm_project` labels of one pane.
    pub fn pane_labels(
        &self,
        pane: &PaneId,
    ) -> Result<(Option<String>, Option<String>), TmuxError> {
        let out = self.exec(
            Args::new("display-message")
                .flag("-p")
                .flag("-t")
                .text(pane.as_str())
                .text("#{@swarm_agent}\x1f#{@swarm_project}"),
            None,
        )?;
        let line = out.strip_suffix('\n').unwrap_or(&out);
        let (agent, project) = line.split_once('\x1f').unwrap_or((line, ""));
        let some = |s: &str| Some(s.to_owned()).filter(|s| !s.is_empty());
        Ok((some(agent), some(project)))
    }

    /// The pid of a pane's root process and the name of the program in its
    /// foreground (`#{pane_current_command}`, which tmux finds on every
    /// platform it runs on).
    pub(crate) fn pane_command(&self, pane: &PaneId) -> Result<(u32, String), TmuxError> {
        const COMMAND: &str = "display-message";
        let out = self.exec(
            Args::new(COMMAND)
                .flag("-p")
                .flag("-t")
                .text(pane.as_str())
                .text("#{pane_pid}\x1f#{pane_current_command}"),
            None,
        )?;
        let line = out.strip_suffix('\n').unwrap_or(&out);
        let (pid, command) = line.split_once('\x1f').unwrap_or((line, ""));
        let pid = pid.parse().map_err(|_| TmuxError::BadOutput {
            command: COMMAND.into(),
            detail: format!("no pane pid in {line:?}"),
        })?;
        Ok((pid, command.to_owned()))
    }

    /// Writes agent ids into panes (`@swarm_agent`, `@swarm_project` and the
    /// pane title), all in one tmux call.
    pub fn label_panes(&self, labels: &[PaneLabel]) -> Result<(), TmuxError> {
        let Some((first, rest)) = labels.split_first() else {
            return Ok(());
        };
        let mut args = Self::label_args(Args::new("set-option"), first);
        for label in rest {
            args = Self::label_args(args.then("set-option"), label);
        }
        self.exec(args, None).map(drop)
    }

    fn label_args(args: Args, label: &PaneLabel) -> Args {
        let pane = label.pane.as_str();
        args.flag("-p")
            .flag("-t")
            .text(pane)
            .flag("--")
            .text("@swarm_agent")
            .text(&label.agent)
            .then("set-option")
            .flag("-p")
            .flag("-t")
            .text(pane)
            .flag("--")
            .text("@swarm_project")
            .text(&label.project)
            .then("select-pane")
            .flag("-t")
            .text(pane)
            .flag("-T")
            .text(&label.agent)
    }

    /// True when a session with exactly this name exists.
    pub fn has_session(&self, name: &str) -> Result<bool, TmuxError> {
        match self.exec(
            Args::new("has-session").flag("-t").text(format!("={name}")),
            None,
        ) {
            Ok(_) => Ok(true),
            Err(TmuxError::TargetNotFound { .. }) => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// The server's socket and its sessions (`list-sessions`); fails with
    /// `NoServer` when nothing listens on the socket.
    pub fn server_info(&self) -> Result<ServerInfo, TmuxError> {
        let out = self.exec(
            Args::new("list-sessions")
                .flag("-F")
                .text("#{socket_path}\x1f#{session_name}"),
            None,
        )?;
        let mut info = ServerInfo::default();
        for line in out.lines().filter(|l| !l.is_empty()) {
            // The session name, the free-text field, comes last.
            let (socket, session) = line.split_once('\x1f').unwrap_or(("", line));
            if info.socket_path.is_empty() {
                info.socket_path = socket.to_owned();
            }
            info.sessions.push(session.to_owned());
        }
        Ok(info)
    }

    /// Creates a detached session and returns the id of its first pane.
    /// Starts the server when none is running.
    pub fn new_session(&self, spec: &SessionSpec<'_>) -> Result<PaneId, TmuxError> {
        let out = self.exec(
            Args::new("new-session")
                .flag("-d")
                .flag("-P")
                .flag("-F")
                .text("#{pane_id}")
                .flag("-s")
                .text(spec.name)
                .flag("-c")
                .text(spec.cwd)
                .flag("-x")
                .text(spec.size.0.to_string())
                .flag("-y")
                .text(spec.size.1.to_string())
                .flag("--")
                .text(spec.command),
            None,
        )?;
        parse_pane_id("new-session", &out)
    }

    /// Splits `target` and returns the new pane's id; the new pane runs
    /// `command` through `sh -c` in `cwd`. Focus stays where it was.
    pub fn split_window(
        &self,
        target: &str,
        cwd: &Path,
        command: &str,
    ) -> Result<PaneId, TmuxError> {
        let out = self.exec(
            Args::new("split-window")
                .flag("-d")
                .flag("-P")
                .flag("-F")
                .text("#{pane_id}")
                .flag("-t")
                .text(target)
                .flag("-c")
                .text(cwd)
                .flag("--")
                .text(command),
            None,
        )?;
        parse_pane_id("split-window", &out)
    }

    /// Adds a pane on the right of `target`'s window, spanning its full
    /// height and taking `percent` of its width, titled `title`; the new
    /// pane runs `command` through `sh -c` in `cwd`. Focus stays where it
    /// was. One tmux call.
    pub fn split_full_height(
        &self,
        target: &str,
        cwd: &Path,
        command: &str,
        percent: u8,
        title: &str,
    ) -> Result<PaneId, TmuxError> {
        // `-l N%` arrived in tmux 3.1; older servers know `-p N`.
        let size = if self.version()?.at_least(3, 1) {
            ("-l", format!("{percent}%"))
        } else {
            ("-p", percent.to_string())
        };
        let out = self.exec(
            Args::new("split-window")
                .flag("-d")
                .flag("-h")
                .flag("-f")
                .flag(size.0)
                .text(size.1)
                .flag("-P")
                .flag("-F")
                .text("#{pane_id}")
                .flag("-t")
                .text(target)
                .flag("-c")
                .text(cwd)
                .flag("--")
                .text(command),
            None,
        )?;
        let pane = parse_pane_id("split-window", &out)?;
        self.exec(
            Args::new("select-pane")
                .flag("-t")
                .text(pane.as_str())
                .flag("-T")
                .text(title),
            None,
        )?;
        Ok(pane)
    }

    /// Applies a layout (`tiled`, `even-horizontal`, ...) to a window.
    pub fn select_layout(&self, target: &str, layout: &str) -> Result<(), TmuxError> {
        self.exec(
            Args::new("select-layout")
                .flag("-t")
                .text(target)
                .flag("--")
                .text(layout),
            None,
        )
        .map(drop)
    }

    /// Sets window options on `target` (one call for all of them).
    pub fn set_window_options(
        &self,
        target: &str,
        options: &[(&str, &str)],
    ) -> Result<(), TmuxError> {
        let Some(((k0, v0), rest)) = options.split_first() else {
            return Ok(());
        };
        let set = |args: Args, k: &str, v: &str| {
            args.flag("-w")
                .flag("-t")
                .text(target)
                .flag("--")
                .text(k)
                .text(v)
        };
        let mut args = set(Args::new("set-option"), k0, v0);
        for (k, v) in rest {
            args = set(args.then("set-option"), k, v);
        }
        self.exec(args, None).map(drop)
    }

    /// Kills a session by exact name.
    pub fn kill_session(&self, name: &str) -> Result<(), TmuxError> {
        self.exec(
            Args::new("kill-session")
                .flag("-t")
                .text(format!("={name}")),
            None,
        )
        .map(drop)
    }

    /// Pastes `text` into a pane exactly as given: it travels on tmux's
    /// stdin into a uniquely named buffer (never as an argument, so no byte
    /// of it is interpreted), then `paste-buffer -p -r` pastes it as one
    /// bracketed paste when the application asked for bracketed paste, keeps
    /// LF as LF, and the buffer is deleted. One tmux call.
    pub fn paste_text(&self, target: &PaneId, text: &[u8]) -> Result<(), TmuxError> {
        self.paste_text_many(std::slice::from_ref(target), text)
    }

    /// Pastes the same `text` into several panes in one tmux call: one
    /// `load-buffer` from stdin, one bracketed `paste-buffer` per pane, then
    /// the buffer is deleted. tmux runs the commands in order and stops at
    /// the first that fails (a pane that went away): the error says so.
    pub fn paste_text_many(&self, targets: &[PaneId], text: &[u8]) -> Result<(), TmuxError> {
        if targets.is_empty() {
            return Ok(());
        }
        let buffer = unique_buffer_name();
        let result = self.exec(paste_sequence(&buffer, targets), Some(text));
        if result.is_err() {
            let _ = self.exec(Args::new("delete-buffer").flag("-b").text(&buffer), None);
        }
        result.map(drop)
    }

    /// Pastes text into each of `targets` as one bracketed paste, then,
    /// `gap` later, presses `key` in each, all in one tmux call: the server
    /// writes the pastes, waits `gap` on a timer (`run-shell -d`, which lets
    /// its event loop write the pastes to the panes first), then writes the
    /// keys. So each agent reads its paste and its key as two inputs, as
    /// from two tmux calls, for the cost of one. tmux stops at the first
    /// command that fails (a pane that went away): the error says so.
    ///
    /// The call starts before the text is known: tmux starts, connects and
    /// waits for the text on its standard input, so that
    /// `PreparedPaste::send` costs only what tmux does with it. Dropped
    /// unsent, the call is killed, and tmux pastes nothing and presses
    /// nothing (its `load-buffer` never completes, and tmux runs nothing
    /// after a command that did not).
    ///
    /// A tmux older than 3.2 has no `run-shell -d`; it refuses the whole
    /// sequence before running any of it, and then `send` pastes and
    /// presses the key as two calls with the gap between them.
    pub(crate) fn prepare_paste_and_press(
        &self,
        targets: &[PaneId],
        gap: Duration,
        key: &str,
    ) -> PreparedPaste<'_> {
        let buffer = unique_buffer_name();
        let call = (!NO_DELAY_FLAG.load(Ordering::Relaxed))
            .then(|| {
                let pastes = paste_sequence(&buffer, targets)
                    .then("run-shell")
                    .flag("-d")
                    .text(format!("{:.3}", gap.as_secs_f64()));
                key_sequence(Some(pastes), targets, key).map(|args| self.start_with_input(args))
            })
            .flatten();
        PreparedPaste {
            tmux: self,
            call,
            buffer,
            targets: targets.to_vec(),
            gap,
            key: key.to_owned(),
        }
    }

    /// Sends one key name to several panes in one tmux call.
    pub fn send_key_many(&self, targets: &[PaneId], key: &str) -> Result<(), TmuxError> {
        match key_sequence(None, targets, key) {
            Some(args) => self.exec(args, None).map(drop),
            None => Ok(()),
        }
    }

    /// Sends key names (`Enter`, `C-c`) to a pane; never used for text.
    pub fn send_keys(&self, target: &PaneId, keys: &[&str]) -> Result<(), TmuxError> {
        let mut args = Args::new("send-keys")
            .flag("-t")
            .text(target.as_str())
            .flag("--");
        for key in keys {
            args = args.text(key);
        }
        self.exec(args, None).map(drop)
    }

    /// The visible text of a pane, wrapped lines joined (`capture-pane -pJ`).
    pub fn capture_pane(&self, target: &PaneId) -> Result<String, TmuxError> {
        self.exec(
            Args::new("capture-pane")
                .flag("-p")
                .flag("-J")
                .flag("-t")
                .text(target.as_str()),
            None,
        )
    }

    /// The visible rows of a pane as the screen shows them (no joining of
    /// wrapped lines), so that row numbers match `#{cursor_y}`.
    pub fn capture_rows(&self, target: &PaneId) -> Result<String, TmuxError> {
        self.exec(
            Args::new("capture-pane")
                .flag("-p")
                .flag("-t")
                .text(target.as_str()),
            None,
        )
    }

    /// The visible screen of a pane (`capture-pane -p -J`, with `-e` for
    /// `ScreenDetail::Attributes`): wrapped lines joined, for reading an
    /// agent's state.
    pub(crate) fn capture_screen(
        &self,
        target: &PaneId,
        detail: ScreenDetail,
    ) -> Result<String, TmuxError> {
        let args = Args::new("capture-pane").flag("-p").flag("-J");
        let args = match detail {
            ScreenDetail::Text => args,
            ScreenDetail::Attributes => args.flag("-e"),
        };
        self.exec(args.flag("-t").text(target.as_str()), None)
    }

    /// The screens of several panes (as `capture_screen`), in one tmux
    /// call; `None` for a pane that could not be captured (gone).
    pub(crate) fn capture_screens(
        &self,
        targets: &[(PaneId, ScreenDetail)],
    ) -> Vec<Option<String>> {
        self.start_capture_screens(targets).finish()
    }

    /// Starts a tmux client now that waits for commands on its standard
    /// input (`source-file -`), for the next `start_capture_screens`: the
    /// client's start-up and connection, most of the cost of a small tmux
    /// call, then happen while the caller does other work (takes locks,
    /// checks processes), and the capture costs only the server's work.
    /// A client never used is stopped when this `Tmux` is dropped.
    pub(crate) fn warm_up(&self) {
        if SCRIPT_REFUSED.load(Ordering::Relaxed) {
            return;
        }
        let mut warm = self.warm.lock().unwrap_or_else(PoisonError::into_inner);
        if warm.is_none() {
            *warm = Some(self.spawn_ahead(self.script_argv(), true));
        }
    }

    /// Stops a client that `warm_up` started and no capture used (it has
    /// run nothing, so it is simply ended), so that a long-running command
    /// does not keep an idle client connected to the server.
    pub(crate) fn cool_down(&self) {
        let warm = self
            .warm
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        if let Some(Ok(mut child)) = warm.map(Spawned::child) {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// `tmux source-file -`: a client that runs the commands it is given
    /// on its standard input.
    fn script_argv(&self) -> Vec<OsString> {
        let mut argv = self.server.args();
        argv.extend(["source-file".into(), "-".into()]);
        argv
    }

    /// Starts `capture_screens` and returns at once: the caller does other
    /// work while tmux answers, then calls `finish`. The captures run as a
    /// script of one line per pane, `capture-pane ...; display-message
    /// TOKEN:i`, in a client started by `warm_up` when there is one: tmux
    /// runs every line even when one fails (a pane that is gone), and stops
    /// within a line at its first failure, so the numbered token after a
    /// screen says whose it is and that it is whole. The token is random, so
    /// no screen content can fake it.
    pub(crate) fn start_capture_screens(
        &self,
        targets: &[(PaneId, ScreenDetail)],
    ) -> PendingScreens<'_> {
        let token = format!("swarm-screen-end-{}", uuid::Uuid::new_v4().simple());
        let call = if targets.is_empty() || SCRIPT_REFUSED.load(Ordering::Relaxed) {
            None
        } else {
            let mut script = String::new();
            for (i, (pane, detail)) in targets.iter().enumerate() {
                let attributes = match detail {
                    ScreenDetail::Text => "",
                    ScreenDetail::Attributes => " -e",
                };
                // Pane ids are `%` and digits and the token is `[a-z0-9-]`:
                // nothing here needs quoting beyond the pane id's `%`.
                script.push_str(&format!(
                    "capture-pane -p -J{attributes} -t '{pane}' ; display-message -p '{token}:{i}'\n"
                ));
            }
            let warm = self
                .warm
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .take();
            let child = match warm {
                Some(started) => started.child(),
                None => self.spawn(&self.script_argv(), true),
            };
            Some(Pending {
                tmux: self,
                command: "capture-pane",
                child: Some(Spawned::Ready(child.and_then(|mut child| {
                    give_input(&mut child, script.into_bytes())?;
                    Ok(child)
                }))),
            })
        };
        PendingScreens {
            call,
            tmux: self,
            targets: targets.to_vec(),
            token,
        }
    }

    /// Tells the person at a pane something in the status line of the
    /// clients showing it (`display-message`, for `seconds`), and sets the
    /// pane option `@swarm_held` to `held` (a count, for status formats;
    /// empty unsets it). One tmux call. `text` must already be sanitised;
    /// `#` is doubled so tmux shows it instead of expanding a format.
    pub fn notify_pane(&self, target: &PaneId, text: &str, held: usize) -> Result<(), TmuxError> {
        let shown = text.replace('#', "##");
        let args = Args::new("set-option")
            .flag("-p")
            .flag("-t")
            .text(target.as_str());
        let args = if held == 0 {
            args.flag("-u").text("@swarm_held")
        } else {
            args.text("@swarm_held").text(held.to_string())
        };
        let args = if shown.is_empty() {
            args
        } else {
            args.then("display-message")
                .flag("-d")
                .text("8000")
                .flag("-t")
                .text(target.as_str())
                .flag("--")
                .text(&shown)
        };
        self.exec(args, None).map(drop)
    }

    /// Expands a format for a target (`display-message -p`).
    pub fn display(&self, target: &str, format: &str) -> Result<String, TmuxError> {
        let out = self.exec(
            Args::new("display-message")
                .flag("-p")
                .flag("-t")
                .text(target)
                .text(format),
            None,
        )?;
        Ok(out.strip_suffix('\n').unwrap_or(&out).to_owned())
    }

    /// Puts the user's terminal on a session: `switch-client` when we run
    /// inside a client of the same server, `attach-session` otherwise.
    /// Interactive: tmux inherits our terminal and this returns when the
    /// user detaches.
    pub fn attach(&self, session: &str) -> Result<(), TmuxError> {
        let inside = matches!(self.server, Server::Inherited(_));
        let command = if inside {
            "switch-client"
        } else {
            "attach-session"
        };
        let target = escape_trailing_semicolon(OsStr::new(&format!("={session}")));
        let status = Command::new(&self.program)
            .args(self.server.args())
            .arg(command)
            .arg("-t")
            .arg(target)
            .status()
            .map_err(|e| match e.kind() {
                io::ErrorKind::NotFound => TmuxError::NotInstalled,
                _ => TmuxError::Io(e),
            })?;
        if status.success() {
            Ok(())
        } else {
            Err(TmuxError::Failed {
                command: command.to_owned(),
                status: status.code().unwrap_or(-1),
                stderr: String::new(),
            })
        }
    }

    fn exec(&self, args: Args, stdin: Option<&[u8]>) -> Result<String, TmuxError> {
        let mut argv = self.server.args();
        argv.extend(args.argv);
        self.exec_raw(argv, args.command, stdin, true)
    }

    /// Starts a call that reads its standard input, given to `finish_with`.
    /// The process is started on a thread of its own, so the caller goes
    /// on at once.
    fn start_with_input(&self, args: Args) -> Pending<'_> {
        let mut argv = self.server.args();
        argv.extend(args.argv);
        Pending {
            tmux: self,
            command: args.command,
            child: Some(self.spawn_ahead(argv, true)),
        }
    }

    /// Starts a tmux client on a thread of its own: starting a process
    /// holds up the thread that starts it until the program is loaded,
    /// which the caller need not wait for.
    fn spawn_ahead(&self, argv: Vec<OsString>, with_stdin: bool) -> Spawned {
        let program = self.resolved.get_or_init(|| on_path(&self.program)).clone();
        let args = argv.clone();
        let started = thread::Builder::new()
            .name("tmux-client".into())
            .spawn(move || spawn_piped(Command::new(program).args(args), with_stdin));
        match started {
            Ok(handle) => Spawned::Starting(handle),
            Err(_) => Spawned::Ready(self.spawn(&argv, with_stdin)),
        }
    }

    fn spawn(&self, argv: &[OsString], with_stdin: bool) -> io::Result<Child> {
        let mut cmd = Command::new(self.resolved.get_or_init(|| on_path(&self.program)));
        cmd.args(argv);
        spawn_piped(&mut cmd, with_stdin)
    }

    fn exec_raw(
        &self,
        argv: Vec<OsString>,
        command: &str,
        stdin: Option<&[u8]>,
        classify: bool,
    ) -> Result<String, TmuxError> {
        let child = self.spawn(&argv, stdin.is_some()).map_err(spawn_error)?;
        self.collect(child, command, stdin, classify)
    }

    /// Feeds a started call its input and waits for it, whatever its exit
    /// status.
    fn wait(
        &self,
        child: Child,
        command: &str,
        stdin: Option<&[u8]>,
    ) -> Result<Finished, TmuxError> {
        match wait_with_timeout(child, stdin, self.timeout) {
            Ok(Some(output)) => Ok(output),
            Ok(None) => Err(TmuxError::Timeout {
                command: command.to_owned(),
                timeout: self.timeout,
            }),
            Err(e) => Err(spawn_error(e)),
        }
    }

    /// Feeds a started call its input and waits for its answer.
    fn collect(
        &self,
        child: Child,
        command: &str,
        stdin: Option<&[u8]>,
        classify: bool,
    ) -> Result<String, TmuxError> {
        let output = self.wait(child, command, stdin)?;
        let stderr = String::from_utf8_lossy(&output.stderr);
        if !output.status.success() {
            let status = output.status.code().unwrap_or(-1);
            return Err(if classify {
                TmuxError::classify(command, status, &stderr, self.server.to_string())
            } else {
                TmuxError::Failed {
                    command: command.to_owned(),
                    status,
                    stderr: stderr.trim().to_owned(),
                }
            });
        }
        Ok(String::from_utf8_lossy(&output.stdout).into_owned())
    }
}

/// A tmux client process: started, or being started on a thread.
#[derive(Debug)]
enum Spawned {
    Ready(io::Result<Child>),
    Starting(thread::JoinHandle<io::Result<Child>>),
}

impl Spawned {
    /// The process, once started.
    fn child(self) -> io::Result<Child> {
        match self {
            Spawned::Ready(child) => child,
            Spawned::Starting(handle) => handle
                .join()
                .unwrap_or_else(|_| Err(io::Error::other("starting tmux failed"))),
        }
    }
}

/// A tmux call that was started and not waited for yet.
struct Pending<'a> {
    tmux: &'a Tmux,
    command: &'static str,
    /// Taken by `finish`; a call dropped unfinished is killed and reaped.
    child: Option<Spawned>,
}

impl Pending<'_> {
    /// The started process, taken out of the call (once).
    fn take_child(&mut self) -> Result<Child, TmuxError> {
        match self.child.take().map(Spawned::child) {
            Some(Ok(child)) => Ok(child),
            Some(Err(e)) => Err(spawn_error(e)),
            None => Err(TmuxError::Io(io::Error::other(
                "tmux call already finished",
            ))),
        }
    }

    /// Gives the call its standard input (when started with one) and waits
    /// for its answer.
    fn finish_with(mut self, stdin: Option<&[u8]>) -> Result<String, TmuxError> {
        let child = self.take_child()?;
        self.tmux.collect(child, self.command, stdin, true)
    }

    /// Waits for the call and returns what it printed, whether or not it
    /// succeeded (a script reports the failure of one line in its exit
    /// status, and prints what the other lines printed).
    fn finish_output(mut self) -> Result<String, TmuxError> {
        let child = self.take_child()?;
        let done = self.tmux.wait(child, self.command, None)?;
        Ok(String::from_utf8_lossy(&done.stdout).into_owned())
    }
}

impl Drop for Pending<'_> {
    fn drop(&mut self) {
        if let Some(Ok(mut child)) = self.child.take().map(Spawned::child) {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// Set once tmux did not run a script given on its standard input
/// (`source-file -`): screens are then captured by a call each.
static SCRIPT_REFUSED: AtomicBool = AtomicBool::new(false);

/// Set once tmux refused `run-shell -d` (older than 3.2): pastes and keys
/// then go as two calls.
static NO_DELAY_FLAG: AtomicBool = AtomicBool::new(false);

/// A paste and a key press waiting for their text
/// (`Tmux::prepare_paste_and_press`).
pub(crate) struct PreparedPaste<'a> {
    tmux: &'a Tmux,
    /// `None` when this tmux has no `run-shell -d`.
    call: Option<Pending<'a>>,
    buffer: String,
    targets: Vec<PaneId>,
    gap: Duration,
    key: String,
}

impl PreparedPaste<'_> {
    /// Pastes `text` and presses the key.
    pub(crate) fn send(self, text: &[u8]) -> Result<(), TmuxError> {
        let PreparedPaste {
            tmux,
            call,
            buffer,
            targets,
            gap,
            key,
        } = self;
        if let Some(call) = call {
            match call.finish_with(Some(text)) {
                Ok(_) => return Ok(()),
                Err(TmuxError::Failed { stderr, .. }) if refuses_run_shell_delay(&stderr) => {
                    NO_DELAY_FLAG.store(true, Ordering::Relaxed);
                }
                Err(e) => {
                    let _ = tmux.exec(Args::new("delete-buffer").flag("-b").text(&buffer), None);
                    return Err(e);
                }
            }
        }
        tmux.paste_text_many(&targets, text)?;
        thread::sleep(gap);
        tmux.send_key_many(&targets, &key)
    }
}

/// Screens being captured (`Tmux::start_capture_screens`).
pub(crate) struct PendingScreens<'a> {
    tmux: &'a Tmux,
    call: Option<Pending<'a>>,
    targets: Vec<(PaneId, ScreenDetail)>,
    token: String,
}

impl PendingScreens<'_> {
    /// The screens, in the order the panes were given; `None` for a pane
    /// that could not be captured.
    pub(crate) fn finish(self) -> Vec<Option<String>> {
        let mut screens: Vec<Option<String>> = vec![None; self.targets.len()];
        let answered = self.call.map(Pending::finish_output);
        if let Some(Ok(out)) = &answered {
            let mut rest = out.as_str();
            while let Some(at) = rest.find(&self.token) {
                let (screen, after) = rest.split_at(at);
                let tail = &after[self.token.len()..];
                let (label, next) = tail.split_once('\n').unwrap_or((tail, ""));
                let index = label
                    .strip_prefix(':')
                    .and_then(|n| n.parse::<usize>().ok());
                if let Some(slot) = index.and_then(|i| screens.get_mut(i)) {
                    *slot = Some(screen.to_owned());
                }
                rest = next;
            }
        }
        // Not one screen from a script (none was run, this tmux may not
        // read one from standard input, or every pane is gone): each screen
        // is taken by a call of its own. If a script ran and those calls
        // find screens, no script is used again in this process.
        if screens.iter().all(Option::is_none) {
            for (slot, (pane, detail)) in screens.iter_mut().zip(&self.targets) {
                *slot = self.tmux.capture_screen(pane, *detail).ok();
            }
            if answered.is_some() && screens.iter().any(Option::is_some) {
                SCRIPT_REFUSED.store(true, Ordering::Relaxed);
            }
        }
        screens
    }
}

/// A failure to start or talk to tmux.
fn spawn_error(e: io::Error) -> TmuxError {
    if e.kind() == io::ErrorKind::NotFound {
        TmuxError::NotInstalled
    } else {
        TmuxError::Io(e)
    }
}

/// Where `program` is on `PATH`, as the shell would find it; `program`
/// itself when it names a path already or is not found (running it then
/// gives the usual "not found" error).
fn on_path(program: &OsStr) -> OsString {
    use std::os::unix::fs::PermissionsExt;
    if program.as_bytes().contains(&b'/') {
        return program.to_owned();
    }
    let Some(path) = std::env::var_os("PATH") else {
        return program.to_owned();
    };
    std::env::split_paths(&path)
        .filter(|dir| dir.is_absolute())
        .map(|dir| dir.join(program))
        .find(|candidate| {
            std::fs::metadata(candidate)
                .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
        .map_or_else(|| program.to_owned(), std::path::PathBuf::into_os_string)
}

/// Loads standard input into `buffer`, pastes it into each of `targets` as
/// one bracketed paste with line feeds kept (`-p -r`), and deletes it.
fn paste_sequence(buffer: &str, targets: &[PaneId]) -> Args {
    let mut args = Args::new("load-buffer").flag("-b").text(buffer).flag("-");
    for t in targets {
        args = args
            .then("paste-buffer")
            .flag("-p")
            .flag("-r")
            .flag("-b")
            .text(buffer)
            .flag("-t")
            .text(t.as_str());
    }
    args.then("delete-buffer").flag("-b").text(buffer)
}

/// `key` sent to each of `targets`, after `before` when given; `None` when
/// there is nothing to run.
fn key_sequence(before: Option<Args>, targets: &[PaneId], key: &str) -> Option<Args> {
    targets.iter().fold(before, |args, t| {
        let start = match args {
            None => Args::new("send-keys"),
            Some(a) => a.then("send-keys"),
        };
        Some(start.flag("-t").text(t.as_str()).flag("--").text(key))
    })
}

/// True when tmux refused a command sequence because its `run-shell` has
/// no `-d` (before 3.2): it then printed the flag or the usage of
/// `run-shell`, and ran none of the sequence.
fn refuses_run_shell_delay(stderr: &str) -> bool {
    stderr.contains("unknown flag -d") || stderr.contains("usage: run-shell")
}

/// tmux's words for "this server has no session to look in".
fn no_sessions(stderr: &str) -> bool {
    let lower = stderr.to_lowercase();
    lower.contains("no current target") || lower.contains("no sessions")
}

fn parse_pane_id(command: &str, out: &str) -> Result<PaneId, TmuxError> {
    out.trim()
        .parse()
        .map_err(|e: crate::domain::ValidationError| TmuxError::BadOutput {
            command: command.to_owned(),
            detail: e.to_string(),
        })
}

/// `swarm-<pid>-<counter>-<random>`: unique across processes and calls, so
/// concurrent senders never paste each other's buffer.
fn unique_buffer_name() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let random = uuid::Uuid::new_v4().simple().to_string();
    format!("swarm-{}-{n}-{}", std::process::id(), &random[..12])
}

/// What a finished child printed.
struct Finished {
    status: std::process::ExitStatus,
    stdout: Vec<u8>,
    stderr: Vec<u8>,
}

/// Starts `cmd` with its output piped (and its input, `with_stdin`).
fn spawn_piped(cmd: &mut Command, with_stdin: bool) -> io::Result<Child> {
    cmd.stdin(if with_stdin {
        Stdio::piped()
    } else {
        Stdio::null()
    })
    .stdout(Stdio::piped())
    .stderr(Stdio::piped())
    .spawn()
}

/// Writes `input` to a started child's standard input and closes it, from
/// a thread of its own, so that a child slow to read never holds up the
/// caller.
fn give_input(child: &mut Child, input: Vec<u8>) -> io::Result<()> {
    let mut pipe = child
        .stdin
        .take()
        .ok_or_else(|| io::Error::other("child pipe was not set up"))?;
    thread::spawn(move || {
        // A child that exits without reading gives EPIPE: its status and
        // output say what happened.
        let _ = pipe.write_all(&input);
    });
    Ok(())
}

/// Feeds a started child `stdin` and waits for it, for at most `timeout`.
/// `Ok(None)` means it timed out and was killed. The pipes are serviced by
/// helper threads so a chatty child can never fill a pipe and stall.
fn wait_with_timeout(
    mut child: Child,
    stdin: Option<&[u8]>,
    timeout: Duration,
) -> io::Result<Option<Finished>> {
    let (tx, rx) = mpsc::channel();
    let pipes = Pipes::take(&mut child, stdin)?;
    thread::spawn(move || {
        let _ = tx.send(pipes.drain());
    });
    match rx.recv_timeout(timeout) {
        Ok((stdout, stderr)) => {
            let status = child.wait()?;
            Ok(Some(Finished {
                status,
                stdout,
                stderr,
            }))
        }
        Err(_) => {
            let _ = child.kill();
            let _ = child.wait();
            Ok(None)
        }
    }
}

struct Pipes {
    stdin: Option<(std::process::ChildStdin, Vec<u8>)>,
    stdout: std::process::ChildStdout,
    stderr: std::process::ChildStderr,
}

impl Pipes {
    fn take(child: &mut Child, input: Option<&[u8]>) -> io::Result<Pipes> {
        let missing = || io::Error::other("child pipe was not set up");
        let stdin = match input {
            Some(bytes) => Some((child.stdin.take().ok_or_else(missing)?, bytes.to_vec())),
            None => None,
        };
        Ok(Pipes {
            stdin,
            stdout: child.stdout.take().ok_or_else(missing)?,
            stderr: child.stderr.take().ok_or_else(missing)?,
        })
    }

    fn drain(self) -> (Vec<u8>, Vec<u8>) {
        let Pipes {
            stdin,
            mut stdout,
            mut stderr,
        } = self;
        let err_reader = thread::spawn(move || {
            let mut buf = Vec::new();
            let _ = stderr.read_to_end(&mut buf);
            buf
        });
        if let Some((mut pipe, bytes)) = stdin {
            // A child that exits without reading gives EPIPE: its status and
            // stderr say what happened, so the write error adds nothing.
            let _ = pipe.write_all(&bytes);
        }
        let mut out = Vec::new();
        let _ = stdout.read_to_end(&mut out);
        let err = err_reader.join().unwrap_or_default();
        (out, err)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trailing_semicolons_are_protected() {
        let esc = |s: &str| escape_trailing_semicolon(OsStr::new(s));
        assert_eq!(esc("a;"), "a\\;");
        assert_eq!(esc(";"), "\\;");
        assert_eq!(esc("a\\;"), "a\\\\;");
        assert_eq!(esc("a;b"), "a;b");
        assert_eq!(esc(""), "");
    }

    /// A private tmux server (never the user's) with one pane running
    /// `cat` into a file (after printing a `printf` format, when given),
    /// killed when dropped.
    struct CatPane {
        tmux: Tmux,
        pane: PaneId,
        out: std::path::PathBuf,
        _dir: tempfile::TempDir,
    }

    impl CatPane {
        fn start() -> CatPane {
            CatPane::showing("")
        }

        fn showing(format: &str) -> CatPane {
            let dir = tempfile::tempdir().expect("tempdir");
            let out = dir.path().join("typed.txt");
            let name = format!("swarm-unit-{}-{}", std::process::id(), unique_buffer_name());
            let status = Command::new("tmux")
                .env_remove("TMUX")
                .args(["-L", &name, "-f", "/dev/null", "new-session", "-d"])
                .args(["-x", "80", "-y", "24"])
                .arg(format!("printf '{format}'; exec cat > '{}'", out.display()))
                .status()
                .expect("tmux");
            assert!(status.success());
            let tmux = Tmux::new(Server::Named(name));
            let (panes, _) = tmux.list_panes().expect("panes");
            let pane = panes[0].id.clone();
            CatPane {
                tmux,
                pane,
                out,
                _dir: dir,
            }
        }

        /// What `cat` has written once it holds `lines` lines.
        fn wait_for_lines(&self, lines: usize) -> String {
            let started = std::time::Instant::now();
            loop {
                let text = std::fs::read_to_string(&self.out).unwrap_or_default();
                if text.lines().count() >= lines {
                    return text;
                }
                assert!(
                    started.elapsed() < Duration::from_secs(20),
                    "cat wrote {text:?}"
                );
                thread::sleep(Duration::from_millis(10));
            }
        }
    }

    impl Drop for CatPane {
        fn drop(&mut self) {
            let socket = self.tmux.server_info().map(|i| i.socket_path);
            let _ = self.tmux.exec(Args::new("kill-server"), None);
            if let Ok(socket) = socket {
                let _ = std::fs::remove_file(socket);
            }
        }
    }

    #[test]
    fn a_prepared_paste_types_only_what_it_is_sent_and_nothing_when_dropped() {
        let cat = CatPane::start();
        let one = std::slice::from_ref(&cat.pane);
        // Dropped unsent: neither text nor Enter reaches the pane.
        drop(
            cat.tmux
                .prepare_paste_and_press(one, Duration::ZERO, "Enter"),
        );
        cat.tmux
            .prepare_paste_and_press(one, Duration::ZERO, "Enter")
            .send(b"first;")
            .expect("send");
        cat.tmux
            .prepare_paste_and_press(one, Duration::from_millis(1), "Enter")
            .send(b"second")
            .expect("paste");
        // A stray Enter from the dropped call would have made an empty
        // first line.
        assert_eq!(cat.wait_for_lines(2), "first;\nsecond\n");
        let buffers = cat
            .tmux
            .exec(Args::new("list-buffers"), None)
            .expect("list-buffers");
        assert_eq!(buffers, "", "no buffer is left behind");
    }

    #[test]
    fn screens_come_from_one_script_each_with_its_detail_and_a_gone_pane_gives_none() {
        let shown = CatPane::showing(r"\033[1mBOLD\033[0m plain\n");
        let pane = shown.pane.clone();
        let started = std::time::Instant::now();
        while !shown
            .tmux
            .capture_screen(&pane, ScreenDetail::Text)
            .is_ok_and(|s| s.contains("BOLD plain"))
        {
            assert!(started.elapsed() < Duration::from_secs(20), "never shown");
            thread::sleep(Duration::from_millis(10));
        }
        let gone: PaneId = "%999".parse().expect("pane id");
        let asked = [
            (pane.clone(), ScreenDetail::Attributes),
            (gone, ScreenDetail::Text),
            (pane.clone(), ScreenDetail::Text),
        ];
        // Once through a client started ahead, once through one started
        // for the capture.
        for warm in [true, false] {
            if warm {
                shown.tmux.warm_up();
            }
            let screens = shown.tmux.capture_screens(&asked);
            assert_eq!(screens.len(), 3);
            let with = screens[0].as_deref().expect("screen with attributes");
            assert!(with.contains("\x1b[1mBOLD"), "{with:?}");
            assert_eq!(screens[1], None, "the gone pane");
            let text = screens[2].as_deref().expect("screen as text");
            assert!(text.starts_with("BOLD plain\n"), "{text:?}");
            assert!(!text.contains('\x1b'), "{text:?}");
        }
        assert!(
            !SCRIPT_REFUSED.load(Ordering::Relaxed),
            "the script was used, not a call per pane"
        );
        // A client started ahead and never used types nothing, and is
        // ended by `cool_down`.
        shown.tmux.warm_up();
        drop(shown.tmux.capture_screens(&[]));
        shown.tmux.warm_up();
        shown.tmux.cool_down();
        assert!(shown.tmux.warm.lock().expect("warm").is_none());
        assert_eq!(std::fs::read_to_string(&shown.out).unwrap_or_default(), "");
    }

    #[test]
    fn an_old_run_shell_is_recognised_by_its_refusal() {
        assert!(refuses_run_shell_delay(
            "unknown flag -d\nusage: run-shell [-b] [-t target-pane] shell-command"
        ));
        assert!(refuses_run_shell_delay(
            "usage: run-shell [-bC] [-t target-pane] [shell-command]"
        ));
        assert!(!refuses_run_shell_delay("can't find pane: %9"));
    }

    #[test]
    fn buffer_names_are_unique() {
        let a = unique_buffer_name();
        let b = unique_buffer_name();
        assert_ne!(a, b);
        assert!(a.starts_with(&format!("swarm-{}-", std::process::id())));
    }

    #[test]
    fn timeout_kills_the_child() {
        let mut cmd = Command::new("sleep");
        cmd.arg("60");
        let started = std::time::Instant::now();
        let child = spawn_piped(&mut cmd, false).expect("spawn");
        let out = wait_with_timeout(child, None, Duration::from_millis(50)).expect("wait");
        assert!(out.is_none());
        // Without the kill, wait() would block for the full minute.
        assert!(started.elapsed() < Duration::from_secs(50));
    }

    #[test]
    fn stdin_reaches_the_child_and_output_comes_back() {
        let mut cmd = Command::new("cat");
        let child = spawn_piped(&mut cmd, true).expect("spawn");
        let out = wait_with_timeout(child, Some(b"x;y\n"), Duration::from_secs(5))
            .expect("spawn")
            .expect("finished");
        assert!(out.status.success());
        assert_eq!(out.stdout, b"x;y\n");
    }

    #[test]
    fn programs_are_found_on_path_once() {
        let sh = on_path(OsStr::new("sh"));
        assert!(Path::new(&sh).is_absolute(), "{sh:?}");
        assert_eq!(on_path(OsStr::new("/bin/x")), "/bin/x");
        let missing = "swarm-no-such-program-here";
        assert_eq!(on_path(OsStr::new(missing)), missing);
    }

    #[test]
    fn missing_binary_is_not_installed() {
        let mut tmux = Tmux::new(Server::Named("x".into()));
        tmux.program = "/nonexistent/tmux".into();
        assert!(matches!(tmux.list_panes(), Err(TmuxError::NotInstalled)));
    }
}
