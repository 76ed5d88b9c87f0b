//! Whether the project's watcher runs on this host, and starting it in the
//! background when it does not. Every watcher announces itself on
//! `.swarm/watcher.lock` for as long as it lives (a shared `flock`, which
//! the kernel drops when the process dies); the one background watcher
//! also claims `.swarm/watcher-background.lock`, so two commands that
//! start it at once start one. A lock file removed or replaced under a
//! running watcher does not hide it: presence is judged by the process
//! its record names too, when that process still holds the project's
//! watcher lock open.

use std::fs;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Command, Stdio};

use serde_json::Value;

use crate::error::{Error, Result};
use crate::store::{AppendFile, Loaded, Paths, PresenceLock, Present, StateFile};
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
/// host: one holds the presence lock, or the process the watcher record
/// names still has this project's watcher lock open (the file was
/// removed or replaced under it, so the lock on the path says nothing).
pub(crate) fn is_running(paths: &Paths) -> Result<bool> {
    if PresenceLock::new(paths.watcher_lock()).is_held()? {
        return Ok(true);
    }
    Ok(recorded_pid(paths).is_some_and(|pid| holds_open(pid, &paths.watcher_lock())))
}

/// The process id the watcher record names; `None` when there is no
/// readable record.
fn recorded_pid(paths: &Paths) -> Option<u32> {
    match StateFile::new(paths.watcher_record()).read_json::<Value>() {
        Ok(Loaded::Valid(v)) => v.get("pid")?.as_u64()?.try_into().ok(),
        _ => None,
    }
}

/// Whether process `pid` has the file at `path` open, as that file or as
/// the one since removed from there (`/proc/<pid>/fd`; a process of
/// another user, or a system without `/proc`, cannot be seen and counts
/// as not holding it). A reused process id holds no such file.
fn holds_open(pid: u32, path: &Path) -> bool {
    let want = match (path.parent().map(fs::canonicalize), path.file_name()) {
        (Some(Ok(dir)), Some(name)) => dir.join(name),
        _ => path.to_owned(),
    };
    let removed = format!("{} (deleted)", want.display());
    let Ok(fds) = fs::read_dir(format!("/proc/{pid}/fd")) else {
        return false;
    };
    fds.flatten()
        .filter_map(|fd| fs::read_link(fd.path()).ok())
        .any(|target| target == want || target.as_os_str() == removed.as_str())
}

/// A watcher's presence, held while it runs.
pub fn announce_watcher(paths: &Paths) -> Result<Present> {
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
