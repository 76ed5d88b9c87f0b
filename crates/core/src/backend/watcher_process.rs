//! Whether the project's watcher runs on this host, and starting it in the
//! background when it does not. Every watcher announces itself on
//! `.swarm/watcher.lock` for as long as it lives (a shared `flock`, which
//! the kernel drops when the process dies); the one background watcher
//! also claims `.swarm/watcher-background.lock`, so two commands that
//! start it at once start one.

use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};

use crate::error::{Error, Result};
use crate::store::{AppendFile, Paths, PresenceLock, Present};
use crate::tmux::Server;

/// The log is started afresh when it is larger than this.
const LOG_LIMIT: u64 = 1024 * 1024;

/// What `ensure_running` found or did.
#[derive(Debug)]
pub enum Started {
    /// A watcher already runs.
    Already,
    /// One was started in the background: the child process, which the
    /// caller may wait for (it leaves at once when another won the start).
    Now(Child),
}

/// Whether a watcher runs for the project laid out by `paths` on this
/// host.
pub(crate) fn is_running(paths: &Paths) -> Result<bool> {
    Ok(PresenceLock::new(paths.watcher_lock()).is_held()?)
}

/// A watcher's presence, held while it runs.
pub fn announce(paths: &Paths) -> Result<Present> {
    Ok(PresenceLock::new(paths.watcher_lock()).announce()?)
}

/// Claims being the one background watcher; `None` when another is.
pub fn claim_background(paths: &Paths) -> Result<Option<Present>> {
    Ok(PresenceLock::new(paths.background_watcher_lock()).claim()?)
}

/// Starts the project's watcher in the background unless one runs. The
/// watcher talks to the same tmux server (`server`) and project root; it
/// writes what it does to `.swarm/watcher.log`.
pub fn ensure_running(paths: &Paths, server: &Server) -> Result<Started> {
    if is_running(paths)? {
        return Ok(Started::Already);
    }
    let exe = std::env::current_exe().map_err(|source| Error::Io {
        what: "find the swarm program to start the watcher".into(),
        source,
    })?;
    let log = AppendFile::new(paths.watcher_log()).open_for_child(LOG_LIMIT)?;
    let err_log = log.try_clone().map_err(|source| Error::Io {
        what: format!("open {}", paths.watcher_log().display()),
        source,
    })?;
    let mut cmd = Command::new(exe);
    cmd.arg("--root").arg(paths.root());
    if let Some(socket) = server.socket_arg() {
        cmd.arg("--tmux-socket").arg(socket);
    }
    cmd.arg("watch")
        .arg("--background")
        .current_dir(paths.root())
        .stdin(Stdio::null())
        .stdout(log)
        .stderr(err_log)
        // Its own process group: Ctrl-C in the terminal that started it
        // does not stop it, and it does not hold that terminal's job.
        .process_group(0);
    let child = cmd.spawn().map_err(|source| Error::Io {
        what: "start the watcher in the background".into(),
        source,
    })?;
    Ok(Started::Now(child))
}
