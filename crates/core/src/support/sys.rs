//! What the operating system does for long-running commands and the demo
//! agent: stop signals turned into messages (signal-hook), a terminal in
//! raw mode (crossterm), noticing a closed stdout pipe, the demo agent's
//! read of stdin with a time limit, stopping a process group whose time is
//! up, a child that ends with this process, and this process's user id
//! (`poll`, `read`, `kill`, `prctl` and `geteuid` on plain numbers, which no
//! crate swarm names offers: the only `unsafe` in swarm).

use std::io;
use std::sync::mpsc;

use crossterm::terminal;
use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
use signal_hook::iterator::Signals;

/// True when `open` with `O_NOFOLLOW` failed because the last part of the
/// path is a symbolic link. Linux, macOS and OpenBSD say `ELOOP`; FreeBSD
/// and DragonFly say `EMLINK`, NetBSD `EFTYPE`.
pub(crate) fn refused_symlink(e: &io::Error) -> bool {
    let Some(code) = e.raw_os_error() else {
        return false;
    };
    if code == libc::ELOOP {
        return true;
    }
    #[cfg(any(target_os = "freebsd", target_os = "dragonfly"))]
    if code == libc::EMLINK {
        return true;
    }
    #[cfg(target_os = "netbsd")]
    if code == libc::EFTYPE {
        return true;
    }
    false
}

/// True when stdout is a pipe whose reader has gone away (`swarm monitor |
/// head -1` after head exits): a program that only writes when something
/// happens would otherwise not find out until its next line.
#[allow(unsafe_code)]
pub fn stdout_reader_gone() -> bool {
    let mut fd = libc::pollfd {
        fd: libc::STDOUT_FILENO,
        events: 0,
        revents: 0,
    };
    // SAFETY: polls one descriptor we own, without waiting.
    let n = unsafe { libc::poll(&mut fd, 1, 0) };
    n == 1 && fd.revents & (libc::POLLERR | libc::POLLHUP) != 0
}

/// How many clock ticks the kernel counts per second (`_SC_CLK_TCK`: the
/// unit of a process's start time in `/proc`); `None` when unknown.
#[allow(unsafe_code)]
pub(crate) fn clock_ticks_per_second() -> Option<u64> {
    // SAFETY: sysconf only reads a configuration value.
    let ticks = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    u64::try_from(ticks).ok().filter(|&t| t > 0)
}

/// This process's effective user id: the one a D-Bus daemon checks on
/// its socket, and whose `/run/user/<uid>` holds the session's bus. Asked
/// of the kernel, so it works where no `/proc` is mounted (the BSDs).
#[allow(unsafe_code)]
pub(crate) fn own_uid() -> u32 {
    // SAFETY: geteuid(2) takes no arguments, touches no memory of ours and
    // cannot fail.
    unsafe { libc::geteuid() }
}

/// The controlling terminal in raw mode (no echo, no line editing, no
/// signals from keys: every byte reaches the program); the previous mode
/// is restored on drop.
pub(crate) struct RawTerminal(());

impl RawTerminal {
    /// Switches this process's terminal to raw mode.
    pub(crate) fn enable() -> io::Result<RawTerminal> {
        terminal::enable_raw_mode()?;
        Ok(RawTerminal(()))
    }
}

impl Drop for RawTerminal {
    fn drop(&mut self) {
        let _ = terminal::disable_raw_mode();
    }
}

/// Turns SIGINT, SIGTERM and SIGHUP into messages on a channel, so a
/// long-running loop can wait for "work or stop" without polling. Child
/// processes get the default handlers back (exec resets them).
pub fn stop_signals() -> io::Result<mpsc::Receiver<i32>> {
    let (tx, rx) = mpsc::channel();
    let mut signals = Signals::new([SIGINT, SIGTERM, SIGHUP])?;
    std::thread::Builder::new()
        .name("stop-signals".into())
        .spawn(move || {
            for signal in signals.forever() {
                if tx.send(signal).is_err() {
                    return;
                }
            }
        })?;
    Ok(rx)
}

/// Reads from stdin (descriptor 0, unbuffered), waiting at most `timeout`
/// for input (`None`: as long as it takes), or until `wake` (a socket
/// another thread writes a byte to when it has something for the caller)
/// is readable: its bytes are then taken and nothing is read from stdin.
/// `Ok(None)` when nothing came in time or the wait was woken;
/// `Ok(Some(0))` at end of input.
#[allow(unsafe_code)]
pub(crate) fn read_stdin(
    buf: &mut [u8],
    timeout: Option<std::time::Duration>,
    wake: Option<&std::os::unix::net::UnixStream>,
) -> io::Result<Option<usize>> {
    use std::os::fd::AsRawFd;
    let mut fds = [
        libc::pollfd {
            fd: libc::STDIN_FILENO,
            events: libc::POLLIN,
            revents: 0,
        },
        libc::pollfd {
            fd: wake.map_or(-1, AsRawFd::as_raw_fd),
            events: libc::POLLIN,
            revents: 0,
        },
    ];
    let ms = timeout.map_or(-1, |t| {
        libc::c_int::try_from(t.as_millis().max(1)).unwrap_or(libc::c_int::MAX)
    });
    // SAFETY: polls descriptors we own (a negative one is skipped).
    let n = unsafe { libc::poll(fds.as_mut_ptr(), 2, ms) };
    if n < 0 {
        return Err(io::Error::last_os_error());
    }
    if n == 0 {
        return Ok(None);
    }
    if fds[1].revents != 0
        && let Some(mut wake) = wake
    {
        // Non-blocking: every byte written so far, then on.
        let mut drained = [0u8; 64];
        while matches!(io::Read::read(&mut wake, &mut drained), Ok(n) if n > 0) {}
        if fds[0].revents == 0 {
            return Ok(None);
        }
    }
    // SAFETY: reads into a buffer we own, at most its length.
    let got = unsafe { libc::read(libc::STDIN_FILENO, buf.as_mut_ptr().cast(), buf.len()) };
    if got < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(Some(got as usize))
}

