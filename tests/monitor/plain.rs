//! The plain stream: what `swarm monitor` prints when stdout is not a
//! terminal (or with `--plain`), line by line as things happen; its
//! filters; and a quiet exit when the reader goes away.

use std::io::{BufRead, BufReader, Read};
use std::process::{Child, ChildStdout};

use serde_json::json;

use crate::harness::monitor::{Stream, command, wait_exit};
use crate::harness::{Project, redacted, swarm_outside_tmux, wait_for};

/// Kills the child when a test fails half-way.
struct Guard(Child);

impl Drop for Guard {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A message line as the Python tool and swarm write it.
fn log_line(id: &str, from: &str, to: &[&str], kind: &str, when: &str, content: &str) -> String {
    json!({
        "sender": from, "timestamp": when, "msg_type": kind, "content": content,
        "recipients": to, "msg_id": id,
        "delivery_status": to.iter().map(|r| (r.to_string(), json!(true))).collect::<serde_json::Map<_, _>>(),
        "success_count": to.len(), "failure_count": 0
    })
    .to_string()
}

fn append(project: &Project, line: &str) {
    use std::io::Write;
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .open(project.file("agent_messages.log"))
        .expect("open the log");
    writeln!(f, "{line}").expect("append");
}

/// Writes a file the way swarm does (complete, then renamed into place).
fn put(project: &Project, rel: &str, text: &str) {
    let temp = project.file(".put-tmp");
    std::fs::write(&temp, text).expect("write");
    std::fs::rename(&temp, project.file(rel)).expect("rename");
}

fn registry(agents: &[&str]) -> String {
    let agents: Vec<serde_json::Value> = agents
        .iter()
        .enumerate()
        .map(|(i, id)| {
            json!({"id": id, "pane_index": format!("swarm:0.{i}"), "pid": 10 + i,
                   "status": "active", "last_seen": "2026-11-21T13:26:58.589963+00:00",
                   "session_name": "swarm", "tmux_pane_id": format!("%{i}")})
        })
        .collect();
    json!({"session_name": "swarm", "updated_at": "2026-11-21T13:26:58.589963+00:00",
           "agents": agents, "session_names": ["swarm"]})
    .to_string()
}

const LOCK_FILE: &str =
    ".agent_locks/4cb4854bf9d4ea6bf9cb31f4eda6b48b73b87992490f60aace407970d380db90.lock";

#[test]
fn the_stream_prints_history_then_every_change_as_it_happens() {
    let project = Project::new();
    project.write(
        "agent_messages.log",
        &([
            log_line(
                "m1",
                "agent-0",
                &["agent-1"],
                "INFO",
                "2026-11-21T13:20:00.000000+00:00",
                "schema v2 merged",
            ),
            "not a message".into(),
            log_line(
                "m2",
                "agent-1",
                &["agent-0", "agent-2"],
                "BLOCKED",
                "2026-11-21T13:21:30.500000+00:00",
                "need src/a.py\nsoon",
            ),
        ]
        .join("\n")
            + "\n"),
    );
    put(
        &project,
        "ACTIVE_AGENTS.json",
        &registry(&["agent-0", "agent-1"]),
    );
    // stdout is a pipe: plain lines without being asked.
    let mut stream = Stream::start(&project, &[]);
    stream.expect("watching");
    append(
        &project,
        &log_line(
            "m3",
            "agent-2",
            &["agent-1"],
            "QUESTION",
            "2026-11-21T13:22:00.000000+00:00",
            "which \x1b[31mschema\x1b[0m?",
        ),
    );
    stream.expect("which schema?");
    std::fs::create_dir(project.file(".agent_locks")).expect("mkdir");
    let lock = json!({"agent_id": "agent-1", "filepath": "src/a.py", "locked_at": 1_000_000_000.5, "reason": "editing a"});
    put(&project, LOCK_FILE, &lock.to_string());
    stream.expect("taken by agent-1");
    put(
        &project,
        "ACTIVE_AGENTS.json",
        &registry(&["agent-0", "agent-1", "agent-2"]),
    );
    stream.expect("agent-2 joined");
    std::fs::remove_file(project.file(LOCK_FILE)).expect("unlock");
    stream.expect("released");
    let (status, lines, stderr) = stream.stop();
    assert!(status.success(), "{status:?} {stderr}");
    assert_eq!(stderr, "");
    for line in &lines {
        assert!(!line.contains('\x1b'), "{line:?}");
    }
    let mut settings = insta::Settings::clone_current();
    settings.add_filter(r"-- \d\d:\d\d:\d\d", "-- [time]");
    settings.bind(|| {
        super::snapshots(|| {
            redacted(|| insta::assert_snapshot!("monitor_plain_stream", lines.join("\n")))
        })
    });
}

#[test]
fn filters_keep_only_what_was_asked_for() {
    let project = Project::new();
    let now = chrono::Utc::now();
    let ago = |m: i64| swarm::time::utc_iso(now - chrono::Duration::minutes(m));
    project.write(
        "agent_messages.log",
        &([
            log_line(
                "o1",
                "agent-2",
                &["agent-0"],
                "BLOCKED",
                &ago(60),
                "too old",
            ),
            log_line(
                "n1",
                "agent-2",
                &["agent-0"],
                "BLOCKED",
                &ago(5),
                "sent by agent-2",
            ),
            log_line(
                "n2",
                "agent-1",
                &["agent-2"],
                "BLOCKED",
                &ago(4),
                "sent to agent-2",
            ),
            log_line("n3", "agent-2", &["agent-0"], "INFO", &ago(3), "wrong type"),
            log_line(
                "n4",
                "agent-1",
                &["agent-3"],
                "BLOCKED",
                &ago(2),
                "other agents",
            ),
            log_line("n5", "agent-1", &["all"], "BLOCKED", &ago(1), "to everyone"),
        ]
        .join("\n")
            + "\n"),
    );
    let mut stream = Stream::start(
        &project,
        &[
            "--plain",
            "--filter-type",
            "blocked",
            "--filter-agent",
            "agent-2",
            "--since",
            "10m",
        ],
    );
    stream.expect("watching");
    let (status, lines, _) = stream.stop();
    assert!(status.success());
    let contents: Vec<&str> = lines
        .iter()
        .filter(|l| l.starts_with('['))
        .filter_map(|l| l.split_once(": ").map(|(_, c)| c))
        .collect();
    assert_eq!(
        contents,
        ["sent by agent-2", "sent to agent-2", "to everyone"]
    );
}

#[test]
fn bad_filters_are_refused_before_anything_starts() {
    let project = Project::new();
    for (args, says) in [
        (&["--filter-type", "urgent"][..], "valid types: QUESTION"),
        (&["--filter-agent", "no spaces"][..], "--filter-agent"),
        (&["--since", "5 parsecs"][..], "invalid duration"),
        (&["--from", "x y"][..], "--from"),
    ] {
        let out = swarm_outside_tmux(&project)
            .arg("monitor")
            .args(args)
            .output()
            .expect("run");
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(says), "{args:?}: {stderr}");
    }
}

