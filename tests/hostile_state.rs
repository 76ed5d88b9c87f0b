//! Hostile state: every state file truncated, emptied, filled with binary
//! garbage, given the wrong JSON shape, replaced by a symlink pointing out
//! of the project, by a directory (which even root cannot read as a file)
//! or by a FIFO (which would block a reader forever). Every command then ends with a documented exit code and a clear
//! message, never a panic, and the damaged content is preserved: left in
//! place, or moved aside to `<name>.corrupt-<time>`, never overwritten.

use std::fs;
use std::path::Path;

use crate::harness::{Project, TmuxServer, corrupt_copies, swarm};

#[derive(Clone, Copy, Debug)]
enum Damage {
    Truncated,
    Empty,
    Garbage,
    WrongShape,
    SymlinkOut,
    Directory,
    Fifo,
}

const DAMAGES: [Damage; 7] = [
    Damage::Truncated,
    Damage::Empty,
    Damage::Garbage,
    Damage::WrongShape,
    Damage::SymlinkOut,
    Damage::Directory,
    Damage::Fifo,
];

/// State files, and valid JSON of the wrong shape for each.
const FILES: [(&str, &str); 8] = [
    (
        "ACTIVE_AGENTS.json",
        r#"{"session_name": 1, "agents": "none"}"#,
    ),
    (
        "agent_messages.log",
        "[1, 2]\n{\"sender\": 5, \"recipients\": \"agent-0\"}\n",
    ),
    (
        "PENDING_ACKS.json",
        r#"{"version": "x", "pending_acks": {"a": 1}}"#,
    ),
    (".swarm/agent_ids.json", r#"{"next": "many"}"#),
    (".swarm/read_cursors.json", "[]"),
    (".swarm/last_read_messages.json", "[1, 2, 3]"),
    (
        ".swarm/rate_limits.json",
        r#"{"version": 1, "senders": {"t": "often"}}"#,
    ),
    (".claudeswarm.toml", "rate_limiting = 5\n"),
];

const BASE_CONFIG: &str =
    "[rate_limiting]\nmessages_per_minute = 1000\n\n[messaging]\ndelivery_pause_ms = 0\n";

/// The commands run against each damaged project.
const COMMANDS: [&[&str]; 8] = [
    &["agents"],
    &["discover"],
    &["msg", "agent-0", "INFO", "--from", "operator", "hello"],
    &["broadcast", "INFO", "--from", "operator", "all"],
    &["inbox", "--agent", "agent-0", "--new"],
    &["acks"],
    &["ack", "abcdef12", "--agent", "agent-0"],
    &["doctor"],
];

/// Brings the project back to a healthy state with every state file present.
fn baseline(project: &Project, server: &TmuxServer) {
    for (rel, _) in FILES {
        remove(&project.file(rel));
    }
    for entry in fs::read_dir(project.path()).expect("ls").flatten() {
        if entry.file_name().to_string_lossy().contains(".corrupt-") {
            remove(&entry.path());
        }
    }
    for entry in fs::read_dir(project.file(".swarm"))
        .into_iter()
        .flatten()
        .flatten()
    {
        if entry.file_name().to_string_lossy().contains(".corrupt-") {
            remove(&entry.path());
        }
    }
    project.write(".claudeswarm.toml", BASE_CONFIG);
    swarm(project, server).arg("discover").assert().success();
    swarm(project, server)
        .args([
            "msg", "agent-0", "QUESTION", "--from", "operator", "--ack", "ready?",
        ])
        .assert()
        .success();
    swarm(project, server)
        .args(["inbox", "--agent", "agent-0", "--new"])
        .assert()
        .success();
    for (rel, _) in FILES {
        assert!(project.file(rel).exists(), "baseline lacks {rel}");
    }
}

fn remove(path: &Path) {
    match fs::symlink_metadata(path) {
        Ok(m) if m.is_dir() => fs::remove_dir_all(path).expect("rm dir"),
        Ok(_) => fs::remove_file(path).expect("rm"),
        Err(_) => {}
    }
}

/// Damages the file; returns the bytes that must survive somewhere.
fn damage(path: &Path, how: Damage, wrong: &str, outside: &Path) -> Option<Vec<u8>> {
    let good = fs::read(path).expect("baseline content");
    remove(path);
    let bytes: Vec<u8> = match how {
        Damage::Truncated => good[..good.len() / 2].to_vec(),
        Damage::Empty => Vec::new(),
        Damage::Garbage => vec![
            0xff, 0x00, 0x1b, b'[', b'2', b'J', 0xfe, b'{', 0x80, b'\n', 0x07,
        ],
        Damage::WrongShape => wrong.as_bytes().to_vec(),
        Damage::SymlinkOut => {
            std::os::unix::fs::symlink(outside, path).expect("symlink");
            return None;
        }
        Damage::Directory => {
            fs::create_dir(path).expect("mkdir");
            fs::write(path.join("inside"), "kept").expect("write");
            return None;
        }
        // Opening a FIFO for reading blocks until a writer comes: no
        // command may hang on one.
        Damage::Fifo => {
            let ok = std::process::Command::new("mkfifo")
                .arg(path)
                .status()
                .expect("mkfifo");
            assert!(ok.success());
            return None;
        }
    };
    fs::write(path, &bytes).expect("write damage");
    Some(bytes)
}

/// The damaged bytes are still at the path or in a `.corrupt-` sibling.
fn preserved(path: &Path, bytes: &[u8]) -> bool {
    fs::read(path).is_ok_and(|now| now.starts_with(bytes))
        || corrupt_copies(path).iter().any(|b| b == bytes)
}

#[test]
fn damaged_state_files_never_crash_a_command_or_get_overwritten() {
    let server = TmuxServer::start();
    let project = Project::new();
    server.demo_agent(&project.path(), &project.file("rec.jsonl"));
    let elsewhere = tempfile::tempdir().expect("tempdir");
    let outside = elsewhere.path().join("outside.json");
    let secret = "{\"secret\": \"do-not-print-or-touch\"}";
    let mut failures = Vec::new();
    let mut runs = 0;
    for (rel, wrong) in FILES {
        for how in DAMAGES {
            fs::write(&outside, secret).expect("write outside");
            baseline(&project, &server);
            let path = project.file(rel);
            let kept = damage(&path, how, wrong, &outside);
            for args in COMMANDS {
                runs += 1;
                let out = swarm(&project, &server).args(args).output().expect("run");
                let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
                let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
                let code = out.status.code();
                let label = format!("{rel} {how:?} `{}`", args.join(" "));
                if !matches!(code, Some(0 | 1 | 4 | 5 | 6 | 7)) || stderr.contains("panicked") {
                    failures.push(format!("{label}: exit {code:?}: {stderr}"));
                }
                if code == Some(1) && args[0] != "doctor" && !stderr.contains("swarm: error:") {
                    failures.push(format!(
                        "{label}: failed without an error message: {stderr}"
                    ));
                }
                if stdout.contains("do-not-print") || stderr.contains("do-not-print") {
                    failures.push(format!("{label}: printed the symlink target's content"));
                }
            }
            if let Some(bytes) = &kept
                && !preserved(&path, bytes)
            {
                failures.push(format!(
                    "{rel} {how:?}: the damaged content was overwritten"
                ));
            }
            if fs::read_to_string(&outside).expect("outside") != secret {
                failures.push(format!("{rel} {how:?}: wrote through the symlink"));
            }
        }
    }
    assert!(runs >= 8 * 7 * 8);
    assert!(
        failures.is_empty(),
        "{} problems in {runs} runs:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn a_registry_edited_by_hand_cannot_put_escape_sequences_on_the_terminal() {
    let server = TmuxServer::start();
    let project = Project::new();
    let pane = server.shell(&project.path());
    let pid = server.tmux(&["display-message", "-p", "-t", &pane, "#{pane_pid}"]);
    // A title-setting sequence and colours in the free-text fields.
    project.write(
        "ACTIVE_AGENTS.json",
        &format!(
            r#"{{"session_name": "s", "updated_at": "2026-11-21T00:00:00+00:00", "agents": [{{"id": "agent-0", "pane_index": "x\u001b]0;owned\u0007\u001b[31mred", "pid": {}, "status": "active", "last_seen": "\u001b[2J", "session_name": "\u001b[5mblink", "tmux_pane_id": "%999"}}]}}"#,
            pid.trim()
        ),
    );
    for args in [["agents"].as_slice(), ["whoami"].as_slice()] {
        let out = swarm(&project, &server)
            .env("TMUX_PANE", &pane)
            .args(args)
            .output()
            .expect("run");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            !text.contains('\u{1b}') && !text.contains('\u{7}'),
            "{args:?}: {text:?}"
        );
        assert!(text.contains("agent-0"), "{args:?}: {text:?}");
    }
}
