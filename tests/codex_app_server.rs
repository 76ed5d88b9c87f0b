//! Codex panes behind an app server of their own (`swarm codex-pane`):
//! what `swarm launch --agent codex` starts in the pane, the socket's
//! place and permissions, the server stopped with the agent, and the
//! channel a Codex pane gets. CI has no Codex CLI: a stand-in `codex`
//! program plays the two commands the pane runs (the server only sleeps,
//! and the test binds its socket; the TUI shows its arguments and what is
//! typed into it). The protocol itself is checked against the real Codex
//! CLI by scripts/test-agents.

use std::fs;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::os::unix::net::UnixListener;
use std::path::{Path, PathBuf};

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
    let server = TmuxServer::start();
    let project = Project::new();
    let stub = Stub::new(false);
    with_stub(&server, &stub);
    launch_codex(&project, &server, &stub);

    let (server_pid, args) = stub.started("server");
    assert_eq!(args[..2], ["app-server", "--listen"], "{args:?}");
    let socket = socket_in(&args, "--listen");
    assert_eq!(socket.parent(), Some(stub.socket_dir().as_path()));
    assert!(socket.as_os_str().len() < 108, "{}", socket.display());
    let dir = fs::metadata(stub.socket_dir()).expect("the socket directory");
    assert_eq!(dir.permissions().mode() & 0o777, 0o700);
    assert_eq!(
        dir.uid(),
        fs::metadata(project.path()).expect("project").uid()
    );
    bind_refusing(&socket);

    // Once the socket listens, the TUI starts against it.
    let (_, tui) = stub.started("tui");
    assert_eq!(socket_in(&tui, "--remote"), socket, "{tui:?}");
    assert!(alive(server_pid));

    swarm(&project, &server)
        .args(["down", "--session", "cx"])
        .assert()
        .success();
    wait_for("the app server to stop with its pane", || {
        (!alive(server_pid)).then_some(())
    });
    wait_for("its socket path to be removed", || {
        fs::symlink_metadata(&socket).is_err().then_some(())
    });
}

#[test]
fn a_server_that_does_not_start_leaves_codex_running_without_it() {
    let server = TmuxServer::start();
    let project = Project::new();
    let stub = Stub::new(true);
    with_stub(&server, &stub);
    launch_codex(&project, &server, &stub);
    let (_, tui) = stub.started("tui");
    assert!(!tui.iter().any(|a| a == "--remote"), "{tui:?}");
    swarm(&project, &server)
        .args(["down", "--session", "cx"])
        .assert()
        .success();
}