#[test]
fn a_closed_pipe_ends_the_stream_quietly() {
    let project = Project::new();
    project.write(
        "agent_messages.log",
        &(log_line(
            "m1",
            "agent-0",
            &["agent-1"],
            "INFO",
            "2026-11-21T13:20:00+00:00",
            "first",
        ) + "\n"),
    );
    let mut guard = Guard(command(&project, &["--plain"]).spawn().expect("start"));
    let child = &mut guard.0;
    let stdout: ChildStdout = child.stdout.take().expect("stdout");
    let mut reader = BufReader::new(stdout);
    let mut first = String::new();
    reader.read_line(&mut first).expect("read");
    assert!(first.contains("first"), "{first}");
    // The reader goes away (like `| head -1`); the next line written
    // meets a closed pipe. Lines keep coming until the monitor exits: a
    // child spawned by another test at that moment can hold a copy of the
    // pipe for an instant, and a write that lands then still succeeds.
    drop(reader);
    let mut n = 0;
    let status = wait_for("the monitor to exit on a closed pipe", || {
        n += 1;
        let when = format!("2026-11-21T13:21:{:02}+00:00", n % 60);
        append(
            &project,
            &log_line(
                &format!("m{n}"),
                "agent-0",
                &["agent-1"],
                "INFO",
                &when,
                "more",
            ),
        );
        child.try_wait().expect("wait")
    });
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .expect("stderr")
        .read_to_string(&mut stderr)
        .expect("read");
    assert!(status.success(), "{status:?}");
    assert_eq!(stderr, "");
}

#[test]
fn a_closed_pipe_ends_the_stream_even_when_nothing_happens() {
    let project = Project::new();
    project.write(
        "agent_messages.log",
        &(log_line(
            "m1",
            "agent-0",
            &["agent-1"],
            "INFO",
            "2026-11-21T13:20:00+00:00",
            "only",
        ) + "\n"),
    );
    let mut guard = Guard(command(&project, &["--plain"]).spawn().expect("start"));
    let child = &mut guard.0;
    let mut reader = BufReader::new(child.stdout.take().expect("stdout"));
    let mut first = String::new();
    reader.read_line(&mut first).expect("read");
    assert!(first.contains("only"), "{first}");
    // Like `swarm monitor | head -1`: nothing new is ever written, and
    // the monitor still notices that nobody reads any more.
    drop(reader);
    let status = wait_exit(child);
    assert!(status.success(), "{status:?}");
}

#[test]
fn the_python_name_and_arguments_still_work() {
    let project = Project::new();
    project.write(
        "agent_messages.log",
        &([
            log_line(
                "m1",
                "agent-0",
                &["agent-1"],
                "INFO",
                "2026-11-21T13:20:00+00:00",
                "not this",
            ),
            log_line(
                "m2",
                "agent-0",
                &["agent-1"],
                "BLOCKED",
                "2026-11-21T13:21:00+00:00",
                "this",
            ),
        ]
        .join("\n")
            + "\n"),
    );
    let mut stream = Stream::new(
        &project,
        &[
            "--filter-type",
            "BLOCKED",
            "--filter-agent",
            "agent-1",
            "--no-tmux",
        ],
        "start-monitoring",
    );
    stream.expect("watching");
    let (status, lines, stderr) = stream.stop();
    assert!(status.success(), "{stderr}");
    assert_eq!(lines[0], "[agent-0][13:21:00][BLOCKED] -> agent-1: this");
    assert_eq!(lines.len(), 2, "{lines:?}");
}

#[test]
fn only_the_type_is_coloured_and_only_when_asked() {
    let project = Project::new();
    project.write(
        "agent_messages.log",
        &(log_line(
            "m1",
            "agent-0",
            &["agent-1"],
            "BLOCKED",
            "2026-11-21T13:20:00+00:00",
            "stuck",
        ) + "\n"),
    );
    let mut plain = Stream::start(&project, &[]);
    let line = plain.expect("stuck");
    assert_eq!(line, "[agent-0][13:20:00][BLOCKED] -> agent-1: stuck");
    plain.stop();
    let mut coloured = Stream::start(&project, &["--color", "always"]);
    let line = coloured.expect("stuck");
    assert_eq!(
        line,
        "[agent-0][13:20:00][\u{1b}[91mBLOCKED\u{1b}[39m] -> agent-1: stuck"
    );
    coloured.stop();
}
