//! What a Codex pane swarm starts runs (`swarm codex-pane -- codex ARGS`):
//! Codex's app server on a socket of the pane's own, then the TUI
//! against it (`codex ARGS --remote unix://SOCKET`), and the server
//! stopped when the TUI ends. Both stay in the pane's process tree, so
//! nothing outlives the pane and the watcher stays swarm's only
//! background process.
//!
//! The server runs in a process group of its own, stopped (SIGTERM, then
//! SIGKILL) as a group when the TUI exits or this process is told to stop
//! (the pane closing sends SIGHUP; that reaches the TUI too). When this
//! process is killed outright (SIGKILL), Linux sends the server SIGTERM
//! (`sys::end_with_this_process`): started from this process's main
//! thread, it never outlives the pane's process. When the
//! server cannot start or does not listen in time, the TUI starts
//! without it: messages are then typed, as into any Codex pane.

use std::io;
use std::os::unix::net::UnixStream;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use super::socket;
use crate::support::{private_socket, sys};

/// How long the server may take to listen (Codex CLI 0.169 takes about a
/// second; a busy machine more).
const LISTEN_WITHIN: Duration = Duration::from_secs(30);
/// How long the server has to leave after SIGTERM.
const STOP_WITHIN: Duration = Duration::from_secs(5);

/// The TUI's arguments with `--remote unix://SOCKET` added: after the
/// subcommand when there is one that takes it (`resume`, `fork`), else
/// first.
pub(crate) fn tui_arguments(args: &[String], socket: &Path) -> Vec<String> {
    let at = usize::from(args.first().is_some_and(|a| a == "resume" || a == "fork"));
    let mut out = args.to_vec();
    out.splice(
        at..at,
        [
            "--remote".to_owned(),
            format!("unix://{}", socket.display()),
        ],
    );
    out
}

/// Runs the pane: the server, the TUI against it, the server stopped.
/// `warn` is told when the server did not start (the TUI then runs
/// without it). Returns the TUI's exit code (128 + the signal that ended
/// it).
pub fn run(program: &str, args: &[String], warn: &mut dyn FnMut(&str)) -> io::Result<i32> {
    let stops = sys::stop_signals()?;
    let server = match start_server(program) {
        Ok(s) => Some(s),
        Err(e) => {
            warn(&format!(
                "Codex's app server did not start ({e}); Codex runs without it, and messages are typed"
            ));
            None
        }
    };
    let tui_args = match &server {
        Some(s) => tui_arguments(args, &s.socket),
        None => args.to_vec(),
    };
    let tui = Command::new(program).args(&tui_args).spawn();
    let status = match tui {
        Ok(mut tui) => wait_forwarding(&mut tui, &stops),
        Err(e) => Err(e),
    };
    if let Some(s) = server {
        s.stop();
    }
    Ok(exit_code(status?))
}

/// A running app server.
struct Server {
    child: Child,
    socket: PathBuf,
}

impl Server {
    /// SIGTERM to its group, SIGKILL when it has not left in time; its
    /// socket's path removed.
    fn stop(mut self) {
        let group = self.child.id();
        let _ = sys::terminate_process_group(group);
        let until = Instant::now() + STOP_WITHIN;
        while Instant::now() < until {
            if let Ok(Some(_)) = self.child.try_wait() {
                break;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        // What is left of the group (the server's own children too).
        let _ = sys::kill_process_group(group);
        let _ = self.child.wait();
        if std::fs::symlink_metadata(&self.socket).is_ok() {
            let _ = std::fs::remove_file(&self.socket);
        }
    }
}

fn start_server(program: &str) -> io::Result<Server> {
    let dir = private_socket::directory();
    private_socket::ensure_directory(&dir)?;
    let path = socket::new_path(&dir)?;
    let mut command = Command::new(program);
    command
        .args(["app-server", "--listen"])
        .arg(format!("unix://{}", path.display()))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0);
    // This process may be killed with no chance to stop the server
    // (SIGKILL): the kernel then stops it, so no server outlives its pane.
    sys::end_with_this_process(&mut command);
    let child = command.spawn()?;
    let mut server = Server {
        child,
        socket: path,
    };
    let until = Instant::now() + LISTEN_WITHIN;
    loop {
        if let Ok(target) = socket::check_socket(&server.socket)
            && UnixStream::connect(&target).is_ok()
        {
            return Ok(server);
        }
        if let Some(status) = server.child.try_wait()? {
            return Err(io::Error::other(format!("it exited ({status})")));
        }
        if Instant::now() >= until {
            server.stop();
            return Err(io::Error::new(
                io::ErrorKind::TimedOut,
                "it did not listen in time",
            ));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Waits for the TUI, passing a stop signal this process gets on to it.
fn wait_forwarding(
    tui: &mut Child,
    stops: &std::sync::mpsc::Receiver<i32>,
) -> io::Result<ExitStatus> {
    loop {
        if let Some(status) = tui.try_wait()? {
            return Ok(status);
        }
        if stops.recv_timeout(Duration::from_millis(100)).is_ok() {
            let _ = sys::terminate(tui.id());
        }
    }
}

fn exit_code(status: ExitStatus) -> i32 {
    status
        .code()
        .or_else(|| status.signal().map(|s| 128 + s))
        .unwrap_or(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_owned).collect()
    }

    #[test]
    fn the_remote_goes_where_the_tui_takes_it() {
        let s = Path::new("/tmp/swarm-0/cx-0123456789abcdef.sock");
        let remote = "--remote unix:///tmp/swarm-0/cx-0123456789abcdef.sock";
        assert_eq!(tui_arguments(&[], s), words(remote));
        assert_eq!(
            tui_arguments(&words("resume --last"), s),
            words(&format!("resume {remote} --last"))
        );
        assert_eq!(
            tui_arguments(&words("-m o3 fix it"), s),
            words(&format!("{remote} -m o3 fix it"))
        );
    }
}
