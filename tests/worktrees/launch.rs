//! Launching into worktrees: each agent in a worktree of its own on its
//! own branch, an existing worktree reused, the project's setup run in new
//! ones (its failure reported, the agent started anyway), and the agent's
//! question to trust its new worktree named and answered by `swarm answer`.

use std::fs;

use crate::harness::repo::{Repo, ok};
use crate::harness::{stderr, stdout, stdout_json, wait_for};

#[test]
fn each_agent_works_in_its_own_worktree_on_its_own_branch() {
    let repo = Repo::new();
    // No `.gitignore` lines for swarm's files in this project.
    repo.project.write(".gitignore", "");
    repo.git(&repo.root(), &["commit", "-q", "-a", "-m", "no ignores"]);
    repo.project
        .write("uncommitted.txt", "the person's own work\n");
    let ids = repo.launch(2);
    // Still, the main worktree's git never lists the agents' worktrees.
    let status = repo.git(
        &repo.root(),
        &["status", "--porcelain", "--untracked-files=all"],
    );
    assert!(status.contains("?? uncommitted.txt"), "{status}");
    assert!(!status.contains(".swarm/worktrees"), "{status}");
    assert_eq!(ids, ["agent-0", "agent-1"]);
    for id in &ids {
        let wt = repo.worktree(id);
        assert!(wt.join("src/a.py").is_file(), "{}", wt.display());
        let branch = repo.git(&wt, &["symbolic-ref", "--short", "HEAD"]);
        assert_eq!(branch.trim(), format!("swarm/{id}"));
    }
    // Each pane works in its agent's worktree, labelled with that id.
    let panes = repo.server.tmux(&[
        "list-panes",
        "-t",
        "wt:",
        "-F",
        "#{@swarm_agent} #{pane_current_path}",
    ]);
    let expected: Vec<String> = ids
        .iter()
        .map(|id| format!("{id} {}", repo.worktree(id).display()))
        .collect();
    assert_eq!(panes.lines().collect::<Vec<_>>(), expected);
    // Discovery keeps them (their panes are in the project's worktrees).
    ok(repo.swarm(&["discover"]));
    let agents = repo.project.agents();
    assert_eq!(
        agents.iter().map(|a| a.0.as_str()).collect::<Vec<_>>(),
        ["agent-0", "agent-1"]
    );
    assert!(agents.iter().all(|a| a.2 == "active"));
    // The main tree and its uncommitted work are untouched, and the
    // registry keeps the Python tool's exact keys.
    assert_eq!(
        repo.project.read("uncommitted.txt"),
        "the person's own work\n"
    );
    assert_eq!(
        repo.git(&repo.root(), &["symbolic-ref", "--short", "HEAD"])
            .trim(),
        "main"
    );
    let reg = repo.project.registry();
    let keys: Vec<&str> = reg["agents"][0]
        .as_object()
        .expect("agent")
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        [
            "id",
            "pane_index",
            "pid",
            "status",
            "last_seen",
            "session_name",
            "tmux_pane_id"
        ]
    );
}

