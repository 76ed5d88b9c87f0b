//! The edit guard judges the whole payload: `swarm hook claude` (what the
//! installed hooks run) and `swarm guard check-edit` refuse the same edits,
//! however large the tool call's input.

use std::io::Write;
use std::process::{Output, Stdio};

use crate::harness::{Project, swarm_outside_tmux, swarm_process};

/// A `PreToolUse` payload of Claude Code's `Write` tool for `file`, whose
/// content is `size` bytes.
fn write_payload(project: &Project, file: &str, size: usize) -> Vec<u8> {
    serde_json::json!({
        "session_id": "abc123",
        "transcript_path": "/tmp/t.jsonl",
        "cwd": project.path(),
        "permission_mode": "default",
        "hook_event_name": "PreToolUse",
        "tool_name": "Write",
        "tool_input": {"file_path": project.file(file), "content": "x".repeat(size)},
        "tool_use_id": "toolu_01"
    })
    .to_string()
    .into_bytes()
}

/// Runs swarm with `args` and `input` on stdin, outside tmux.
fn run_with_input(project: &Project, args: &[&str], input: &[u8]) -> Output {
    let mut child = swarm_process(project, None)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut stdin = child.stdin.take().expect("stdin");
    // A reader that stops early closes the pipe: what it read is what
    // the test checks, so that is no failure of the test itself.
    match stdin.write_all(input) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
        other => other.expect("write stdin"),
    }
    drop(stdin);
    child.wait_with_output().expect("wait")
}

#[test]
fn an_edit_under_a_lock_is_refused_however_large_its_payload() {
    let project = Project::new();
    project.register(&["agent-2"]);
    swarm_outside_tmux(&project)
        .args([
            "lock", "src/a.py", "--agent", "agent-2", "--reason", "refactor",
        ])
        .assert()
        .success();
    // Under, at and over the hook's 1 MiB read limit.
    for size in [1000, (1 << 20) - 300, (1 << 20) + 1, 3 << 20] {
        let payload = write_payload(&project, "src/a.py", size);
        for args in [&["hook", "claude"][..], &["guard", "check-edit"][..]] {
            let out = run_with_input(&project, args, &payload);
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(
                out.status.code(),
                Some(2),
                "{args:?} with {} bytes: {err}",
                payload.len()
            );
            assert!(err.contains("agent-2") && err.contains("refactor"), "{err}");
            assert!(out.stdout.is_empty());
        }
    }
    // A file nobody locked may be written, however large the payload.
    let payload = write_payload(&project, "src/b.py", 3 << 20);
    let out = run_with_input(&project, &["hook", "claude"], &payload);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
