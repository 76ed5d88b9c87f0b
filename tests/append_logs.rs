//! Append-only logs that are not regular files: a FIFO (made with
//! `mkfifo`) at `feed.jsonl`, `audit.log`, `hook_errors.log`,
//! `watcher.log` or `agent_messages.log`. Opening a FIFO to write waits
//! for a reader that never comes; every command that appends to one of
//! these logs must instead end, refusing the log (or setting it aside)
//! with a message that names it.

use std::fs;
use std::io::Write;
use std::path::Path;
use std::process::{Child, Stdio};
use std::time::Instant;

use crate::harness::{PATIENCE, Project, TmuxServer, swarm, swarm_process};

/// One command run against a project whose log `log` is a FIFO.
struct Case {
    log: &'static str,
    args: &'static [&'static str],
    /// The command's standard input, when it reads one (the hook).
    stdin: Option<&'static [u8]>,
    /// Where the complaint is expected: the command's stderr, or (for the
    /// hook, which prints nothing an agent would show) nowhere but its
    /// ending.
    says_so: bool,
}

const CASES: &[Case] = &[
    Case {
        log: ".swarm/feed.jsonl",
        args: &["msg", "agent-1", "INFO", "--from", "agent-0", "hello"],
        stdin: None,
        says_so: true,
    },
    Case {
        log: ".swarm/feed.jsonl",
        args: &["broadcast", "INFO", "--from", "agent-0", "all"],
        stdin: None,
        says_so: true,
    },
    Case {
        log: ".swarm/feed.jsonl",
        args: &["lock", "a.txt", "--agent", "agent-0"],
        stdin: None,
        says_so: true,
    },
    Case {
        log: ".swarm/feed.jsonl",
        args: &["unlock", "held.txt", "--agent", "agent-1"],
        stdin: None,
        says_so: true,
    },
    Case {
        log: ".swarm/feed.jsonl",
        args: &["unlock", "held.txt", "--agent", "agent-0", "--force"],
        stdin: None,
        says_so: true,
    },
    Case {
        log: ".swarm/audit.log",
        args: &["unlock", "held.txt", "--agent", "agent-0", "--force"],
        stdin: None,
        says_so: true,
    },
    Case {
        log: ".swarm/hook_errors.log",
        args: &["hook", "claude"],
        stdin: Some(b"{ not json"),
        says_so: false,
    },
    Case {
        log: ".swarm/watcher.log",
        args: &["watcher", "start"],
        stdin: None,
        says_so: true,
    },
    Case {
        log: "agent_messages.log",
        args: &["msg", "agent-1", "INFO", "--from", "agent-0", "hello"],
        stdin: None,
        says_so: true,
    },
    Case {
        log: "agent_messages.log",
        args: &["broadcast", "INFO", "--from", "agent-0", "all"],
        stdin: None,
        says_so: true,
    },
];

fn mkfifo(path: &Path) {
    let ok = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .expect("mkfifo");
    assert!(ok.success(), "mkfifo {}", path.display());
}

/// A project with two agents, a lock `held.txt` held by agent-1, and a
/// FIFO at `log`.
fn project_with_fifo(server: &TmuxServer, log: &str) -> Project {
    let project = Project::new();
    project.register(&["agent-0", "agent-1"]);
    project.write(
        ".claudeswarm.toml",
        "[rate_limiting]\nmessages_per_minute = 1000\n\n[messaging]\ndelivery_pause_ms = 0\n",
    );
    swarm(&project, server)
        .args(["lock", "held.txt", "--agent", "agent-1"])
        .assert()
        .success();
    let path = project.file(log);
    if path.exists() {
        fs::remove_file(&path).expect("rm");
    }
    mkfifo(&path);
    project
}

#[test]
fn a_fifo_at_an_append_only_log_is_refused_not_waited_on() {
    let server = TmuxServer::start();
    let pane = server.shell(&server_dir());
    let mut running: Vec<(&Case, Project, Child)> = Vec::new();
    // Every case at once, each in its own project, under one deadline: a
    // command still running at the end hangs on its FIFO.
    for case in CASES {
        let project = project_with_fifo(&server, case.log);
        let err = fs::File::create(project.file("stderr.txt")).expect("stderr file");
        let mut cmd = swarm_process(&project, Some(&server));
        if case.args[0] == "hook" {
            // A hook runs in its agent's pane.
            cmd.env("TMUX_PANE", &pane);
        }
        cmd.args(case.args)
            .stdout(Stdio::null())
            .stderr(err)
            .stdin(if case.stdin.is_some() {
                Stdio::piped()
            } else {
                Stdio::null()
            });
        let mut child = cmd.spawn().expect("spawn swarm");
        if let (Some(input), Some(mut stdin)) = (case.stdin, child.stdin.take()) {
            let _ = stdin.write_all(input);
        }
        running.push((case, project, child));
    }
    let started = Instant::now();
    let mut failures = Vec::new();
    for (case, project, mut child) in running {
        let label = format!("{} with a FIFO at {}", case.args.join(" "), case.log);
        let ended = loop {
            if child.try_wait().expect("try_wait").is_some() {
                break true;
            }
            if started.elapsed() > PATIENCE {
                let _ = child.kill();
                let _ = child.wait();
                break false;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        };
        let stderr = fs::read_to_string(project.file("stderr.txt")).unwrap_or_default();
        if !ended {
            failures.push(format!("{label}: still running after {PATIENCE:?} (hangs)"));
            continue;
        }
        if stderr.contains("panicked") {
            failures.push(format!("{label}: panicked: {stderr}"));
        }
        let path = project.file(case.log).display().to_string();
        if case.says_so && !stderr.contains(&path) {
            failures.push(format!("{label}: nothing said about {path}: {stderr}"));
        }
        // The FIFO is left alone or set aside, never replaced by a file
        // written through it.
        let left = fs::symlink_metadata(project.file(case.log));
        if let Ok(m) = left
            && !std::os::unix::fs::FileTypeExt::is_fifo(&m.file_type())
            && case.log != "agent_messages.log"
        {
            failures.push(format!("{label}: the FIFO was replaced"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} commands:\n{}",
        failures.len(),
        CASES.len(),
        failures.join("\n")
    );
}

/// A directory for the pane's shell that outlives no project.
fn server_dir() -> std::path::PathBuf {
    std::env::temp_dir()
}