/// Makes the child `command` starts end with this process: on Linux the
/// kernel sends it SIGTERM when the thread that started it is gone, even
/// when this process was killed by SIGKILL and could clean up nothing
/// (`PR_SET_PDEATHSIG`, set in the child before `exec`, kept across it).
/// A child whose parent was already gone by the time it asked is told at
/// once. Elsewhere this does nothing: there the child is stopped when
/// this process stops it, as before. Start such a child from a thread
/// that lives as long as the child should (the main thread): the signal
/// follows the thread, not the process.
#[allow(unsafe_code)]
pub(crate) fn end_with_this_process(command: &mut std::process::Command) {
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::process::CommandExt;
        let parent = std::process::id();
        // SAFETY: the closure runs in the forked child before exec and
        // makes only async-signal-safe calls (prctl, getppid, kill), on
        // plain numbers, allocating nothing.
        unsafe {
            command.pre_exec(move || {
                if libc::prctl(libc::PR_SET_PDEATHSIG, SIGTERM as libc::c_ulong) != 0 {
                    return Err(io::Error::last_os_error());
                }
                // The parent died between fork and prctl: no signal will
                // come for it.
                if u32::try_from(libc::getppid()).ok() != Some(parent) {
                    libc::kill(libc::getpid(), SIGTERM);
                }
                Ok(())
            });
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = command;
}

/// Sends SIGKILL to every process of the process group `pgid` (a command
/// started in a group of its own, whose time is up): killing only the
/// shell would leave what it started running. Refuses the groups 0 and 1,
/// which would name this process's own group or init's.
pub(crate) fn kill_process_group(pgid: u32) -> io::Result<()> {
    signal(pgid, libc::SIGKILL, true)
}

/// Sends SIGTERM to every process of the process group `pgid` (a Codex
/// app server a pane started in a group of its own, asked to leave with
/// its agent). Refuses the groups 0 and 1.
pub(crate) fn terminate_process_group(pgid: u32) -> io::Result<()> {
    signal(pgid, SIGTERM, true)
}

/// Sends SIGTERM to the process `pid` (the project's watcher, asked to
/// end its round and leave). Refuses 0 and 1, which would name this
/// process's own group or init.
pub(crate) fn terminate(pid: u32) -> io::Result<()> {
    signal(pid, SIGTERM, false)
}

/// kill(2) of `sig` to the process `id`, or to the process group `id`
/// when `group`; ids 0 and 1 are refused.
#[allow(unsafe_code)]
fn signal(id: u32, sig: libc::c_int, group: bool) -> io::Result<()> {
    let id = libc::pid_t::try_from(id)
        .ok()
        .filter(|p| *p > 1)
        .ok_or_else(|| io::Error::from(io::ErrorKind::InvalidInput))?;
    let target = if group { -id } else { id };
    // SAFETY: kill(2) takes plain numbers; a negative pid names a group.
    let rc = unsafe { libc::kill(target, sig) };
    if rc == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_signal_arrives_on_the_channel() {
        let rx = stop_signals().expect("install");
        signal_hook::low_level::raise(SIGHUP).expect("raise");
        let got = rx
            .recv_timeout(std::time::Duration::from_secs(10))
            .expect("signal delivered");
        assert_eq!(got, SIGHUP);
    }

    #[test]
    fn the_own_uid_is_the_one_id_reports() {
        let out = std::process::Command::new("id")
            .arg("-u")
            .output()
            .expect("run id -u");
        assert!(out.status.success());
        let reported: u32 = String::from_utf8_lossy(&out.stdout)
            .trim()
            .parse()
            .expect("a number");
        assert_eq!(own_uid(), reported);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn the_own_uid_owns_proc_self() {
        use std::os::unix::fs::MetadataExt;
        let owner = std::fs::metadata("/proc/self").expect("/proc").uid();
        assert_eq!(own_uid(), owner);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_child_ends_with_the_thread_that_started_it() {
        use std::os::unix::process::ExitStatusExt;
        // The thread stands in for a process killed outright: when it is
        // gone, the kernel tells its child, with no code of ours running.
        let mut child = std::thread::spawn(|| {
            let mut command = std::process::Command::new("sleep");
            command.arg("60");
            end_with_this_process(&mut command);
            command.spawn().expect("spawn")
        })
        .join()
        .expect("the thread ends");
        let status = child.wait().expect("wait");
        assert_eq!(status.signal(), Some(SIGTERM), "{status:?}");
    }

    #[test]
    fn a_process_group_is_stopped_whole() {
        use std::os::unix::process::CommandExt;
        let mut child = std::process::Command::new("sh")
            .args(["-c", "sleep 60 & sleep 60; wait"])
            .process_group(0)
            .spawn()
            .expect("spawn");
        kill_process_group(child.id()).expect("kill");
        let status = child.wait().expect("wait");
        assert!(!status.success());
        assert!(kill_process_group(0).is_err());
        assert!(kill_process_group(1).is_err());
    }
}
