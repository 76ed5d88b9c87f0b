//! The file formats both tools share: files written the way the Python
//! tool writes them are read (including records swarm cannot use, which
//! are kept untouched), and what swarm writes has exactly their shape.

use serde_json::{Value, json};
use swarm::{Layout, to_vec};

use super::{create_task, ok, run};
use crate::harness::{Project, redacted, stderr};

/// Writes `value` as the Python tool does: `json.dump(data, f, indent=2)`.
fn python_file(project: &Project, rel: &str, value: &Value) {
    if let Some(dir) = std::path::Path::new(rel).parent() {
        std::fs::create_dir_all(project.file(&dir.to_string_lossy())).expect("mkdir");
    }
    std::fs::write(
        project.file(rel),
        to_vec(value, Layout::Indent2).expect("JSON"),
    )
    .expect("write");
}

fn python_task(
    id: &str,
    objective: &str,
    status: &str,
    priority: &str,
    assignee: Value,
    at: &str,
) -> Value {
    json!({
        "task_id": id, "objective": objective, "status": status, "priority": priority,
        "created_by": "agent-0", "assigned_to": assignee, "context_id": null,
        "constraints": [], "files": ["src/app.py"], "blocked_by": [], "blocks": [],
        "result": null, "error": null,
        "history": [{"timestamp": at, "from_status": null, "to_status": "pending",
                     "agent_id": "agent-0", "message": "Task created", "metadata": {}}],
        "metadata": {}, "created_at": at, "updated_at": at, "parent_task_id": null
    })
}

