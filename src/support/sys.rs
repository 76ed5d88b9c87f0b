//! The few operating-system calls std does not offer: probing a pid,
//! switching a terminal into raw mode (for the demo agent), turning stop
//! signals into messages, and noticing a closed stdout pipe. All `unsafe` in
//! swarm lives here, each block a single libc call on values we own.
#![allow(unsafe_code)]

use std::io;
use std::os::fd::{AsRawFd, RawFd};
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::mpsc;

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

/// Write end of the self-pipe the signal handler reports through.
static SIGNAL_PIPE: AtomicI32 = AtomicI32::new(-1);

extern "C" fn on_stop_signal(signal: libc::c_int) {
    let fd = SIGNAL_PIPE.load(Ordering::Relaxed);
    if fd >= 0 {
        let byte = signal as u8;
        // SAFETY: write(2) is async-signal-safe; the buffer is one local byte.
        unsafe { libc::write(fd, (&byte as *const u8).cast(), 1) };
    }
}

/// Turns SIGINT, SIGTERM and SIGHUP into messages on a channel, so a
/// long-running loop can wait for "work or stop" without polling. The
/// handlers reset to the default in child processes (exec does that).
/// Call once per process; later calls return a channel that never fires.
pub(crate) fn stop_signals() -> io::Result<mpsc::Receiver<i32>> {
    let (tx, rx) = mpsc::channel();
    let mut fds = [0 as libc::c_int; 2];
    // SAFETY: pipe2 fills the two-element array or fails.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(io::Error::last_os_error());
    }
    if SIGNAL_PIPE
        .compare_exchange(-1, fds[1], Ordering::SeqCst, Ordering::SeqCst)
        .is_err()
    {
        // SAFETY: closing the descriptors we just created.
        unsafe {
            libc::close(fds[0]);
            libc::close(fds[1]);
        }
        return Ok(rx);
    }
    for signal in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
        // SAFETY: sigaction is plain old data; we install a handler that
        // only calls write(2).
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_stop_signal as *const () as usize;
            action.sa_flags = libc::SA_RESTART;
            libc::sigemptyset(&mut action.sa_mask);
            if libc::sigaction(signal, &action, std::ptr::null_mut()) != 0 {
                return Err(io::Error::last_os_error());
            }
        }
    }
    let read_fd = fds[0];
    std::thread::spawn(move || {
        loop {
            let mut byte = 0u8;
            // SAFETY: reads one byte into a local from our own pipe.
            let n = unsafe { libc::read(read_fd, (&mut byte as *mut u8).cast(), 1) };
            if n == 1 {
                if tx.send(i32::from(byte)).is_err() {
                    return;
                }
            } else if n == 0 || io::Error::last_os_error().kind() != io::ErrorKind::Interrupted {
                return;
            }
        }
    });
    Ok(rx)
}

/// Reads from stdin (descriptor 0, unbuffered), waiting at most `timeout`
/// for input (`None`: as long as it takes). `Ok(None)` when nothing came
/// in time; `Ok(Some(0))` at end of input.
pub(crate) fn read_stdin(
    buf: &mut [u8],
    timeout: Option<std::time::Duration>,
) -> io::Result<Option<usize>> {
    let mut fd = libc::pollfd {
        fd: libc::STDIN_FILENO,
        events: libc::POLLIN,
        revents: 0,
    };
    let ms = timeout.map_or(-1, |t| {
        libc::c_int::try_from(t.as_millis().max(1)).unwrap_or(libc::c_int::MAX)
    });
    // SAFETY: polls one descriptor we own.
    let n = unsafe { libc::poll(&mut fd, 1, ms) };
    if n < 0 {
        return Err(io::Error::last_os_error());
    }
    if n == 0 {
        return Ok(None);
    }
    // SAFETY: reads into a buffer we own, at most its length.
    let got = unsafe { libc::read(libc::STDIN_FILENO, buf.as_mut_ptr().cast(), buf.len()) };
    if got < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(Some(got as usize))
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
