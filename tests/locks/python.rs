//! The Python tool's locks: its pattern locks and absolute spellings
//! seen, its command forms (`acquire-file-lock`), and its lock file
//! format read, and written by swarm byte for byte in its shape.

use swarm::lock_file_name;

use crate::harness::{stderr, stdout_json};

use super::{code, lock, lock_file, python_lock, registered_project, run, unix_now};

#[test]
fn a_pattern_lock_written_by_the_python_tool_is_seen() {
    let project = registered_project();
    // Our own lock first, so that swarm's index exists and describes the
    // directory; the Python tool then adds a pattern behind its back.
    assert_eq!(code(&lock(&project, "agent-1", &["docs/x.md"])), Some(0));
    python_lock(&project, "agent-9", "src/*.py", unix_now(), "python");
    let out = lock(&project, "agent-2", &["src/a.py"]);
    assert_eq!(code(&out), Some(3), "{}", stderr(&out));
    assert!(stderr(&out).contains("agent-9"), "{}", stderr(&out));
    // The Python tool's own spelling of an absolute path is one lock too.
    let absolute = project.file("lib/c.py").to_string_lossy().into_owned();
    python_lock(&project, "agent-9", &absolute, unix_now(), "");
    let out = lock(&project, "agent-2", &["lib/c.py"]);
    assert_eq!(code(&out), Some(3), "{}", stderr(&out));
}
#[test]
fn the_python_tools_command_forms_work() {
    let project = registered_project();
    let out = run(
        &project,
        &[
            "acquire-file-lock",
            "a.py",
            "because",
            "--agent-id",
            "agent-1",
        ],
    );
    assert_eq!(code(&out), Some(0), "{}", stderr(&out));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "Lock acquired on: a.py\n  Agent: agent-1\n  Reason: because\n"
    );
    assert_eq!(
        lock_file(&project, "a.py").expect("lock")["reason"],
        "because"
    );
    let out = run(
        &project,
        &["acquire-file-lock", "a.py", "--agent-id", "agent-2"],
    );
    assert_eq!(code(&out), Some(3));
}

#[test]
fn a_python_lock_file_is_read_and_ours_has_exactly_its_shape() {
    let project = registered_project();
    // Byte for byte what the Python tool writes (docs/FORMATS.md).
    python_lock(
        &project,
        "agent-1",
        "src/a.py",
        1795267578.9710896,
        "editing a",
    );
    let out = run(&project, &["who", "src/a.py", "--json"]);
    let json = stdout_json(&out);
    assert_eq!(json["locks"][0]["agent_id"], "agent-1");
    assert_eq!(json["locks"][0]["locked_at"], 1795267578.9710896);
    assert_eq!(json["locks"][0]["reason"], "editing a");
    // Ours, for another file.
    assert_eq!(
        code(&lock(
            &project,
            "agent-2",
            &["src/b.py", "--reason", "editing b"]
        )),
        Some(0)
    );
    let name = lock_file_name("src/b.py");
    let ours = project.read(&format!(".agent_locks/{name}"));
    let mut settings = insta::Settings::clone_current();
    settings.add_filter(r#""locked_at": \d+(\.\d+)?"#, r#""locked_at": [time]"#);
    settings.set_prepend_module_to_snapshot(false);
    settings.set_snapshot_path("../snapshots");
    settings.bind(|| insta::assert_snapshot!("lock_file", ours));
    assert!(!ours.ends_with('\n'));
    // `swarm locks` as people see it.
    let out = run(&project, &["locks", "--include-stale"]);
    let mut settings = insta::Settings::clone_current();
    settings.add_filter(r"Locked at: .* UTC", "Locked at: [time] UTC");
    settings.add_filter(r"Age: [0-9.]+ seconds", "Age: [age] seconds");
    settings.set_prepend_module_to_snapshot(false);
    settings.set_snapshot_path("../snapshots");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    settings.bind(|| insta::assert_snapshot!("locks_list", text));
}