#[test]
fn files_written_by_the_python_tool_are_read() {
    let project = Project::new();
    // Python's isoformat() drops the fraction when it is zero.
    let at = "2025-11-18T14:30:00+00:00";
    python_file(
        &project,
        "AGENT_CARDS.json",
        &json!({
            "version": "1.0", "updated_at": at,
            "cards": {
                "agent-0": {"agent_id": "agent-0", "name": "Backend", "skills": ["python", "api"],
                            "tools": ["Read"], "availability": "active",
                            "success_rates": {"api": 0.8, "python": 0.55}, "specializations": [],
                            "metadata": {}, "created_at": at, "updated_at": at},
                "agent-9": {"agent_id": "agent-9", "availability": "sleeping"}
            }
        }),
    );
    python_file(
        &project,
        "TASKS.json",
        &json!({
            "version": "1.0", "updated_at": at,
            "tasks": {
                "aaaa1111-0000-4000-8000-000000000001": python_task("aaaa1111-0000-4000-8000-000000000001", "Caf\u{e9} menu", "working", "high", json!("agent-0"), at),
                "aaaa2222-0000-4000-8000-000000000002": python_task("aaaa2222-0000-4000-8000-000000000002", "Second", "pending", "low", Value::Null, at),
                "bbbb3333-0000-4000-8000-000000000003": {"task_id": "bbbb3333-0000-4000-8000-000000000003", "objective": "Broken", "status": "someday"}
            }
        }),
    );
    python_file(
        &project,
        "LEARNING_DATA.json",
        &json!({
            "version": "1.0", "updated_at": at,
            "agents": {"agent-0": {
                "agent_id": "agent-0", "tasks_completed": 7, "tasks_failed": 2, "tasks_in_progress": 1,
                "skill_metrics": {
                    "python": {"skill": "python", "success_count": 5, "failure_count": 1, "total_count": 6, "success_rate": 0.6513, "avg_completion_time": 300.0, "last_used": at, "trend": 0},
                    "api": {"skill": "api", "success_count": 2, "failure_count": 0, "total_count": 2, "success_rate": 0.595, "avg_completion_time": 0.0, "last_used": at, "trend": 0},
                    "sql": {"skill": "sql", "success_count": 0, "failure_count": 1, "total_count": 1, "success_rate": 0.45, "avg_completion_time": 0.0, "last_used": at, "trend": 0},
                    "go": {"skill": "go", "success_count": 1, "failure_count": 0, "total_count": 1, "success_rate": 0.55, "avg_completion_time": 0.0, "last_used": at, "trend": 0},
                    "css": {"skill": "css", "success_count": 1, "failure_count": 0, "total_count": 1, "success_rate": 0.55, "avg_completion_time": 0.0, "last_used": at, "trend": 0},
                    "bash": {"skill": "bash", "success_count": 0, "failure_count": 0, "total_count": 0, "success_rate": 0.5, "avg_completion_time": 0.0, "last_used": null, "trend": 0}
                },
                "overall_success_rate": 0.6, "avg_response_time": 12.345, "avg_completion_time": 300.0,
                "last_active": at, "created_at": at, "metadata": {}
            }}
        }),
    );
    let pattern = |n: u32| {
        json!({"pattern_id": format!("{n:012x}"), "pattern_type": "approach",
        "description": format!("pattern {n}"), "context": "", "effectiveness": 0.5, "occurrences": 1,
        "created_at": at, "last_seen": at})
    };
    python_file(
        &project,
        ".agent_memory/agent-0.json",
        &json!({
            "agent_id": "agent-0",
            "task_history": [{"task_id": "t", "objective": "o", "outcome": "success", "skills_used": [],
                              "files_touched": [], "duration_seconds": 1.5, "lessons_learned": [], "timestamp": at}],
            "patterns": [pattern(1), pattern(2), pattern(3), pattern(4)],
            "relationships": {"agent-1": {"agent_id": "agent-1", "trust_score": 0.715, "reliability_score": 0.6,
                "speed_score": 0.5, "collaboration_count": 3, "positive_interactions": 2, "negative_interactions": 1,
                "strengths": [], "last_interaction": at, "notes": ""}},
            "knowledge": {"db": "postgres", "ci": "github"}, "preferences": {},
            "created_at": at, "updated_at": at
        }),
    );
    // Cards: the unusable one is skipped with a warning, the rest read;
    // success rates best first.
    let out = run(&project, &["cards", "get", "agent-0"]);
    assert_eq!(
        super::stdout(&out),
        "=== Agent Card: agent-0 ===\n  Name: Backend\n  Description: \n  Availability: active\n  Skills: python, api\n  Tools: Read\n  Success Rates:\n    api: 80.0%\n    python: 55.0%\n"
    );
    assert!(
        stderr(&out).contains("record \"agent-9\""),
        "{}",
        stderr(&out)
    );
    // Tasks: by priority, the broken one skipped.
    assert_eq!(
        ok(&project, &["tasks", "list"]),
        "=== Tasks (2) ===\n  \u{1f7e0} [working   ] aaaa1111... | Caf\u{e9} menu | agent-0\n  \u{26aa} [pending   ] aaaa2222... | Second | unassigned\n"
    );
    let out = run(&project, &["tasks", "get", "aaaa"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("task id \"aaaa\" matches 2 tasks"),
        "{}",
        stderr(&out)
    );
    assert!(
        stderr(&out).contains("aaaa1111-0000-4000-8000-000000000001, aaaa2222"),
        "{}",
        stderr(&out)
    );
    assert!(
        ok(&project, &["tasks", "get", "aaaa2"]).contains("  Created: 2025-11-18T14:30:00+00:00\n")
    );
    // Learning stats: the top five skills by success rate.
    assert_eq!(
        ok(&project, &["learning", "stats", "--agent-id", "agent-0"]),
        "=== Learning Stats: agent-0 ===\n  Tasks completed: 7\n  Tasks failed: 2\n  Average response time: 12.3s\n\n  Skill Performance:\n    python: 65.1% (5/6)\n    api: 59.5% (2/2)\n    go: 55.0% (1/1)\n    css: 55.0% (1/1)\n    bash: 50.0% (0/0)\n"
    );
    // Memory: three patterns and three relationships at most (the
    // original crashed as soon as there was a pattern).
    assert_eq!(
        ok(&project, &["memory", "get", "--agent-id", "agent-0"]),
        "=== Memory: agent-0 ===\n  Task history: 1 tasks\n  Patterns learned: 4 patterns\n  Relationships: 1 agents\n  Knowledge items: 2 items\n\n  Recent Patterns:\n    - approach: pattern 1\n    - approach: pattern 2\n    - approach: pattern 3\n\n  Agent Relationships:\n    - agent-1: trust=0.71, collaborations=3\n"
    );

    // A write changes only what it must: the other tasks, readable or
    // not, are exactly as the Python tool wrote them.
    let before: Value = serde_json::from_str(&project.read("TASKS.json")).expect("JSON");
    ok(
        &project,
        &[
            "tasks",
            "update",
            "aaaa2",
            "--status",
            "cancelled",
            "--agent-id",
            "agent-0",
        ],
    );
    let after: Value = serde_json::from_str(&project.read("TASKS.json")).expect("JSON");
    for id in [
        "aaaa1111-0000-4000-8000-000000000001",
        "bbbb3333-0000-4000-8000-000000000003",
    ] {
        assert_eq!(after["tasks"][id], before["tasks"][id], "{id}");
    }
    let changed = &after["tasks"]["aaaa2222-0000-4000-8000-000000000002"];
    assert_eq!(changed["status"], "cancelled");
    assert_eq!(
        changed["history"][0],
        before["tasks"]["aaaa2222-0000-4000-8000-000000000002"]["history"][0]
    );
    let keys = |v: &Value| {
        v.as_object()
            .expect("object")
            .keys()
            .cloned()
            .collect::<Vec<_>>()
    };
    assert_eq!(keys(&after), ["version", "updated_at", "tasks"]);
    assert_eq!(
        keys(&after["tasks"]),
        [
            "aaaa1111-0000-4000-8000-000000000001",
            "aaaa2222-0000-4000-8000-000000000002",
            "bbbb3333-0000-4000-8000-000000000003"
        ]
    );
    // The same for cards: the unusable card survives a registration.
    ok(
        &project,
        &[
            "cards",
            "register",
            "--agent-id",
            "agent-1",
            "--skills",
            "go",
        ],
    );
    let cards: Value = serde_json::from_str(&project.read("AGENT_CARDS.json")).expect("JSON");
    assert_eq!(
        cards["cards"]["agent-9"],
        json!({"agent_id": "agent-9", "availability": "sleeping"})
    );
    assert_eq!(keys(&cards["cards"]), ["agent-0", "agent-9", "agent-1"]);
}

#[test]
fn what_swarm_writes_has_the_python_shape() {
    let project = Project::new();
    // The lock holders below are registered agents.
    project.register(&["agent-0", "agent-1", "agent-2", "agent-3"]);
    ok(
        &project,
        &[
            "cards",
            "register",
            "--agent-id",
            "agent-0",
            "--name",
            "R\u{e9}mi",
            "--skills",
            "python,testing",
            "--tools",
            "Read,Edit",
        ],
    );
    ok(
        &project,
        &[
            "cards",
            "register",
            "--agent-id",
            "agent-1",
            "--skills",
            "python",
        ],
    );
    let id = create_task(
        &project,
        &[
            "Test the r\u{e9}sum\u{e9} parser",
            "--creator",
            "agent-2",
            "--files",
            "src/cv.py",
            "--constraints",
            "fast",
            "--priority",
            "high",
        ],
    );
    ok(&project, &["delegate", &id]);
    ok(
        &project,
        &[
            "tasks",
            "update",
            &id,
            "--status",
            "working",
            "--agent-id",
            "agent-0",
            "-m",
            "started",
        ],
    );
    ok(
        &project,
        &[
            "context",
            "create",
            "feature-cv",
            "CV parsing",
            "--creator",
            "agent-2",
            "--related",
            "feature-io",
        ],
    );
    ok(
        &project,
        &[
            "context",
            "add-decision",
            "feature-cv",
            "Use a state machine",
            "--reason",
            "simple",
            "--by",
            "agent-0",
        ],
    );
    ok(
        &project,
        &[
            "lock",
            "src/*.py",
            "--agent",
            "agent-0",
            "--reason",
            "parser work",
        ],
    );
    ok(
        &project,
        &["resolve-conflict", "src/cv.py", "--requester", "agent-1"],
    );
    for (file, name) in [
        ("AGENT_CARDS.json", "a2a_agent_cards_file"),
        ("TASKS.json", "a2a_tasks_file"),
        ("DELEGATION_HISTORY.json", "a2a_delegation_history_file"),
        ("CONTEXTS.json", "a2a_contexts_file"),
        ("CONFLICT_LOG.json", "a2a_conflict_log_file"),
    ] {
        let text = project.read(file);
        // json.dump writes no final newline and only ASCII.
        assert!(!text.ends_with('\n') && text.is_ascii(), "{file}");
        let mut settings = insta::Settings::clone_current();
        // Beside every other snapshot, in tests/snapshots.
        settings.set_snapshot_path("../snapshots");
        settings.add_filter(
            r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}",
            "[uuid]",
        );
        settings.bind(|| redacted(|| insta::assert_snapshot!(name, text)));
    }
}

