//! Delegation through the binary, with the spec's numbers (15.3): file
//! and keyword importances, the priority boost, the specialization bonus
//! and the score of a task that needs no particular skill.

use serde_json::{Value, json};
use swarm::{Layout, to_vec};

use super::{create_task, ok, run};
use crate::harness::{Project, stderr};

/// Four cards, written the way the Python tool writes them.
fn cards(project: &Project) {
    let at = "2025-11-18T14:30:00.123456+00:00";
    let card = |id: &str, skills: Value, rates: Value, specs: Value, availability: &str| {
        json!({"agent_id": id, "name": id, "description": "", "skills": skills, "tools": [],
               "availability": availability, "success_rates": rates, "specializations": specs,
               "metadata": {}, "created_at": at, "updated_at": at})
    };
    let file = json!({
        "version": "1.0", "updated_at": at,
        "cards": {
            "agent-0": card("agent-0", json!(["python", "backend"]), json!({"python": 0.9}), json!([]), "active"),
            "agent-1": card("agent-1", json!(["Python"]), json!({}), json!(["python"]), "active"),
            "agent-2": card("agent-2", json!(["python", "backend"]), json!({"python": 1.0, "backend": 1.0}), json!([]), "busy"),
            "agent-3": card("agent-3", json!([]), json!({}), json!([]), "active"),
        }
    });
    std::fs::write(
        project.file("AGENT_CARDS.json"),
        to_vec(&file, Layout::Indent2).expect("JSON"),
    )
    .expect("write");
}

fn history(project: &Project) -> Vec<Value> {
    let file: Value = serde_json::from_str(&project.read("DELEGATION_HISTORY.json")).expect("JSON");
    file["history"].as_array().expect("history").clone()
}

#[test]
fn the_best_card_gets_the_task_with_the_spec_scores() {
    let project = Project::new();
    cards(&project);
    // src/parser.py: python, backend (0.8 each); "fix": debugging (0.7);
    // high priority: +0.05.
    let id = create_task(
        &project,
        &[
            "Fix the parser",
            "--creator",
            "agent-9",
            "--files",
            "src/parser.py",
            "--priority",
            "high",
        ],
    );
    // agent-0: python 0.9, backend 0.5 (a skill without a rate), debugging 0.
    let base0 = (0.9 * 0.8 + 0.5 * 0.8 + 0.0 * 0.7) / (0.8 + 0.8 + 0.7);
    let expected0: f64 = f64::min(1.0, base0 + 0.0 + 0.05);
    // agent-1: python 0.5 (skills compare without case), plus the
    // specialization bonus 0.05 x 0.8; agent-2 is busy; agent-3 knows
    // nothing and gets only the boost.
    let base1 = (0.5 * 0.8 + 0.0 * 0.8 + 0.0 * 0.7) / (0.8 + 0.8 + 0.7);
    let alt1: f64 = f64::min(1.0, base1 + 0.05 * 0.8 + 0.0);
    let out = ok(&project, &["delegate", &id]);
    assert_eq!(
        out,
        format!(
            "Task delegated successfully!\n  Task: {id}\n  Assigned to: agent-0\n  Match score: {expected0:.2}\n  Matched skills: python, backend\n"
        )
    );
    assert_eq!(format!("{expected0:.2}"), "0.54");
    let h = history(&project);
    assert_eq!(h.len(), 1);
    assert_eq!(h[0]["success"], true);
    assert_eq!(h[0]["match_score"].as_f64(), Some(expected0));
    assert_eq!(
        h[0]["skill_matches"],
        json!({"python": 0.9, "backend": 0.5, "debugging": 0.0})
    );
    assert_eq!(h[0]["reason"], "Task delegated to agent-0");
    // Alternatives are scored without the priority boost; agent-3
    // scores 0 then and is left out.
    assert_eq!(h[0]["alternatives"], json!([["agent-1", alt1]]));
    // The task is assigned, by the assignee, with the score in the
    // history message.
    let tasks: Value = serde_json::from_str(&project.read("TASKS.json")).expect("JSON");
    let task = &tasks["tasks"][&id];
    assert_eq!(
        (&task["status"], &task["assigned_to"]),
        (&json!("assigned"), &json!("agent-0"))
    );
    assert_eq!(task["history"][1]["agent_id"], "agent-0");
    assert_eq!(
        task["history"][1]["message"],
        "Delegated based on skill match (score: 0.54)"
    );
    // find-agent agrees, without storing anything.
    let found: Value = serde_json::from_str(&ok(
        &project,
        &["find-agent", "--objective", "Fix the api", "--json"],
    ))
    .expect("JSON");
    assert_eq!(found["agent_id"], "agent-0");
}

#[test]
fn a_task_needing_no_skill_scores_half_plus_its_priority_boost() {
    let project = Project::new();
    cards(&project);
    for (priority, score) in [
        ("critical", "0.60"),
        ("high", "0.55"),
        ("normal", "0.50"),
        ("low", "0.45"),
    ] {
        let id = create_task(
            &project,
            &["Do it", "--creator", "agent-9", "--priority", priority],
        );
        let out = ok(&project, &["delegate", &id, "--json"]);
        let result: Value = serde_json::from_str(&out).expect("JSON");
        // Every active card ties; the first in the file wins.
        assert_eq!(result["agent_id"], "agent-0", "{priority}");
        assert_eq!(
            format!("{:.2}", result["match_score"].as_f64().expect("score")),
            score,
            "{priority}"
        );
        assert_eq!(result["skill_matches"], json!({}));
    }
    assert_eq!(
        ok(&project, &["find-agent", "--objective", "Do it"]),
        "Best agent for: Do it\n  Agent: agent-0\n  Score: 0.50\n  Matched skills: none\n"
    );
}

#[test]
fn no_suitable_agent_is_recorded_and_a_finished_task_is_refused() {
    let project = Project::new();
    cards(&project);
    // Low priority and nobody knows kotlin or android: every score is
    // 0 - 0.05.
    let id = create_task(
        &project,
        &[
            "x",
            "--creator",
            "agent-9",
            "--files",
            "Main.kt",
            "--priority",
            "low",
        ],
    );
    let out = run(&project, &["delegate", &id]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("no suitable agent found for this task"),
        "{}",
        stderr(&out)
    );
    let h = history(&project);
    assert_eq!(
        (
            &h[0]["success"],
            &h[0]["agent_id"],
            &h[0]["match_score"],
            &h[0]["reason"]
        ),
        (
            &json!(false),
            &Value::Null,
            &json!(0.0),
            &json!("No suitable agent found for this task")
        )
    );
    let tasks: Value = serde_json::from_str(&project.read("TASKS.json")).expect("JSON");
    assert_eq!(tasks["tasks"][&id]["status"], "pending");
    // A cancelled task is not delegated (the original assigned it anyway).
    ok(&project, &["tasks", "update", &id, "--status", "cancelled"]);
    let out = run(&project, &["delegate", &id]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("is cancelled: only open tasks can be delegated"),
        "{}",
        stderr(&out)
    );
    assert_eq!(history(&project).len(), 1);
}
