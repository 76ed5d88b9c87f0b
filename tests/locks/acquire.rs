//! Taking locks: several at once all or nothing, the reason rule (a
//! blank reason counts as none, a long one is refused), and the holder
//! found from the pane (acting for another agent needs `--as-other` and is
//! recorded).

use swarm::lock_file_name;

use crate::harness::{Project, TmuxServer, stderr, stdout_json, swarm};

use super::{code, lock, lock_file, lock_files, registered_project};

#[test]
fn taking_several_locks_is_all_or_nothing() {
    let project = registered_project();
    assert_eq!(code(&lock(&project, "agent-1", &["b.py"])), Some(0));
    let out = lock(&project, "agent-2", &["a.py", "b.py", "c.py"]);
    assert_eq!(code(&out), Some(3));
    assert_eq!(lock_files(&project), [lock_file_name("b.py")]);
    assert_eq!(code(&lock(&project, "agent-2", &["a.py", "c.py"])), Some(0));
    assert_eq!(lock_files(&project).len(), 3);
}
#[test]
fn a_blank_reason_counts_as_none() {
    // The rule of `swarm_core::ops::lock`, the same over MCP: a reason
    // that cleans to nothing is no reason.
    let project = registered_project();
    for (path, blank) in [("a.py", ""), ("b.py", " \t "), ("c.py", "\x1b[31m")] {
        let out = lock(&project, "agent-1", &[path, "--reason", blank]);
        assert_eq!(code(&out), Some(0), "{}", stderr(&out));
        assert_eq!(
            lock_file(&project, path).expect("lock")["reason"],
            "working",
            "a new lock with the reason {blank:?} gets locking.default_reason"
        );
    }
    let out = lock(&project, "agent-1", &["a.py", "--reason", "schema change"]);
    assert_eq!(code(&out), Some(0), "{}", stderr(&out));
    let out = lock(&project, "agent-1", &["a.py", "--reason", ""]);
    assert_eq!(code(&out), Some(0), "{}", stderr(&out));
    assert_eq!(
        lock_file(&project, "a.py").expect("lock")["reason"],
        "schema change",
        "re-locking with a blank reason keeps the lock's own"
    );
    let long = "r".repeat(swarm_core::MAX_REASON_CHARS + 1);
    let out = lock(&project, "agent-1", &["d.py", "--reason", &long]);
    assert_eq!(code(&out), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("lock reason too long"),
        "{}",
        stderr(&out)
    );
    assert!(lock_file(&project, "d.py").is_none());
}
#[test]
fn the_holder_is_the_agent_of_the_pane_and_acting_for_another_is_recorded() {
    let server = TmuxServer::start();
    let project = Project::new();
    let pane = server.demo_agent(&project.path(), &project.file("a.jsonl"));
    swarm(&project, &server).arg("discover").assert().success();
    project.register(&["agent-7"]);
    let in_pane = |args: &[&str]| {
        swarm(&project, &server)
            .env("TMUX_PANE", &pane)
            .args(args)
            .output()
            .expect("run")
    };
    let out = in_pane(&["lock", "a.py", "--json"]);
    assert_eq!(code(&out), Some(0), "{}", stderr(&out));
    assert_eq!(stdout_json(&out)["acquired"][0]["agent_id"], "agent-0");
    // Naming another agent inside this pane needs --as-other.
    let out = in_pane(&["lock", "b.py", "--agent", "agent-7"]);
    assert_eq!(code(&out), Some(1));
    assert!(stderr(&out).contains("--as-other"), "{}", stderr(&out));
    let out = in_pane(&["lock", "a.py", "--agent", "agent-7", "--as-other", "--json"]);
    assert_eq!(code(&out), Some(3));
    let json = stdout_json(&out);
    assert_eq!(json["acquired"], serde_json::json!([]));
    assert_eq!(json["conflicts"][0]["agent_id"], "agent-0");
    let audit = project.read(".swarm/audit.log");
    assert!(
        audit.contains(r#""event": "as-other", "by": "agent-7""#),
        "{audit}"
    );
    // The pane's own agent releases without naming itself.
    assert_eq!(code(&in_pane(&["unlock", "a.py"])), Some(0));
    assert!(lock_file(&project, "a.py").is_none());
}
