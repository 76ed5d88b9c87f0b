//! The tmux client as a child process: starting it with its pipes (on a
//! thread of its own when asked, `Spawned`), giving it its standard input,
//! waiting for it with a timeout while its output is drained, and finding
//! the program on `PATH`.

use std::ffi::{OsStr, OsString};
use std::io::{self, Read, Write};
use std::os::unix::ffi::OsStrExt;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::Duration;

use super::error::TmuxError;

/// A tmux client process: started, or being started on a thread.
#[derive(Debug)]
pub(super) enum Spawned {
    /// Started (or failed to start) on the caller's thread.
    Ready(io::Result<Child>),
    /// Being started on a thread of its own.
    Starting(thread::JoinHandle<io::Result<Child>>),
}

impl Spawned {
    /// The process, once started.
    pub(super) fn child(self) -> io::Result<Child> {
        match self {
            Spawned::Ready(child) => child,
            Spawned::Starting(handle) => handle
                .join()
                .unwrap_or_else(|_| Err(io::Error::other("starting tmux failed"))),
        }
    }
}

/// What a finished child printed.
pub(super) struct Finished {
    /// How it exited.
    pub(super) status: std::process::ExitStatus,
    /// Everything it wrote to its standard output.
    pub(super) stdout: Vec<u8>,
    /// Everything it wrote to its standard error.
    pub(super) stderr: Vec<u8>,
}

/// A failure to start or talk to tmux.
pub(super) fn spawn_error(e: io::Error) -> TmuxError {
    if e.kind() == io::ErrorKind::NotFound {
        TmuxError::NotInstalled
    } else {
        TmuxError::Io(e)
    }
}

/// Where `program` is on `PATH`, as the shell would find it; `program`
/// itself when it names a path already or is not found (running it then
/// gives the usual "not found" error).
pub(super) fn on_path(program: &OsStr) -> OsString {
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

/// Starts `cmd` with its output piped (and its input, `with_stdin`).
pub(super) fn spawn_piped(cmd: &mut Command, with_stdin: bool) -> io::Result<Child> {
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
pub(super) fn give_input(child: &mut Child, input: Vec<u8>) -> io::Result<()> {
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
pub(super) fn wait_with_timeout(
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

/// The pipes of a started child, taken out of it to be serviced on
/// threads of their own.
struct Pipes {
    stdin: Option<(std::process::ChildStdin, Vec<u8>)>,
    stdout: std::process::ChildStdout,
    stderr: std::process::ChildStderr,
}

impl Pipes {
    /// Takes the child's pipes, with `input` for its standard input.
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

    /// Writes the input and reads both outputs to their end.
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
    use std::path::Path;

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
}
