//! Codex panes behind an app server of their own (`swarm codex-pane`):
//! what `swarm launch --agent codex` starts in the pane, the socket's
//! place and permissions, the server stopped with the agent, and the
//! channel a Codex pane gets, a server that ends with the pane's process
//! even when that is killed outright, and another local account kept
//! from its socket. CI has no Codex CLI: a stand-in `codex`
//! program plays the two commands the pane runs (the server only sleeps,
//! and the test binds its socket; the TUI shows its arguments and what is
//! typed into it). The protocol itself is checked against the real Codex
//! CLI by scripts/test-agents.

use std::fs;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::os::unix::net::UnixListener;
use std::path::{Path, PathBuf};

use crate::harness::other_account;
use crate::harness::{Project, TmuxServer, swarm, wait_for};

/// A stand-in `codex` in a directory of its own: `codex app-server
/// --listen unix://P` writes its pid and arguments to `server` and
/// sleeps; any other command line (the TUI) runs as a program named
/// `codex`, writes its pid and arguments to `tui`, shows them and echoes
/// what is typed. With `exit_server`, the server leaves at once instead.
struct Stub {
    dir: tempfile::TempDir,
    runtime: tempfile::TempDir,
}

impl Stub {
    fn new(exit_server: bool) -> Stub {
        let dir = tempfile::tempdir().expect("tempdir");
        // A short directory of our own for the sockets (XDG_RUNTIME_DIR).
        let runtime = tempfile::Builder::new()
            .prefix("rt")
            .tempdir_in("/tmp")
            .expect("runtime dir");
        let d = dir.path().display();
        let server = if exit_server {
            "exit 3".to_owned()
        } else {
            "exec sleep 600".to_owned()
        };
        let script = format!(
            "#!/bin/bash\n\
             if [ \"$1\" = app-server ]; then echo \"$$ $*\" > {d}/server.tmp && mv {d}/server.tmp {d}/server; {server}; fi\n\
             exec -a codex /bin/bash -c 'echo \"$$ $*\" > {d}/tui; echo \"stand-in tui: $*\"; while read -r l; do echo \"got: $l\"; done' codex \"$@\"\n"
        );
        let bin = dir.path().join("codex");
        fs::write(&bin, script).expect("write the stand-in");
        fs::set_permissions(&bin, fs::Permissions::from_mode(0o755)).expect("chmod");
        Stub { dir, runtime }
    }

    fn path_var(&self) -> String {
        format!(
            "{}:{}",
            self.dir.path().display(),
            std::env::var("PATH").unwrap_or_default()
        )
    }

    /// What the stand-in's command `which` (`server`, `tui`) wrote: its
    /// pid and its arguments.
    fn started(&self, which: &str) -> (u32, Vec<String>) {
        let file = self.dir.path().join(which);
        wait_for(&format!("the stand-in's {which} to start"), || {
            let text = fs::read_to_string(&file).ok()?;
            let mut words = text.split_whitespace().map(str::to_owned);
            let pid = words.next()?.parse().ok()?;
            Some((pid, words.collect()))
        })
    }

    /// The socket directory the panes use.
    fn socket_dir(&self) -> PathBuf {
        self.runtime.path().join("swarm")
    }
}

/// The tmux server's panes and the `swarm` commands get the stand-in on
/// PATH and the stand-in's socket directory.
fn with_stub(server: &TmuxServer, stub: &Stub) {
    server.tmux(&["set-environment", "-g", "PATH", &stub.path_var()]);
    let runtime = stub.runtime.path().to_str().expect("utf-8");
    server.tmux(&["set-environment", "-g", "XDG_RUNTIME_DIR", runtime]);
}

/// A Codex pane launched with the stand-in on a private tmux server.
struct Launched {
    server: TmuxServer,
    project: Project,
    stub: Stub,
}

impl Launched {
    /// `swarm launch 1 --agent codex` (session `cx`); see `Stub::new`.
    fn codex(exit_server: bool) -> Launched {
        let server = TmuxServer::start();
        let project = Project::new();
        let stub = Stub::new(exit_server);
        with_stub(&server, &stub);
        launch_codex(&project, &server, &stub);
        Launched {
            server,
            project,
            stub,
        }
    }

    /// Binds the socket the server was told to listen on (`args`, what
    /// the stand-in server wrote), as the server would, and waits for the
    /// TUI the pane starts once it listens. The socket, and the TUI's
    /// arguments.
    fn serve(&self, args: &[String]) -> (PathBuf, Vec<String>) {
        let socket = socket_in(args, "--listen");
        bind_refusing(&socket);
        (socket, self.stub.started("tui").1)
    }

    fn down(&self) {
        swarm(&self.project, &self.server)
            .args(["down", "--session", "cx"])
            .assert()
            .success();
    }
}

