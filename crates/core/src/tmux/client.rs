//! `Tmux`: a client for one tmux server, and how it runs one call: the
//! program found once, the server's arguments first, a timeout, and
//! tmux's answer or its error. The calls themselves are grouped by what
//! they do in the files beside this one.

use std::ffi::OsString;
use std::io;
use std::process::{Child, Command};
use std::sync::{Mutex, OnceLock};
use std::thread;
use std::time::Duration;

use super::args::Args;
use super::error::TmuxError;
use super::process::{Finished, Spawned, on_path, spawn_error, spawn_piped, wait_with_timeout};
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
    pub(super) warm: Mutex<Option<Spawned>>,
}

impl Drop for Tmux {
    fn drop(&mut self) {
        self.cool_down();
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

    /// Runs `args` on the server, with `stdin` as its input, and returns
    /// what it printed; a failure is classified by tmux's words.
    pub(super) fn exec(&self, args: Args, stdin: Option<&[u8]>) -> Result<String, TmuxError> {
        let mut argv = self.server.args();
        argv.extend(args.argv);
        self.exec_raw(argv, args.command, stdin, true)
    }

    /// Runs `args` on the server with the user's terminal (tmux inherits
    /// it) and returns when tmux exits: for attaching, which is
    /// interactive.
    pub(super) fn exec_on_terminal(&self, args: Args) -> Result<(), TmuxError> {
        let status = Command::new(&self.program)
            .args(self.server.args())
            .args(args.argv)
            .status()
            .map_err(spawn_error)?;
        if status.success() {
            Ok(())
        } else {
            Err(TmuxError::Failed {
                command: args.command.to_owned(),
                status: status.code().unwrap_or(-1),
                stderr: String::new(),
            })
        }
    }

    /// Starts a tmux client on a thread of its own: starting a process
    /// holds up the thread that starts it until the program is loaded,
    /// which the caller need not wait for.
    pub(super) fn spawn_ahead(&self, argv: Vec<OsString>, with_stdin: bool) -> Spawned {
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

    /// Starts a tmux client with `argv` (the server's arguments included).
    pub(super) fn spawn(&self, argv: &[OsString], with_stdin: bool) -> io::Result<Child> {
        let mut cmd = Command::new(self.resolved.get_or_init(|| on_path(&self.program)));
        cmd.args(argv);
        spawn_piped(&mut cmd, with_stdin)
    }

    /// Runs tmux with exactly `argv` and returns what it printed;
    /// `classify` turns a failure into the typed error tmux's words name.
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
    pub(super) fn wait(
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
    pub(super) fn collect(
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_binary_is_not_installed() {
        let mut tmux = Tmux::new(Server::Named("x".into()));
        tmux.program = "/nonexistent/tmux".into();
        assert!(matches!(tmux.list_panes(), Err(TmuxError::NotInstalled)));
    }
}