#[test]
fn text_from_the_files_never_reaches_the_terminal_raw() {
    let project = Project::new();
    let hostile = "evil\u{1b}]0;pwned\u{7}\u{1b}[2J\r\nline\u{202e}";
    let at = "2025-11-18T14:30:00+00:00";
    let mut task = python_task("cccc", hostile, "pending", "normal", json!(hostile), at);
    task["constraints"] = json!([hostile]);
    python_file(
        &project,
        "TASKS.json",
        &json!({"version": "1.0", "updated_at": at, "tasks": {"cccc": task}}),
    );
    python_file(
        &project,
        "AGENT_CARDS.json",
        &json!({"version": "1.0", "updated_at": at, "cards": {
        "agent-0": {"agent_id": "agent-0", "name": hostile, "description": hostile, "skills": [hostile]}}}),
    );
    python_file(
        &project,
        "CONTEXTS.json",
        &json!({"version": "1.0", "updated_at": at, "contexts": {
        "c": {"context_id": "c", "name": "c", "summary": hostile,
              "decisions": [{"decision": hostile, "by": hostile, "reason": hostile}]}}}),
    );
    for args in [
        &["tasks", "list"][..],
        &["tasks", "get", "cccc"],
        &["cards", "list"],
        &["cards", "get", "agent-0"],
        &["context", "list"],
        &["context", "get", "c"],
    ] {
        let out = ok(&project, args);
        assert!(
            out.contains("evil") && out.contains("line"),
            "{args:?}: {out}"
        );
        assert!(
            !out.contains('\u{1b}')
                && !out.contains('\u{7}')
                && !out.contains('\r')
                && !out.contains('\u{202e}'),
            "{args:?}: {out:?}"
        );
        // Stored text stays on its own line of the table.
        assert!(!out.contains("\nline"), "{args:?}: {out:?}");
    }
}