fn launch_codex(project: &Project, server: &TmuxServer, stub: &Stub) {
    swarm(project, server)
        .env("PATH", stub.path_var())
        .env("XDG_RUNTIME_DIR", stub.runtime.path())
        .args([
            "launch",
            "1",
            "--agent",
            "codex",
            "--session",
            "cx",
            "--no-attach",
            "--ready-timeout",
            "0",
        ])
        .assert()
        .success();
}

fn alive(pid: u32) -> bool {
    Path::new(&format!("/proc/{pid}")).exists()
        && !fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| {
            s.rsplit(')')
                .next()
                .is_some_and(|r| r.trim_start().starts_with('Z'))
        })
}

/// The parent of process `pid`, from `/proc/PID/stat` (the field after
/// the state, which follows the command name's closing parenthesis).
fn parent_of(pid: u32) -> u32 {
    let stat = fs::read_to_string(format!("/proc/{pid}/stat")).expect("stat");
    let after = stat.rsplit_once(')').expect("a stat line").1;
    after
        .split_whitespace()
        .nth(1)
        .and_then(|p| p.parse().ok())
        .expect("a parent pid")
}

/// The socket path in `--listen unix://PATH` / `--remote unix://PATH`.
fn socket_in(args: &[String], flag: &str) -> PathBuf {
    let at = args.iter().position(|a| a == flag).expect(flag);
    PathBuf::from(
        args[at + 1]
            .strip_prefix("unix://")
            .expect("a unix:// address"),
    )
}

/// Binds `path` as the server would (0600), accepting and closing every
/// connection: a server that refuses before the handshake.
fn bind_refusing(path: &Path) {
    let listener = UnixListener::bind(path).expect("bind the socket");
    fs::set_permissions(path, fs::Permissions::from_mode(0o600)).expect("chmod");
    std::thread::spawn(move || {
        for conn in listener.incoming() {
            drop(conn);
        }
    });
}

#[test]
fn launch_runs_codex_behind_an_app_server_and_down_stops_it() {
    if !cfg!(target_os = "linux") {
        return;
    }
    let pane = Launched::codex(false);
    let (server_pid, args) = pane.stub.started("server");
    assert_eq!(args[..2], ["app-server", "--listen"], "{args:?}");
    let socket = socket_in(&args, "--listen");
    assert_eq!(socket.parent(), Some(pane.stub.socket_dir().as_path()));
    assert!(socket.as_os_str().len() < 108, "{}", socket.display());
    let dir = fs::metadata(pane.stub.socket_dir()).expect("the socket directory");
    assert_eq!(dir.permissions().mode() & 0o777, 0o700);
    assert_eq!(
        dir.uid(),
        fs::metadata(pane.project.path()).expect("project").uid()
    );

    // Once the socket listens, the TUI starts against it.
    let (socket, tui) = pane.serve(&args);
    assert_eq!(socket_in(&tui, "--remote"), socket, "{tui:?}");
    assert!(alive(server_pid));

    pane.down();
    wait_for("the app server to stop with its pane", || {
        (!alive(server_pid)).then_some(())
    });
    wait_for("its socket path to be removed", || {
        fs::symlink_metadata(&socket).is_err().then_some(())
    });
}

#[test]
fn a_server_that_does_not_start_leaves_codex_running_without_it() {
    let pane = Launched::codex(true);
    let (_, tui) = pane.stub.started("tui");
    assert!(!tui.iter().any(|a| a == "--remote"), "{tui:?}");
    pane.down();
}

/// Linux only: elsewhere no kernel ends a child with its parent
/// (`PR_SET_PDEATHSIG`), and the server stops with the TUI or the pane.
#[cfg(target_os = "linux")]
#[test]
fn the_app_server_ends_with_the_pane_process_even_when_that_is_killed() {
    let pane = Launched::codex(false);
    let (server_pid, args) = pane.stub.started("server");
    pane.serve(&args);

    // The pane's process, `swarm codex-pane`, killed with no chance to
    // stop anything itself.
    let pane_process = parent_of(server_pid);
    let cmdline = fs::read(format!("/proc/{pane_process}/cmdline")).expect("cmdline");
    assert!(
        String::from_utf8_lossy(&cmdline).contains("codex-pane"),
        "the server's parent is the pane's process: {:?}",
        String::from_utf8_lossy(&cmdline)
    );
    let killed = std::process::Command::new("kill")
        .args(["-KILL", &pane_process.to_string()])
        .status()
        .expect("kill");
    assert!(killed.success());
    wait_for("the app server to end with the pane's process", || {
        (!alive(server_pid)).then_some(())
    });
}

#[test]
fn another_account_cannot_connect_to_the_app_server_socket() {
    if !other_account::can_switch("another_account_cannot_connect_to_the_app_server_socket") {
        return;
    }
    let pane = Launched::codex(false);
    let (_, args) = pane.stub.started("server");
    // Bound as the server binds it, in the directory swarm made.
    let (socket, _) = pane.serve(&args);
    other_account::assert_only_its_own_account_connects(&socket);
    pane.down();
}