#[test]
fn an_existing_worktree_is_reused_and_setup_runs_in_new_ones() {
    let repo = Repo::new();
    repo.project.write(
        ".claudeswarm.toml",
        "[launch]\nworktrees = true\nworktree_setup = \"echo \\\"$SWARM_AGENT in $SWARM_ROOT\\\" > setup-ran\"\n",
    );
    // agent-0's worktree exists from before, with work in it.
    let wt0 = repo.worktree("agent-0");
    repo.git(
        &repo.root(),
        &[
            "worktree",
            "add",
            "-q",
            "-b",
            "swarm/agent-0",
            &wt0.display().to_string(),
        ],
    );
    fs::write(wt0.join("kept.txt"), "kept\n").expect("write");
    let out = ok(repo.swarm(&[
        "launch",
        "2",
        "--agent",
        "demo",
        "--session",
        "wt",
        "--no-attach",
        "--json",
    ]));
    let json = stdout_json(&out);
    let agents = json["agents"].as_array().expect("agents");
    assert_eq!(agents[0]["worktree"]["created"], false);
    assert_eq!(agents[1]["worktree"]["created"], true);
    assert_eq!(agents[1]["worktree"]["setup"]["ok"], true);
    assert_eq!(
        fs::read_to_string(wt0.join("kept.txt")).expect("read"),
        "kept\n"
    );
    assert!(!wt0.join("setup-ran").exists());
    let ran = fs::read_to_string(repo.worktree("agent-1").join("setup-ran")).expect("read");
    assert_eq!(ran.trim(), format!("agent-1 in {}", repo.root().display()));
    let panes = repo
        .server
        .tmux(&["list-panes", "-t", "wt:", "-F", "#{pane_current_path}"]);
    assert_eq!(
        panes.lines().collect::<Vec<_>>(),
        [
            wt0.display().to_string(),
            repo.worktree("agent-1").display().to_string()
        ]
    );
}

#[test]
fn an_agent_asking_to_trust_its_new_worktree_is_named_and_answered_by_swarm_answer() {
    let repo = Repo::new();
    let demo = format!(
        "'{}' demo-agent --name-from-label --ask-trust",
        crate::harness::swarm_bin()
    );
    let out = ok(repo.swarm(&[
        "launch",
        "2",
        "--cmd",
        &demo,
        "--worktrees",
        "--session",
        "wt",
        "--no-attach",
    ]));
    // launch waits for the agents, sees the dialogs, and says what to do.
    let text = stdout(&out);
    assert!(text.contains("agent-0, agent-1 show a dialog"), "{text}");
    assert!(text.contains("whether to trust the directory"), "{text}");
    assert!(text.contains("swarm answer ID yes"), "{text}");
    let panes: Vec<String> = repo
        .server
        .tmux(&["list-panes", "-t", "wt:", "-F", "#{pane_id}"])
        .lines()
        .map(str::to_owned)
        .collect();
    // A message meanwhile is held, never typed into the dialog.
    let sent = repo.swarm(&["msg", "agent-1", "INFO", "welcome", "--from", "agent-0"]);
    assert_eq!(sent.status.code(), Some(7), "{}", stderr(&sent));
    let peek = stdout(&ok(repo.swarm(&["peek", "agent-1"])));
    assert!(
        peek.contains("Do you trust the files in this folder?"),
        "{peek}"
    );
    // Answered through swarm, each agent goes on in its worktree; the
    // held message goes in once agent-1's prompt is back.
    for (id, pane) in ["agent-0", "agent-1"].iter().zip(&panes) {
        ok(repo.swarm(&["answer", id, "yes"]));
        repo.server.wait_for_screen(pane, "(answered yes)");
    }
    wait_for("the held message to go in", || {
        ok(repo.swarm(&["agents"]));
        repo.server
            .capture(&panes[1])
            .contains("welcome")
            .then_some(())
    });
}

#[test]
fn a_failing_setup_is_reported_and_the_agent_starts_anyway() {
    let repo = Repo::new();
    repo.project.write(
        ".claudeswarm.toml",
        "[launch]\nworktree_setup = \"echo npm broke >&2; exit 3\"\n",
    );
    let out = ok(repo.swarm(&[
        "launch",
        "1",
        "--agent",
        "demo",
        "--worktrees",
        "--session",
        "wt",
        "--no-attach",
    ]));
    let err = stderr(&out);
    assert!(err.contains("the worktree setup command failed"), "{err}");
    assert!(err.contains("exit status: 3"), "{err}");
    assert!(err.contains("npm broke"), "{err}");
    wait_for("agent-0 to start", || {
        let panes = repo
            .server
            .tmux(&["list-panes", "-t", "wt:", "-F", "#{pane_id}"]);
        let pane = panes.lines().next()?.to_owned();
        repo.server
            .capture(&pane)
            .contains("waiting for messages")
            .then_some(())
    });
}
