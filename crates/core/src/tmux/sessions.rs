//! Sessions, windows and layouts: whether a session exists, the server's
//! sessions, creating and killing sessions, splitting windows, layouts and
//! window options, and putting the user's terminal on a session.

use std::path::Path;

use super::args::Args;
use super::client::Tmux;
use super::error::TmuxError;
use super::pane::PaneId;
use super::server::Server;

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
    /// The label the first pane gets in the same call, if any.
    pub label: Option<NewPaneLabel<'a>>,
}

/// The label a new pane gets in the same tmux call that creates it (the
/// `@swarm_agent` and `@swarm_project` options and its title, as
/// `label_panes` writes them), so that nothing looking at the server in
/// between sees the pane without it: tmux runs one client's commands
/// without running another client's in between.
#[derive(Clone, Copy, Debug)]
pub struct NewPaneLabel<'a> {
    /// The agent id.
    pub agent: &'a str,
    /// The project's fingerprint.
    pub project: &'a str,
    /// Variables set in the new pane's environment (`-e NAME=VALUE`).
    pub env: &'a [(String, String)],
}

/// Adds `-e NAME=VALUE` for each variable (tmux 3.0).
fn with_env(mut args: Args, env: &[(String, String)]) -> Args {
    for (name, value) in env {
        args = args.flag("-e").text(format!("{name}={value}"));
    }
    args
}

/// Adds the commands that label the pane just created: `target` when
/// given, else the current pane (which `split-window` without `-d` makes
/// the new one).
fn label_new(args: Args, target: Option<&str>, label: &NewPaneLabel<'_>) -> Args {
    let aim = |args: Args| match target {
        Some(t) => args.flag("-t").text(t),
        None => args,
    };
    let args = aim(args.then("set-option").flag("-p"))
        .flag("--")
        .text("@swarm_agent")
        .text(label.agent);
    let args = aim(args.then("set-option").flag("-p"))
        .flag("--")
        .text("@swarm_project")
        .text(label.project);
    aim(args.then("select-pane")).flag("-T").text(label.agent)
}

impl Tmux {
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
        let env = spec.label.as_ref().map_or(&[][..], |l| l.env);
        let args = with_env(Args::new("new-session"), env)
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
            .text(spec.command);
        // `new-session -d` leaves the current pane where it was (a client's,
        // inside tmux), so the label names the new session's only pane.
        let target = format!("={}:", spec.name);
        let args = match &spec.label {
            Some(label) => label_new(args, Some(&target), label),
            None => args,
        };
        let out = self.exec(args, None)?;
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
        let args = split_args(Args::new("split-window").flag("-d"), target, cwd, command);
        let out = self.exec(args, None)?;
        parse_pane_id("split-window", &out)
    }

    /// As `split_window`, labelling the new pane in the same call.
    pub(crate) fn split_window_labelled(
        &self,
        target: &str,
        cwd: &Path,
        command: &str,
        label: &NewPaneLabel<'_>,
    ) -> Result<PaneId, TmuxError> {
        // Without `-d` the new pane becomes the current one, which the
        // label commands act on; `last-pane` then gives the focus back.
        let args = split_args(
            with_env(Args::new("split-window"), label.env),
            target,
            cwd,
            command,
        );
        let out = self.exec(label_new(args, None, label).then("last-pane"), None)?;
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
        let args = Args::new("split-window")
            .flag("-d")
            .flag("-h")
            .flag("-f")
            .flag(size.0)
            .text(size.1);
        let out = self.exec(split_args(args, target, cwd, command), None)?;
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

    /// Puts the user's terminal on a session: `switch-client` when we run
    /// inside a client of the same server, `attach-session` otherwise.
    /// Interactive: tmux inherits our terminal and this returns when the
    /// user detaches.
    pub fn attach(&self, session: &str) -> Result<(), TmuxError> {
        let inside = matches!(self.server(), Server::Inherited(_));
        let command = if inside {
            "switch-client"
        } else {
            "attach-session"
        };
        self.exec_on_terminal(Args::new(command).flag("-t").text(format!("={session}")))
    }
}

/// A `split-window` (`args`, with its own flags) of `target` that prints
/// the new pane's id and runs `command` in `cwd`.
fn split_args(args: Args, target: &str, cwd: &Path, command: &str) -> Args {
    args.flag("-P")
        .flag("-F")
        .text("#{pane_id}")
        .flag("-t")
        .text(target)
        .flag("-c")
        .text(cwd)
        .flag("--")
        .text(command)
}

/// The pane id a command printed (`-P -F '#{pane_id}'`).
fn parse_pane_id(command: &str, out: &str) -> Result<PaneId, TmuxError> {
    out.trim()
        .parse()
        .map_err(|e: crate::domain::ValidationError| TmuxError::BadOutput {
            command: command.to_owned(),
            detail: e.to_string(),
        })
}
