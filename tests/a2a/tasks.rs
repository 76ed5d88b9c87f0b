//! Tasks through the binary: the workflow and its history in TASKS.json,
//! listing order and filters, ids by prefix, and concurrent creators.

use std::process::{Command, Stdio};

use serde_json::Value;

use super::{create_task, ok, run};
use crate::harness::{Project, stderr, stdout, swarm_bin};

fn task_json(project: &Project, id: &str) -> Value {
    let file: Value = serde_json::from_str(&project.read("TASKS.json")).expect("TASKS.json");
    file["tasks"][id].clone()
}

#[test]
fn a_task_goes_through_its_workflow_and_every_step_is_in_its_history() {
    let project = Project::new();
    let id = create_task(
        &project,
        &[
            "Write the parser",
            "--creator",
            "agent-0",
            "--priority",
            "high",
        ],
    );
    let short = &id[..8];
    // The id as `tasks list` shows it works, and so does a prefix.
    let listed = ok(&project, &["tasks", "list"]);
    assert_eq!(
        listed,
        format!(
            "=== Tasks (1) ===\n  \u{1f7e0} [pending   ] {short}... | Write the parser | unassigned\n"
        )
    );
    let steps: [(&[&str], &str); 5] = [
        (&["--assignee", "agent-1"], "assigned"),
        (&["--status", "working", "--agent-id", "agent-1"], "working"),
        (
            &["--status", "review", "--agent-id", "agent-1", "-m", "ready"],
            "review",
        ),
        (
            &[
                "--status",
                "working",
                "--agent-id",
                "agent-0",
                "-m",
                "needs tests",
            ],
            "working",
        ),
        (
            &["--status", "completed", "--agent-id", "agent-1"],
            "completed",
        ),
    ];
    for (i, (flags, status)) in steps.iter().enumerate() {
        let target = if i % 2 == 0 {
            format!("{short}...")
        } else {
            id.clone()
        };
        let mut args = vec!["tasks", "update", target.as_str()];
        args.extend_from_slice(flags);
        let out = ok(&project, &args);
        assert_eq!(
            out,
            format!("Task updated: {id}\n  Status: {status}\n  Assignee: agent-1\n")
        );
    }
    let task = task_json(&project, &id);
    let history: Vec<(Value, Value, Value, Value)> = task["history"]
        .as_array()
        .expect("history")
        .iter()
        .map(|h| {
            (
                h["from_status"].clone(),
                h["to_status"].clone(),
                h["agent_id"].clone(),
                h["message"].clone(),
            )
        })
        .collect();
    let s = |x: &str| Value::String(x.into());
    assert_eq!(
        history,
        [
            (Value::Null, s("pending"), s("agent-0"), s("Task created")),
            (s("pending"), s("assigned"), s("agent-1"), s("")),
            (s("assigned"), s("working"), s("agent-1"), s("")),
            (s("working"), s("review"), s("agent-1"), s("ready")),
            (s("review"), s("working"), s("agent-0"), s("needs tests")),
            (s("working"), s("completed"), s("agent-1"), s("")),
        ]
    );
    // Completed is final: the change is refused, exits 1, and the file
    // is not touched.
    let before = project.read("TASKS.json");
    let out = run(&project, &["tasks", "update", &id, "--status", "working"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("invalid transition: cannot transition from completed to working"),
        "{}",
        stderr(&out)
    );
    assert!(
        stderr(&out).contains("completed is final"),
        "{}",
        stderr(&out)
    );
    assert_eq!(project.read("TASKS.json"), before);
    // Finished tasks are hidden unless asked for (the original hid them
    // even from `--status completed`).
    assert_eq!(ok(&project, &["tasks", "list"]), "No tasks found.\n");
    assert!(ok(&project, &["tasks", "list", "--status", "completed"]).contains(short));
    assert!(ok(&project, &["tasks", "list", "--all"]).contains("[completed ]"));
    // Outside an agent's pane and without --agent-id, the change is made
    // by `cli`.
    let other = create_task(&project, &["Other", "--creator", "agent-0"]);
    ok(
        &project,
        &["tasks", "update", &other, "--status", "cancelled"],
    );
    assert_eq!(task_json(&project, &other)["history"][1]["agent_id"], "cli");
}

#[test]
fn the_workflow_table_holds_through_the_command_line() {
    // From each status reachable from pending, try every status; only
    // the spec's transitions are accepted.
    let project = Project::new();
    let allowed: [(&str, &[&str]); 6] = [
        ("pending", &["assigned", "cancelled"]),
        ("assigned", &["working", "blocked", "cancelled", "pending"]),
        (
            "working",
            &["review", "blocked", "failed", "cancelled", "completed"],
        ),
        ("review", &["completed", "working", "failed", "cancelled"]),
        (
            "blocked",
            &["pending", "assigned", "working", "cancelled", "failed"],
        ),
        ("failed", &["pending"]),
    ];
    let path_to: [(&str, &[&str]); 6] = [
        ("pending", &[]),
        ("assigned", &["assigned"]),
        ("working", &["assigned", "working"]),
        ("review", &["assigned", "working", "review"]),
        ("blocked", &["assigned", "blocked"]),
        ("failed", &["assigned", "working", "failed"]),
    ];
    let all = [
        "pending",
        "assigned",
        "working",
        "review",
        "completed",
        "blocked",
        "failed",
        "cancelled",
    ];
    for ((from, next), (_, path)) in allowed.iter().zip(path_to.iter()) {
        for to in all {
            let id = create_task(&project, &["t", "--creator", "agent-0"]);
            for step in *path {
                ok(&project, &["tasks", "update", &id, "--status", step]);
            }
            let out = run(&project, &["tasks", "update", &id, "--status", to]);
            let expected = if next.contains(&to) { 0 } else { 1 };
            assert_eq!(
                out.status.code(),
                Some(expected),
                "{from} -> {to}: {}",
                stderr(&out)
            );
        }
    }
}

#[test]
fn listing_sorts_by_priority_then_age_and_filters() {
    let project = Project::new();
    let low = create_task(
        &project,
        &["low one", "--creator", "agent-0", "--priority", "low"],
    );
    let crit = create_task(
        &project,
        &[
            "critical one",
            "--creator",
            "agent-0",
            "--priority",
            "critical",
        ],
    );
    let normal = create_task(&project, &["normal one", "--creator", "agent-0"]);
    let crit2 = create_task(
        &project,
        &[
            "critical two",
            "--creator",
            "agent-0",
            "--priority",
            "critical",
        ],
    );
    ok(
        &project,
        &["tasks", "update", &normal, "--assignee", "agent-3"],
    );
    let ids: Vec<String> =
        serde_json::from_str::<Vec<Value>>(&ok(&project, &["tasks", "list", "--json"]))
            .expect("JSON")
            .iter()
            .map(|t| t["task_id"].as_str().expect("id").to_owned())
            .collect();
    assert_eq!(ids, [crit.clone(), crit2, normal.clone(), low]);
    let mine = ok(&project, &["tasks", "list", "--assignee", "agent-3"]);
    assert!(
        mine.starts_with("=== Tasks (1) ===\n") && mine.contains("| agent-3\n"),
        "{mine}"
    );
    let out = ok(&project, &["tasks", "get", &crit[..6]]);
    assert!(
        out.starts_with(&format!(
            "=== Task: {crit} ===\n  Objective: critical one\n"
        )),
        "{out}"
    );
}

#[test]
fn tasks_get_shows_every_field_the_original_shows() {
    let project = Project::new();
    let id = create_task(
        &project,
        &[
            "Migrate users",
            "--creator",
            "agent-0",
            "--constraints",
            "no downtime, keep ids",
            "--files",
            "db/m1.sql,src/users.py",
            "--context-id",
            "feature-db",
        ],
    );
    let out = ok(&project, &["tasks", "get", &id]);
    let task = task_json(&project, &id);
    assert_eq!(
        out,
        format!(
            "=== Task: {id} ===\n  Objective: Migrate users\n  Status: pending\n  Priority: normal\n  Creator: agent-0\n  Assignee: unassigned\n  Constraints: no downtime, keep ids\n  Files: db/m1.sql, src/users.py\n  Created: {c}\n  Updated: {c}\n",
            c = task["created_at"].as_str().expect("time")
        )
    );
    assert_eq!(task["context_id"], "feature-db");
}

#[test]
fn concurrent_creators_lose_no_task() {
    let project = Project::new();
    let n = 16;
    let children: Vec<_> = (0..n)
        .map(|i| {
            Command::new(swarm_bin())
                .current_dir(project.path())
                .env_remove("TMUX")
                .env_remove("TMUX_PANE")
                .env_remove("CLAUDESWARM_ROOT")
                .args([
                    "tasks",
                    "create",
                    &format!("task number {i}"),
                    "--creator",
                    &format!("agent-{i}"),
                ])
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .expect("spawn")
        })
        .collect();
    for child in children {
        let out = child.wait_with_output().expect("wait");
        assert!(out.status.success(), "{}", stderr(&out));
        assert!(stderr(&out).is_empty(), "{}", stderr(&out));
        assert!(stdout(&out).starts_with("Task created: "));
    }
    let tasks: Vec<Value> =
        serde_json::from_str(&ok(&project, &["tasks", "list", "--json"])).expect("JSON");
    let mut objectives: Vec<String> = tasks
        .iter()
        .map(|t| t["objective"].as_str().expect("objective").to_owned())
        .collect();
    objectives.sort();
    let mut expected: Vec<String> = (0..n).map(|i| format!("task number {i}")).collect();
    expected.sort();
    assert_eq!(objectives, expected);
    // No temp file is left behind; only the data and its lock.
    let names: Vec<String> = project
        .ls(".")
        .into_iter()
        .filter(|n| n.contains("TASKS"))
        .collect();
    assert_eq!(names, [".TASKS.json.lock", "TASKS.json"]);
}

#[test]
fn of_concurrent_claimants_exactly_one_gets_the_task() {
    let project = Project::new();
    let id = create_task(&project, &["Fix the build", "--creator", "agent-0"]);
    let n = 8;
    let children: Vec<_> = (0..n)
        .map(|i| {
            Command::new(swarm_bin())
                .current_dir(project.path())
                .env_remove("TMUX")
                .env_remove("TMUX_PANE")
                .env_remove("CLAUDESWARM_ROOT")
                .args(["tasks", "claim", &id, "--agent-id", &format!("agent-{i}")])
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .expect("spawn")
        })
        .collect();
    let outs: Vec<_> = children
        .into_iter()
        .map(|c| c.wait_with_output().expect("wait"))
        .collect();
    let winners: Vec<usize> = (0..n).filter(|&i| outs[i].status.success()).collect();
    assert_eq!(winners.len(), 1, "{outs:?}");
    let winner = format!("agent-{}", winners[0]);
    assert_eq!(task_json(&project, &id)["assigned_to"], winner.as_str());
    for (i, out) in outs.iter().enumerate() {
        if i != winners[0] {
            assert_eq!(out.status.code(), Some(1));
            assert!(
                stderr(out).contains(&format!("held by {winner}")),
                "{}",
                stderr(out)
            );
        }
    }
    // The winner claiming again changes nothing; a missing task is exit 4.
    ok(
        &project,
        &["tasks", "claim", &id[..8], "--agent-id", &winner],
    );
    assert_eq!(
        run(
            &project,
            &["tasks", "claim", "ffffffff", "--agent-id", "agent-1"]
        )
        .status
        .code(),
        Some(4)
    );
}
