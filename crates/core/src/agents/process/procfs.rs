//! The Linux fast path of the process seam: facts read straight from
//! `/proc` (a few small reads per pane, no process spawned). This is the
//! only module of swarm that knows `/proc` exists; it is compiled on Linux
//! only, and `SWARM_PROCESS_BACKEND=portable` bypasses it.

use std::fs;
use std::path::PathBuf;
use std::time::{Duration, SystemTime};

use super::view::{ProcessInfo, ProcessView};

/// Reads `/proc` on demand: nothing is read until a question is asked, so
/// a pane whose root process is the agent costs one read.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Live;

impl ProcessView for Live {
    fn info(&self, pid: u32) -> Option<ProcessInfo> {
        let s = stat(pid)?;
        Some(ProcessInfo {
            ppid: s.ppid,
            pgrp: s.pgrp,
            tpgid: u32::try_from(s.tpgid).ok().filter(|&p| p > 0),
            name: s.comm.to_lowercase(),
        })
    }

    fn argv(&self, pid: u32) -> Option<Vec<String>> {
        cmdline(pid)
    }

    fn children(&self, pid: u32) -> Vec<u32> {
        children(pid)
    }

    fn cwd(&self, pid: u32) -> Option<PathBuf> {
        cwd(pid)
    }

    fn environment(&self, pid: u32) -> Option<Vec<(String, String)>> {
        environ(pid)
    }

    fn started(&self, pid: u32) -> Option<SystemTime> {
        started(pid)
    }

    fn uid(&self, pid: u32) -> Option<u32> {
        uid(pid)
    }
}

/// Whether this system has a readable `/proc` for the current process
/// (containers and chroots may not mount it).
pub(crate) fn available() -> bool {
    fs::metadata(format!("/proc/{}/stat", std::process::id())).is_ok()
}

/// Fields of `/proc/<pid>/stat` that swarm uses.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ProcStat {
    /// Process id.
    pub pid: u32,
    /// Name of the executable, at most 15 bytes (`comm`).
    pub comm: String,
    /// Parent pid.
    pub ppid: u32,
    /// Process group.
    pub pgrp: u32,
    /// Foreground process group of the controlling terminal, or -1.
    pub tpgid: i64,
}

/// Parses the content of `/proc/<pid>/stat`. The command name is in
/// parentheses and may itself contain spaces and `)`, so it runs to the
/// last `)`.
pub(crate) fn parse_stat(text: &str) -> Option<ProcStat> {
    let open = text.find('(')?;
    let close = text.rfind(')')?;
    if close < open {
        return None;
    }
    let pid = text[..open].trim().parse().ok()?;
    let comm = text[open + 1..close].to_owned();
    // After ") ": state ppid pgrp session tty_nr tpgid ...
    let mut rest = text[close + 1..].split_ascii_whitespace();
    let _state = rest.next()?;
    let ppid = rest.next()?.parse().ok()?;
    let pgrp = rest.next()?.parse().ok()?;
    let _session = rest.next()?;
    let _tty = rest.next()?;
    let tpgid = rest.next()?.parse().ok()?;
    Some(ProcStat {
        pid,
        comm,
        ppid,
        pgrp,
        tpgid,
    })
}

/// `/proc/<pid>/stat`, parsed; `None` when the process is gone.
pub(crate) fn stat(pid: u32) -> Option<ProcStat> {
    let raw = read_proc(&format!("/proc/{pid}/stat"))?;
    parse_stat(&String::from_utf8_lossy(&raw))
}

/// The content of a small `/proc` file. Such files report a size of 0, so
/// `fs::read` asks for the size and then reads in growing steps (about ten
/// system calls for a `stat` line); here a buffer that holds a whole
/// typical file takes one read and the read that finds its end. A
/// broadcast reads two of these per recipient.
fn read_proc(path: &str) -> Option<Vec<u8>> {
    use std::io::{ErrorKind, Read};
    let mut file = fs::File::open(path).ok()?;
    let mut raw = vec![0u8; PROC_READ_SIZE];
    let mut len = 0;
    loop {
        if len == raw.len() {
            raw.resize(len * 2, 0);
        }
        match file.read(&mut raw[len..]) {
            Ok(0) => break,
            Ok(n) => len += n,
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(_) => return None,
        }
    }
    raw.truncate(len);
    Some(raw)
}

/// Room for a `stat` line or a typical argument vector in one read (the
/// buffer grows for a longer one).
const PROC_READ_SIZE: usize = 4096;

/// The argument vector of a process; empty for kernel threads, `None` when
/// the process is gone.
pub(crate) fn cmdline(pid: u32) -> Option<Vec<String>> {
    let raw = read_proc(&format!("/proc/{pid}/cmdline"))?;
    Some(
        raw.split(|&b| b == 0)
            .filter(|a| !a.is_empty())
            .map(|a| String::from_utf8_lossy(a).into_owned())
            .collect(),
    )
}

/// The environment a process was started with (`/proc/<pid>/environ`:
/// what it was given at `exec`, not later changes), when we may read it:
/// only the process's own user (or root) may.
pub(crate) fn environ(pid: u32) -> Option<Vec<(String, String)>> {
    let raw = read_proc(&format!("/proc/{pid}/environ"))?;
    Some(parse_environ(&raw))
}

/// `NAME=value` pairs of an `environ` file; entries without `=` are left
/// out.
fn parse_environ(raw: &[u8]) -> Vec<(String, String)> {
    raw.split(|&b| b == 0)
        .filter_map(|entry| {
            let text = String::from_utf8_lossy(entry);
            let (name, value) = text.split_once('=')?;
            Some((name.to_owned(), value.to_owned()))
        })
        .collect()
}

