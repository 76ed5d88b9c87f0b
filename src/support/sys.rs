//! The few operating-system calls std does not offer: switching a terminal
//! into raw mode (for the demo agent), turning stop signals into messages,
//! noticing a closed stdout pipe, and reading errno the same way on every
//! Unix. All `unsafe` in swarm lives here, each block a single libc call on
//! values we own; each call exists on Linux, macOS and the BSDs.
#![allow(unsafe_code)]

use std::io;
use std::os::fd::{AsRawFd, RawFd};
use std::sync::mpsc;

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
pub(crate) fn stdout_reader_gone() -> bool {
    let mut fd = libc::pollfd {
        fd: libc::STDOUT_FILENO,
        events: 0,
        revents: 0,
    };
    // SAFETY: polls one descriptor we own, without waiting.
    let n = unsafe { libc::poll(&mut fd, 1, 0) };
    n == 1 && fd.revents & (libc::POLLERR | libc::POLLHUP) != 0
}

/// A terminal put into raw mode; the previous mode is restored on drop.
pub(crate) struct RawTerminal {
    fd: RawFd,
    saved: libc::termios,
}

impl RawTerminal {
    /// Switches the terminal behind `fd` to raw mode (no echo, no line
    /// editing, no signals from keys: every byte reaches the program).
    pub(crate) fn enable(fd: &impl AsRawFd) -> io::Result<RawTerminal> {
        let fd = fd.as_raw_fd();
        // SAFETY: termios is plain old data; tcgetattr fills it or fails.
        let mut saved: libc::termios = unsafe { std::mem::zeroed() };
        // SAFETY: fd is an open descriptor owned by the caller.
        if unsafe { libc::tcgetattr(fd, &mut saved) } != 0 {
            return Err(io::Error::last_os_error());
        }
        let mut raw = saved;
        // SAFETY: cfmakeraw only edits the struct we pass.
        unsafe { libc::cfmakeraw(&mut raw) };
        // SAFETY: fd is open; raw is a valid termios.
        if unsafe { libc::tcsetattr(fd, libc::TCSANOW, &raw) } != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(RawTerminal { fd, saved })
    }
}

impl Drop for RawTerminal {
    fn drop(&mut self) {
        // SAFETY: restores the attributes read from the same descriptor.
        unsafe { libc::tcsetattr(self.fd, libc::TCSANOW, &self.saved) };
    }
}

/// Turns SIGINT, SIGTERM and SIGHUP into messages on a channel, so a
/// long-running loop can wait for "work or stop" without polling. The
/// handlers (signal-hook's, the same on every Unix) reset to the default
/// in child processes (exec does that).
pub(crate) fn stop_signals() -> io::Result<mpsc::Receiver<i32>> {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    let (tx, rx) = mpsc::channel();
    let mut signals = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP])?;
    std::thread::spawn(move || {
        for signal in signals.forever() {
            if tx.send(signal).is_err() {
                return;
            }
        }
    });
    Ok(rx)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_signal_arrives_on_the_channel() {
        let rx = stop_signals().expect("install");
        // SAFETY: raising SIGHUP at ourselves; the handler is installed.
        unsafe { libc::raise(libc::SIGHUP) };
        let got = rx
            .recv_timeout(std::time::Duration::from_secs(10))
            .expect("signal delivered");
        assert_eq!(got, libc::SIGHUP);
    }
}
