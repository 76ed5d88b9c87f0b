//! Every A2A command with its original argument shape: the happy paths
//! with their exact output, and the errors with their exit codes.

use super::{ok, run};
use crate::harness::{Project, TmuxServer, stderr, stdout, swarm};

/// One command: arguments, the exit code, and text that stdout must be
/// (`Exact`) or contain, or that stderr must contain.
enum Expect {
    Exact(&'static str),
    Stdout(&'static str),
    Stderr(&'static str),
}

#[test]
fn each_command_with_its_original_arguments() {
    use Expect::*;
    let project = Project::new();
    let table: Vec<(Vec<&str>, i32, Expect)> = vec![
        (
            vec!["cards", "list"],
            0,
            Exact("No agent cards registered.\n"),
        ),
        (
            vec![
                "cards",
                "register",
                "--agent-id",
                "agent-0",
                "--name",
                "Backend",
                "--description",
                "APIs and data",
                "--skills",
                "python, api,testing,sql",
                "--tools",
                "Read,Edit",
            ],
            0,
            Exact(
                "Agent card registered: agent-0\n  Name: Backend\n  Skills: python, api, testing, sql\n  Tools: Read, Edit\n",
            ),
        ),
        (
            vec![
                "cards",
                "register",
                "--agent-id",
                "agent-1",
                "--skills",
                "rust",
            ],
            0,
            Exact(
                "Agent card registered: agent-1\n  Name: agent-1\n  Skills: rust\n  Tools: none\n",
            ),
        ),
        // Registering again without --skills, --tools or --name keeps them
        // (the original emptied them and renamed the card to its id).
        (
            vec!["cards", "register", "--agent-id", "agent-0"],
            0,
            Exact(
                "Agent card registered: agent-0\n  Name: Backend\n  Skills: python, api, testing, sql\n  Tools: Read, Edit\n",
            ),
        ),
        (
            vec![
                "cards",
                "update",
                "--agent-id",
                "agent-1",
                "--availability",
                "busy",
            ],
            0,
            Exact("Agent card updated: agent-1\n"),
        ),
        // --description works (the original crashed on it).
        (
            vec![
                "cards",
                "update",
                "--agent-id",
                "agent-1",
                "--description",
                "systems work",
            ],
            0,
            Exact("Agent card updated: agent-1\n"),
        ),
        (
            vec!["cards", "update", "--agent-id", "agent-1"],
            2,
            Stderr("required"),
        ),
        (
            vec![
                "cards",
                "update",
                "--agent-id",
                "agent-1",
                "--availability",
                "away",
            ],
            2,
            Stderr("possible values: active, busy, offline"),
        ),
        (
            vec!["cards", "update", "--agent-id", "agent-9", "--name", "x"],
            4,
            Stderr("no card found for agent: agent-9"),
        ),
        (
            vec!["cards", "list"],
            0,
            Exact(
                "=== Agent Cards (2) ===\n  \u{2713} agent-0      | Backend              | Skills: python, api, testing (+1 more)\n  \u{26a0} agent-1      | agent-1              | Skills: rust\n",
            ),
        ),
        (
            vec!["cards", "get", "agent-0"],
            0,
            Exact(
                "=== Agent Card: agent-0 ===\n  Name: Backend\n  Description: APIs and data\n  Availability: active\n  Skills: python, api, testing, sql\n  Tools: Read, Edit\n",
            ),
        ),
        (
            vec!["cards", "get", "agent-0", "--json"],
            0,
            Stdout("\"description\": \"APIs and data\""),
        ),
        (
            vec!["cards", "get", "agent-9"],
            4,
            Stderr("no card found for agent: agent-9"),
        ),
        (vec!["cards", "register"], 1, Stderr("--agent is required")),
        (
            vec!["cards", "register", "--agent-id", "bad id"],
            1,
            Stderr("invalid characters"),
        ),
        (vec!["tasks", "list"], 0, Exact("No tasks found.\n")),
        (
            vec!["tasks", "list", "--status", "completed"],
            0,
            Exact("No tasks found.\n"),
        ),
        (
            vec!["tasks", "list", "--status", "done"],
            2,
            Stderr("possible values"),
        ),
        (
            vec!["tasks", "get", "nope"],
            4,
            Stderr("task not found: nope"),
        ),
        (
            vec!["tasks", "create", "Write tests"],
            1,
            Stderr("--agent is required"),
        ),
        (
            vec!["tasks", "create", "  ", "--creator", "agent-0"],
            1,
            Stderr("the objective is empty"),
        ),
        (
            vec![
                "tasks",
                "create",
                "x",
                "--creator",
                "agent-0",
                "--priority",
                "urgent",
            ],
            2,
            Stderr("possible values: low, normal, high, critical"),
        ),
        (
            vec!["tasks", "update", "nope", "--status", "working"],
            4,
            Stderr("task not found"),
        ),
        (vec!["tasks", "update", "nope"], 2, Stderr("required")),
        (vec!["delegate", "nope"], 4, Stderr("task not found: nope")),
        (vec!["find-agent"], 2, Stderr("required")),
        (
            vec!["find-agent", "--skill", "a", "--objective", "b"],
            2,
            Stderr("cannot be used with"),
        ),
        // Only agents that have the skill (the original listed the others
        // at 0%), and only active ones.
        (
            vec!["find-agent", "--skill", "PYTHON"],
            0,
            Exact("=== Agents with 'PYTHON' skill (1) ===\n  agent-0      | Proficiency: 50.0%\n"),
        ),
        (
            vec!["find-agent", "--skill", "rust"],
            0,
            Exact("No agents found with skill: rust\n"),
        ),
        (
            vec!["find-agent", "--skill", "go", "--json"],
            0,
            Exact("[]\n"),
        ),
        // testing, api, backend, debugging (0.7 each): (0.5 + 0.5) x 0.7 / 2.8.
        (
            vec!["find-agent", "--objective", "Fix the API tests"],
            0,
            Exact(
                "Best agent for: Fix the API tests\n  Agent: agent-0\n  Score: 0.25\n  Matched skills: testing: 50.0%, api: 50.0%, backend: 0.0%, debugging: 0.0%\n",
            ),
        ),
        (
            vec!["find-agent", "--objective", "add a migration"],
            0,
            Exact("No suitable agent found.\n"),
        ),
        (
            vec!["find-agent", "--objective", "add a migration", "--json"],
            0,
            Exact("{}\n"),
        ),
        (vec!["context", "list"], 0, Exact("No contexts found.\n")),
        (
            vec![
                "context",
                "create",
                "feature-auth",
                "JWT authentication",
                "--creator",
                "agent-0",
                "--related",
                "feature-api,feature-db",
            ],
            0,
            Exact("Context created: feature-auth\n  Summary: JWT authentication\n"),
        ),
        // An existing context is not replaced silently.
        (
            vec![
                "context",
                "create",
                "feature-auth",
                "other",
                "--creator",
                "agent-0",
            ],
            1,
            Stderr("context feature-auth already exists"),
        ),
        (
            vec![
                "context",
                "add-decision",
                "feature-auth",
                "Use HS256",
                "--reason",
                "one key",
                "--by",
                "agent-1",
            ],
            0,
            Exact(
                "Decision added to context: feature-auth\n  Decision: Use HS256\n  By: agent-1\n",
            ),
        ),
        (
            vec![
                "context",
                "add-decision",
                "feature-auth",
                "No reason",
                "--by",
                "agent-0",
            ],
            0,
            Stdout("By: agent-0"),
        ),
        (
            vec!["context", "add-decision", "nope", "x", "--by", "agent-0"],
            4,
            Stderr("context not found: nope"),
        ),
        (
            vec!["context", "get", "feature-auth"],
            0,
            Exact(
                "=== Context: feature-auth ===\n  Summary: JWT authentication\n  Related: feature-api, feature-db\n  Decisions:\n    - Use HS256 (by agent-1)\n      Reason: one key\n    - No reason (by agent-0)\n",
            ),
        ),
        (
            vec!["context", "list"],
            0,
            Exact(
                "=== Shared Contexts (1) ===\n  feature-auth         | JWT authentication | 0 files, 2 decisions\n",
            ),
        ),
        (
            vec!["context", "get", "nope"],
            4,
            Stderr("context not found: nope"),
        ),
        (
            vec!["context", "create", "a b", "s", "--creator", "agent-0"],
            1,
            Stderr("is not a context id"),
        ),
        (
            vec![
                "context",
                "create",
                "feature-auth",
                "Replaced",
                "--creator",
                "agent-0",
                "--force",
            ],
            0,
            Exact("Context created: feature-auth\n  Summary: Replaced\n"),
        ),
        (
            vec!["memory", "get", "--agent-id", "agent-0"],
            0,
            Exact(
                "=== Memory: agent-0 ===\n  Task history: 0 tasks\n  Patterns learned: 0 patterns\n  Relationships: 0 agents\n  Knowledge items: 0 items\n",
            ),
        ),
        (vec!["memory", "get"], 1, Stderr("--agent is required")),
        (
            vec!["memory", "get", "--agent-id", "../etc"],
            1,
            Stderr("invalid characters"),
        ),
        (
            vec!["memory", "clear", "--agent-id", "agent-0"],
            0,
            Exact("No memory stored for agent: agent-0 (nothing to clear)\n"),
        ),
        (
            vec!["learning", "stats", "--agent-id", "agent-0"],
            0,
            Exact(
                "=== Learning Stats: agent-0 ===\n  Tasks completed: 0\n  Tasks failed: 0\n  Average response time: 0.0s\n",
            ),
        ),
        (
            vec!["learning", "stats", "--agent-id", "agent-0", "--json"],
            0,
            Stdout("\"overall_success_rate\": 0.5"),
        ),
        // The lock is looked up before the requester is needed.
        (
            vec!["resolve-conflict", "src/free.py"],
            0,
            Exact("No lock conflict on: src/free.py\n"),
        ),
        (
            vec!["--project-root", ".", "cards", "list", "--json"],
            0,
            Stdout("\"agent_id\": \"agent-0\""),
        ),
    ];
    for (args, code, expect) in &table {
        let out = run(&project, args);
        assert_eq!(
            out.status.code(),
            Some(*code),
            "{args:?}\nstdout: {}\nstderr: {}",
            stdout(&out),
            stderr(&out)
        );
        match expect {
            Exact(text) => assert_eq!(stdout(&out), *text, "{args:?}"),
            Stdout(part) => assert!(stdout(&out).contains(part), "{args:?}: {}", stdout(&out)),
            Stderr(part) => assert!(stderr(&out).contains(part), "{args:?}: {}", stderr(&out)),
        }
    }
    // Reading memory and learning stats stored nothing.
    assert!(!project.file(".agent_memory").exists());
    assert!(!project.file("LEARNING_DATA.json").exists());
    // find-agent --objective stored no task (the original stored one per
    // query).
    assert_eq!(ok(&project, &["tasks", "list", "--all", "--json"]), "[]\n");
}

#[test]
fn groups_without_a_subcommand_print_their_help_and_exit_2() {
    let project = Project::new();
    for group in ["cards", "tasks", "context", "memory", "learning"] {
        let out = run(&project, &[group]);
        assert_eq!(out.status.code(), Some(2), "{group}");
        let text = format!("{}{}", stdout(&out), stderr(&out));
        assert!(text.contains(&format!("Usage: swarm {group}")), "{text}");
        assert!(text.contains("Commands:"), "{text}");
    }
}

#[test]
fn help_lists_them_under_their_own_heading_and_as_python_names() {
    let project = Project::new();
    let help = ok(&project, &["--help"]);
    let section = help
        .split("\nTasks (the Python tool's agent-to-agent commands):\n")
        .nth(1)
        .and_then(|rest| rest.split("\n\n").next())
        .expect("a Tasks section");
    // One `\n  NAME ` per command listed there.
    let section: String = crate::harness::listed_commands(section)
        .iter()
        .map(|name| format!("\n  {name} "))
        .collect();
    for name in [
        "cards",
        "tasks",
        "delegate",
        "find-agent",
        "context",
        "memory",
        "learning",
        "resolve-conflict",
    ] {
        assert!(section.contains(&format!("\n  {name} ")), "{name}");
        assert!(ok(&project, &["help", name]).contains(&format!("Usage: swarm {name}")));
    }
    let aliases = ok(&project, &["help", "aliases"]);
    // Every Python command is provided now: nothing is listed as missing.
    assert!(!aliases.contains("Not provided"), "{aliases}");
    assert!(aliases.contains("resolve-conflict FILEPATH [--requester ID]"));
}

#[test]
fn inside_an_agent_pane_the_agent_is_detected_and_others_need_as_other() {
    let server = TmuxServer::start();
    let project = Project::new();
    let pane = server.demo_agent(&project.path(), &project.file("a.jsonl"));
    swarm(&project, &server).arg("discover").assert().success();
    let in_pane = |args: &[&str]| {
        swarm(&project, &server)
            .env("TMUX_PANE", &pane)
            .args(args)
            .output()
            .expect("run")
    };
    let out = in_pane(&["cards", "register", "--skills", "python"]);
    assert_eq!(
        stdout(&out).lines().next(),
        Some("Agent card registered: agent-0")
    );
    let out = in_pane(&["tasks", "create", "Write docs"]);
    assert!(
        stdout(&out).contains("Creator: agent-0"),
        "{}",
        stderr(&out)
    );
    // Speaking for another agent from this pane is refused...
    let out = in_pane(&["context", "create", "docs", "Docs", "--creator", "agent-5"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("--as-other"), "{}", stderr(&out));
    // ... unless asked for, and then recorded.
    let out = in_pane(&[
        "context",
        "create",
        "docs",
        "Docs",
        "--creator",
        "agent-5",
        "--as-other",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(project.read(".swarm/audit.log").contains("context create"));
    // Reading about another agent needs nothing special.
    let out = in_pane(&["memory", "get", "--agent-id", "agent-5"]);
    assert!(stdout(&out).starts_with("=== Memory: agent-5 ==="));
    let out = in_pane(&["learning", "stats"]);
    assert!(stdout(&out).starts_with("=== Learning Stats: agent-0 ==="));
}