/// When a process started: the boot time (`btime` of `/proc/stat`) plus
/// its start in clock ticks (field 22 of `/proc/<pid>/stat`).
pub(crate) fn started(pid: u32) -> Option<SystemTime> {
    let raw = read_proc(&format!("/proc/{pid}/stat"))?;
    let text = String::from_utf8_lossy(&raw);
    let ticks = start_ticks(&text)?;
    let boot = fs::read_to_string("/proc/stat").ok()?;
    let btime: u64 = boot
        .lines()
        .find_map(|l| l.strip_prefix("btime "))?
        .trim()
        .parse()
        .ok()?;
    let per_second = crate::support::sys::clock_ticks_per_second()?;
    let since_boot = Duration::from_millis(ticks.saturating_mul(1000) / per_second);
    Some(SystemTime::UNIX_EPOCH + Duration::from_secs(btime) + since_boot)
}

/// Field 22 (`starttime`) of a `stat` line: the 20th after the command
/// name's closing parenthesis.
fn start_ticks(text: &str) -> Option<u64> {
    let close = text.rfind(')')?;
    text[close + 1..]
        .split_ascii_whitespace()
        .nth(19)?
        .parse()
        .ok()
}

/// The user a process runs as: the owner of its `/proc` directory, which
/// the kernel sets to its effective uid.
pub(crate) fn uid(pid: u32) -> Option<u32> {
    use std::os::unix::fs::MetadataExt;
    fs::metadata(format!("/proc/{pid}")).ok().map(|m| m.uid())
}

/// The working directory of a process, when we may read it.
pub(crate) fn cwd(pid: u32) -> Option<PathBuf> {
    fs::read_link(format!("/proc/{pid}/cwd")).ok()
}

/// Direct children of a process: the union of every thread's `children`
/// file (a multi-threaded parent such as node may fork from any thread).
/// Falls back to a scan of `/proc` on kernels without `children` files.
pub(crate) fn children(pid: u32) -> Vec<u32> {
    let Ok(tasks) = fs::read_dir(format!("/proc/{pid}/task")) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut have_children_files = false;
    for task in tasks.flatten() {
        if let Ok(text) = fs::read_to_string(task.path().join("children")) {
            have_children_files = true;
            out.extend(
                text.split_ascii_whitespace()
                    .filter_map(|p| p.parse::<u32>().ok()),
            );
        }
    }
    if !have_children_files {
        return scan_children(pid);
    }
    out.sort_unstable();
    out.dedup();
    out
}

fn scan_children(parent: u32) -> Vec<u32> {
    let Ok(entries) = fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|&pid| stat(pid).is_some_and(|s| s.ppid == parent))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn parses_stat_with_awkward_names() {
        let s = parse_stat("4242 (we ird) name)) S 17 4242 4242 34816 4300 4194304 0 0")
            .expect("parse");
        assert_eq!(s.pid, 4242);
        assert_eq!(s.comm, "we ird) name)");
        assert_eq!(s.ppid, 17);
        assert_eq!(s.pgrp, 4242);
        assert_eq!(s.tpgid, 4300);
        assert_eq!(
            parse_stat("1 (init) S 0 1 1 0 -1 0").map(|s| s.tpgid),
            Some(-1)
        );
        assert_eq!(parse_stat("garbage"), None);
        assert_eq!(parse_stat("1 )(x S 0 1 1 0 -1"), None);
    }

    #[test]
    fn reads_this_process() {
        let me = std::process::id();
        let s = stat(me).expect("own stat");
        assert_eq!(s.pid, me);
        assert!(cmdline(me).is_some_and(|a| !a.is_empty()));
        assert_eq!(cwd(me), std::env::current_dir().ok());
        assert_eq!(uid(me), Some(crate::support::sys::own_uid()));
        assert_eq!(uid(u32::MAX), None, "no such process");
    }

    #[test]
    fn reads_environment_and_start_time() {
        let mut child = std::process::Command::new("sleep")
            .arg("30")
            .env("SWARM_PROBE", "a=b")
            .spawn()
            .expect("spawn");
        // Until it has run `exec`, the child still shows this process's
        // environment.
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while cmdline(child.id())
            .and_then(|a| a.first().cloned())
            .as_deref()
            != Some("sleep")
            && std::time::Instant::now() < deadline
        {
            std::thread::yield_now();
        }
        let env = environ(child.id());
        let start = started(child.id());
        let _ = child.kill();
        let _ = child.wait();
        let env = env.expect("environ");
        assert!(env.contains(&("SWARM_PROBE".to_owned(), "a=b".to_owned())));
        let start = start.expect("start time");
        let age = SystemTime::now()
            .duration_since(start)
            .expect("in the past");
        assert!(age < Duration::from_secs(600), "{age:?}");
        assert_eq!(
            parse_environ(b"A=1\0junk\0B=\0"),
            vec![
                ("A".to_owned(), "1".to_owned()),
                ("B".to_owned(), String::new())
            ]
        );
    }

    #[test]
    fn finds_a_child() {
        let mut child = std::process::Command::new("sleep")
            .arg("30")
            .spawn()
            .expect("spawn");
        let me = std::process::id();
        let found = children(me).contains(&child.id()) && scan_children(me).contains(&child.id());
        let _ = child.kill();
        let _ = child.wait();
        assert!(found);
    }

    #[test]
    fn the_view_answers_for_this_process() {
        let me = std::process::id();
        let info = Live.info(me).expect("own info");
        assert_eq!(info.ppid, stat(me).expect("stat").ppid);
        assert!(available());
        assert_eq!(Live.cwd(me), std::env::current_dir().ok());
    }

    proptest! {
        #[test]
        fn stat_parser_never_panics(s in "\\PC*") {
            let _ = parse_stat(&s);
        }
    }
}
