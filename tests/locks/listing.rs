//! Listing locks (`swarm locks`, `swarm who`): nothing is ever deleted by
//! looking, stale locks are marked and taken over, and `who` reports
//! every lock that covers or overlaps a path.

use crate::harness::{stderr, stdout_json};

use super::{code, lock, lock_files, python_lock, registered_project, run, unix_now};

#[test]
fn listing_and_who_never_delete_anything() {
    let project = registered_project();
    python_lock(
        &project,
        "agent-1",
        "old.py",
        unix_now() - 1000.0,
        "long ago",
    );
    python_lock(&project, "agent-1", "new.py", unix_now(), "now");
    for args in [
        &["locks"][..],
        &["locks", "--include-stale"],
        &["list-all-locks", "--json"],
        &["who", "old.py"],
        &["who-has-lock", "old.py", "--json"],
    ] {
        let out = run(&project, args);
        assert_eq!(code(&out), Some(0), "{args:?}");
        assert_eq!(lock_files(&project).len(), 2, "{args:?} deleted a lock");
    }
    let out = run(&project, &["locks"]);
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        text.contains("new.py") && !text.contains("old.py"),
        "{text}"
    );
    let out = run(&project, &["who", "old.py", "--json"]);
    assert_eq!(stdout_json(&out)["locks"][0]["stale"], true);
    // A stale lock does not stop anyone; it is taken over.
    let out = lock(&project, "agent-2", &["old.py"]);
    assert_eq!(code(&out), Some(0), "{}", stderr(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains("Took over the stale lock of agent-1"));
    python_lock(&project, "agent-1", "older.py", unix_now() - 1000.0, "");
    let out = run(&project, &["locks", "--clean"]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("Cleaned up 1 stale lock(s)"));
    assert_eq!(lock_files(&project).len(), 2);
}

#[test]
fn who_reports_every_lock_that_covers_a_path() {
    let project = registered_project();
    assert_eq!(
        code(&lock(&project, "agent-1", &["src/", "--reason", "dir"])),
        Some(0)
    );
    assert_eq!(code(&lock(&project, "agent-2", &["lib/*.py"])), Some(0));
    let out = run(&project, &["who", "src/a.py", "--json"]);
    let json = stdout_json(&out);
    assert_eq!(json["path"], "src/a.py");
    assert_eq!(json["locks"][0]["agent_id"], "agent-1");
    let out = run(&project, &["who", "lib/x.py"]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("Lock on: lib/*.py (overlaps lib/x.py)"));
    let out = run(&project, &["who", "docs/x"]);
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "No active lock on: docs/x\n"
    );
}
