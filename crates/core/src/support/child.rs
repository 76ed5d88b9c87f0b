//! A command the user configured, run as a child of its own: `sh -c` in a
//! process group of its own, with no input; its output (stdout and stderr
//! together, in order) kept in a file, so that a chatty command never
//! blocks on a full pipe, or discarded; and at its time limit killed with
//! everything it started. Notifications (`notify/command.rs`) and the
//! merge queue's test run (`merge_queue/train.rs`) go through it.

use std::ffi::OsStr;
use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::ops::ControlFlow;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use super::poll::Pauses;
use super::sys;

/// How often a running child is looked at: soon at first (most commands
/// end quickly), then every tenth of a second.
const LOOKS: Pauses = Pauses::new(Duration::from_millis(5), Duration::from_millis(100));

/// Why a child could not be run to its end.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ChildError {
    /// The file for its output could not be made.
    #[error("could not make a file for the output: {0}")]
    Output(#[source] io::Error),
    /// `sh` could not be started.
    #[error("could not start sh: {0}")]
    Start(#[source] io::Error),
    /// Whether it ended could not be told.
    #[error("could not wait for it: {0}")]
    Wait(#[source] io::Error),
}

/// A shell command to run, built like a `std::process::Command`.
#[derive(Debug)]
pub(crate) struct ShellChild {
    command: Command,
    capture: bool,
}

/// How a child ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ended {
    /// By itself (or by a signal from someone else), with this status.
    Exited(ExitStatus),
    /// Still running at its time limit, so it was killed with its group.
    Killed,
}

/// A child that ended, with its output when it was kept.
#[derive(Debug)]
pub(crate) struct Finished {
    /// How it ended.
    pub(crate) ended: Ended,
    output: Option<File>,
}

impl ShellChild {
    /// `sh -c script`, with no input and its output discarded.
    pub(crate) fn new(script: &str) -> ShellChild {
        let mut command = Command::new("sh");
        command
            .arg("-c")
            .arg(script)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            // Its own group: what it starts can be killed with it.
            .process_group(0);
        ShellChild {
            command,
            capture: false,
        }
    }

    /// Runs it in `dir`.
    pub(crate) fn current_dir(mut self, dir: &Path) -> ShellChild {
        self.command.current_dir(dir);
        self
    }

    /// Sets the variable `key` to `value` in its environment.
    pub(crate) fn env(mut self, key: impl AsRef<OsStr>, value: impl AsRef<OsStr>) -> ShellChild {
        self.command.env(key, value);
        self
    }

    /// Leaves the variable `key` out of its environment.
    pub(crate) fn env_remove(mut self, key: impl AsRef<OsStr>) -> ShellChild {
        self.command.env_remove(key);
        self
    }

    /// Keeps its output, stdout and stderr in one file in the order they
    /// were written (see `Finished::output_tail`).
    pub(crate) fn capture_output(mut self) -> ShellChild {
        self.capture = true;
        self
    }

    /// Starts it and waits for it to end, at most `limit`; then it is
    /// killed, with every process of its group.
    pub(crate) fn run(mut self, limit: Duration) -> Result<Finished, ChildError> {
        let output = if self.capture {
            // Both streams share one open file, so they interleave as
            // written, as `2>&1` would.
            let file = tempfile::tempfile().map_err(ChildError::Output)?;
            let stdout = file.try_clone().map_err(ChildError::Output)?;
            let stderr = file.try_clone().map_err(ChildError::Output)?;
            self.command.stdout(stdout).stderr(stderr);
            Some(file)
        } else {
            None
        };
        let deadline = Instant::now() + limit;
        let mut child = self.command.spawn().map_err(ChildError::Start)?;
        let waited = LOOKS.until(deadline, || match child.try_wait() {
            Ok(Some(status)) => ControlFlow::Break(Ok(status)),
            Ok(None) => ControlFlow::Continue(()),
            Err(e) => ControlFlow::Break(Err(e)),
        });
        let ended = match waited {
            Ok(Ok(status)) => Ended::Exited(status),
            Ok(Err(e)) => {
                stop(&mut child);
                return Err(ChildError::Wait(e));
            }
            Err(()) => {
                stop(&mut child);
                Ended::Killed
            }
        };
        Ok(Finished { ended, output })
    }
}

/// Kills the shell and whatever it started, then reaps the shell, so that
/// no zombie is left behind. Best effort: the group may be gone already.
fn stop(child: &mut Child) {
    let _ = sys::kill_process_group(child.id());
    let _ = child.kill();
    let _ = child.wait();
}

impl Finished {
    /// Whether it ended by itself with status 0.
    pub(crate) fn success(&self) -> bool {
        matches!(self.ended, Ended::Exited(s) if s.success())
    }

    /// The last `max_bytes` of its output (empty when it was not kept or
    /// cannot be read back), as bytes: it is the command's, in no known
    /// encoding.
    pub(crate) fn output_tail(&mut self, max_bytes: u64) -> Vec<u8> {
        let Some(file) = self.output.as_mut() else {
            return Vec::new();
        };
        let len = file.metadata().map(|m| m.len()).unwrap_or(0);
        let mut bytes = Vec::new();
        if file
            .seek(SeekFrom::Start(len.saturating_sub(max_bytes)))
            .and_then(|_| file.read_to_end(&mut bytes))
            .is_err()
        {
            bytes.clear();
        }
        bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::process::ExitStatusExt;

    const LONG: Duration = Duration::from_secs(60);

    #[test]
    fn the_output_of_both_streams_is_kept_in_order() {
        let mut done = ShellChild::new("echo one; echo two >&2; printf %s \"$WORD\"")
            .env("WORD", "three")
            .capture_output()
            .run(LONG)
            .expect("ran");
        assert!(done.success(), "{:?}", done.ended);
        assert_eq!(done.output_tail(1024), b"one\ntwo\nthree");
        assert_eq!(done.output_tail(5), b"three");
    }

    #[test]
    fn discarded_output_reads_back_empty() {
        let mut done = ShellChild::new("echo lost").run(LONG).expect("ran");
        assert!(done.success());
        assert!(done.output_tail(1024).is_empty());
    }

    #[test]
    fn the_exit_status_is_reported() {
        let done = ShellChild::new("exit 3").run(LONG).expect("ran");
        let Ended::Exited(status) = done.ended else {
            panic!("it ended by itself: {:?}", done.ended)
        };
        assert_eq!(status.code(), Some(3));
        assert!(!done.success());
        let done = ShellChild::new("kill -TERM $$").run(LONG).expect("ran");
        let Ended::Exited(status) = done.ended else {
            panic!("it ended by a signal: {:?}", done.ended)
        };
        assert_eq!(status.signal(), Some(libc::SIGTERM));
    }

    #[test]
    fn the_directory_and_the_environment_apply() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut done = ShellChild::new("pwd; echo \"[${GONE-unset}]\"")
            .current_dir(dir.path())
            .env("GONE", "set")
            .env_remove("GONE")
            .capture_output()
            .run(LONG)
            .expect("ran");
        let out = String::from_utf8(done.output_tail(4096)).expect("utf-8");
        let real = dir.path().canonicalize().expect("canonical");
        assert_eq!(out, format!("{}\n[unset]\n", real.display()));
    }

    /// Whether the process `pid` is gone: no entry in /proc, or a zombie
    /// nobody has reaped yet (in a container, init may not reap).
    fn gone(pid: u32) -> bool {
        match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
            Err(_) => true,
            Ok(stat) => stat
                .rsplit_once(')')
                .is_some_and(|(_, rest)| rest.trim_start().starts_with('Z')),
        }
    }

    #[test]
    fn a_command_past_its_limit_is_killed_with_what_it_started() {
        let dir = tempfile::tempdir().expect("tempdir");
        let pid_file = dir.path().join("pid");
        // The shell starts a grandchild and waits for it: killing only the
        // shell would leave the sleep running.
        let script = format!("sleep 600 & echo $! > '{}'; wait", pid_file.display());
        let started = Instant::now();
        let done = ShellChild::new(&script)
            .run(Duration::from_secs(2))
            .expect("ran");
        assert_eq!(done.ended, Ended::Killed);
        assert!(!done.success());
        assert!(started.elapsed() >= Duration::from_secs(2));
        let pid: u32 = std::fs::read_to_string(&pid_file)
            .expect("the shell wrote the sleep's pid")
            .trim()
            .parse()
            .expect("a pid");
        // SIGKILL is delivered at once, but the kernel may take a moment
        // to tear the process down on a loaded machine.
        let deadline = Instant::now() + LONG;
        while !gone(pid) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
        assert!(gone(pid), "the sleep the shell started ({pid}) still runs");
    }
}
