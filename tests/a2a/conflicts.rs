//! `resolve-conflict`: every live lock of another agent covering the
//! path counts (exact, directory, pattern); the more urgent task wins,
//! else the holder; the decision is logged; no lock changes.

use serde_json::Value;

use super::{create_task, ok, run};
use crate::harness::{Project, stderr, stdout};

fn locks_snapshot(project: &Project) -> Vec<(String, String)> {
    project
        .ls(".agent_locks")
        .into_iter()
        .filter(|n| n.ends_with(".lock"))
        .map(|n| {
            let text = project.read(&format!(".agent_locks/{n}"));
            (n, text)
        })
        .collect()
}

#[test]
fn the_more_urgent_task_wins_else_the_holder_and_locks_are_untouched() {
    let project = Project::new();
    // The lock holders below are registered agents.
    project.register(&["agent-0", "agent-1", "agent-2", "agent-3"]);
    ok(
        &project,
        &[
            "lock",
            "src/",
            "--agent",
            "agent-1",
            "--reason",
            "restructure",
        ],
    );
    let locks = locks_snapshot(&project);
    // No tasks: the holder keeps it (seniority).
    let out = ok(
        &project,
        &[
            "resolve-conflict",
            "src/app/main.py",
            "--requester",
            "agent-0",
        ],
    );
    assert_eq!(
        out,
        "Conflict resolved: src/app/main.py\n  Winner: agent-1\n  Strategy: seniority\n  Message: Current holder has seniority (was working first)\n  Lock: src (held by agent-1)\n"
    );
    // agent-0 works on a critical task, agent-1 on a normal one.
    let urgent = create_task(
        &project,
        &["hotfix", "--creator", "agent-0", "--priority", "critical"],
    );
    ok(
        &project,
        &[
            "tasks",
            "update",
            &urgent,
            "--assignee",
            "agent-0",
            "--status",
            "working",
        ],
    );
    let normal = create_task(&project, &["restructure", "--creator", "agent-1"]);
    ok(
        &project,
        &["tasks", "update", &normal, "--assignee", "agent-1"],
    );
    let out = ok(
        &project,
        &[
            "resolve-conflict",
            "src/app/main.py",
            "--requester",
            "agent-0",
        ],
    );
    assert!(
        out.starts_with("Conflict resolved: src/app/main.py\n  Winner: agent-0\n  Strategy: priority\n  Message: Task priority: critical > normal\n"),
        "{out}"
    );
    // Seen from the holder's side, it should wait.
    let out = ok(
        &project,
        &[
            "resolve-conflict",
            "src/app/main.py",
            "--requester",
            "agent-0",
            "--json",
        ],
    );
    let json: Value = serde_json::from_str(&out).expect("JSON");
    let res = &json["conflicts"][0]["resolution"];
    assert_eq!(
        (&res["winner"], &res["loser_action"]),
        (&Value::from("agent-0"), &Value::from("yield"))
    );
    assert_eq!(json["conflicts"][0]["metadata"]["locked_path"], "src");
    // Advisory only: the lock files are byte for byte as they were.
    assert_eq!(locks_snapshot(&project), locks);
    let log: Value = serde_json::from_str(&project.read("CONFLICT_LOG.json")).expect("JSON");
    let log = log["conflicts"].as_array().expect("conflicts");
    assert_eq!(log.len(), 3);
    assert!(
        log.iter()
            .all(|c| c["status"] == "resolved" && c["conflict_type"] == "file_lock")
    );
    assert_eq!(
        log[0]["agents_involved"],
        serde_json::json!(["agent-0", "agent-1"])
    );
    assert_eq!(log[0]["metadata"]["lock_reason"], "restructure");
}

#[test]
fn patterns_count_stale_locks_do_not_and_the_holder_is_told_it_holds_it() {
    let project = Project::new();
    // The lock holders below are registered agents.
    project.register(&["agent-0", "agent-1", "agent-2", "agent-3"]);
    ok(&project, &["lock", "docs/*.md", "--agent", "agent-2"]);
    let out = ok(
        &project,
        &[
            "resolve-conflict",
            "docs/intro.md",
            "--requester",
            "agent-0",
        ],
    );
    assert!(
        out.contains("Winner: agent-2\n") && out.contains("  Lock: docs/*.md (held by agent-2)\n"),
        "{out}"
    );
    assert_eq!(
        ok(
            &project,
            &[
                "resolve-conflict",
                "docs/intro.md",
                "--requester",
                "agent-2"
            ]
        ),
        "You already hold the lock on: docs/intro.md\n"
    );
    assert_eq!(
        ok(
            &project,
            &[
                "resolve-conflict",
                "docs/sub/intro.txt",
                "--requester",
                "agent-0"
            ]
        ),
        "No lock conflict on: docs/sub/intro.txt\n"
    );
    // A lock older than the stale timeout (300 s) protects nothing.
    let name = swarm::lock_file_name("old.py");
    project.write(
        &format!(".agent_locks/{name}"),
        "{\n  \"agent_id\": \"agent-3\",\n  \"filepath\": \"old.py\",\n  \"locked_at\": 1000.5,\n  \"reason\": \"\"\n}",
    );
    assert_eq!(
        ok(
            &project,
            &["resolve-conflict", "old.py", "--requester", "agent-0"]
        ),
        "No lock conflict on: old.py\n"
    );
    // Outside the project: a clear error, not a traceback.
    let out = run(
        &project,
        &["resolve-conflict", "/etc/passwd", "--requester", "agent-0"],
    );
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    assert!(stderr(&out).contains("outside"), "{}", stderr(&out));
}
