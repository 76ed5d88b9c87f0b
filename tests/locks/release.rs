//! Releasing locks: only the holder releases, `--force` releases another
//! agent's lock and records it in the audit log.

use crate::harness::stderr;

use super::{code, lock, lock_file, registered_project, run};

#[test]
fn only_the_holder_releases_and_force_is_recorded() {
    let project = registered_project();
    assert_eq!(
        code(&lock(&project, "agent-1", &["a.py", "--reason", "mine"])),
        Some(0)
    );
    let out = run(&project, &["unlock", "a.py", "--agent", "agent-2"]);
    assert_eq!(code(&out), Some(3));
    assert!(
        stderr(&out).contains("locked by agent-1"),
        "{}",
        stderr(&out)
    );
    assert!(lock_file(&project, "a.py").is_some());
    let out = run(
        &project,
        &[
            "release-file-lock",
            "a.py",
            "--agent-id",
            "agent-2",
            "--force",
        ],
    );
    assert_eq!(code(&out), Some(0), "{}", stderr(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains("held by agent-1"));
    assert!(lock_file(&project, "a.py").is_none());
    let audit: serde_json::Value =
        serde_json::from_str(project.read(".swarm/audit.log").trim()).expect("one JSON line");
    assert_eq!(audit["event"], "force-unlock");
    assert_eq!(audit["by"], "agent-2");
    assert_eq!(audit["holder"], "agent-1");
    assert_eq!(audit["path"], "a.py");
    assert_eq!(audit["reason"], "mine");
    // Releasing what nobody holds is fine.
    let out = run(&project, &["unlock", "a.py", "--agent", "agent-1"]);
    assert_eq!(code(&out), Some(0));
}
