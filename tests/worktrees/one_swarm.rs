//! Worktrees are still one swarm: a lock taken in one worktree blocks the
//! others, commands run inside a worktree act on the main project and
//! create nothing there, and on a Redis store each host has worktrees of
//! its own in one swarm.

use std::fs;
use std::path::Path;

#[cfg(feature = "redis")]
use crate::harness::redis_server::RedisServer;
use crate::harness::repo::{Repo, ok, refused};
use crate::harness::{stderr, stdout, stdout_json, swarm};

#[test]
fn a_lock_taken_in_one_worktree_blocks_the_others() {
    let repo = Repo::new();
    repo.launch(2);
    let wt0 = repo.worktree("agent-0");
    let wt1 = repo.worktree("agent-1");
    ok(repo.swarm_in(&wt0.join("src"), &["lock", "a.py", "--agent", "agent-0"]));
    let locks = stdout_json(&ok(repo.swarm(&["locks", "--json"])));
    let text = locks.to_string();
    assert!(text.contains("\"src/a.py\""), "{text}");
    for (dir, path) in [
        (wt1.clone(), "src/a.py".to_owned()),
        (wt1.join("src"), wt1.join("src/a.py").display().to_string()),
        (repo.root(), "src/a.py".to_owned()),
    ] {
        let out = repo.swarm_in(&dir, &["lock", &path, "--agent", "agent-1"]);
        refused(&out, 3, &["agent-0"]);
    }
    // The git guard, shared by every worktree, refuses agent-1's commit.
    ok(repo.swarm(&["guard", "install"]));
    fs::write(wt1.join("src/a.py"), "a = 5\n").expect("write");
    repo.git(&wt1, &["add", "src/a.py"]);
    let out = repo.try_git(&wt1, &["commit", "-q", "-m", "x"]);
    assert!(!out.status.success(), "the commit went through");
    assert!(
        stderr(&out).contains("locked by other agents"),
        "{}",
        stderr(&out)
    );
    // A file nobody holds commits fine from the same worktree.
    repo.git(&wt1, &["reset", "-q", "src/a.py"]);
    repo.commit_file(&wt1, "src/b.py", "b = 5\n");
    // Claude Code's edit check in agent-1's worktree blocks the file too.
    let input = serde_json::json!({
        "session_id": "s",
        "cwd": wt1,
        "hook_event_name": "PreToolUse",
        "tool_name": "Edit",
        "tool_input": {"file_path": wt1.join("src/a.py"), "old_string": "a", "new_string": "b"}
    })
    .to_string();
    let out = swarm(&repo.project, &repo.server)
        .current_dir(&wt1)
        .env("HOME", repo.home.path())
        .args(["guard", "check-edit"])
        .write_stdin(input)
        .output()
        .expect("run");
    refused(&out, 2, &["agent-0"]);
}

#[test]
fn commands_inside_a_worktree_act_on_the_main_project_and_create_nothing_there() {
    let repo = Repo::new();
    repo.launch(2);
    let wt = repo.worktree("agent-1");
    let before: Vec<String> = list(&wt);
    ok(repo.swarm_in(&wt, &["agents"]));
    ok(repo.swarm_in(&wt, &["discover"]));
    ok(repo.swarm_in(
        &wt.join("src"),
        &[
            "msg",
            "agent-0",
            "INFO",
            "from a worktree",
            "--from",
            "agent-1",
        ],
    ));
    ok(repo.swarm_in(&wt, &["lock", "src/b.py", "--agent", "agent-1"]));
    ok(repo.swarm_in(&wt, &["inbox", "--agent", "agent-0"]));
    ok(repo.swarm_in(&wt, &["changes"]));
    let json = stdout_json(&ok(repo.swarm_in(&wt, &["config", "show", "--json"])));
    assert!(json.to_string().contains("launch"), "{json}");
    // The state is the main project's.
    let inbox = stdout(&ok(repo.swarm(&["inbox", "--agent", "agent-0"])));
    assert!(inbox.contains("from a worktree"), "{inbox}");
    assert!(repo.root().join("ACTIVE_AGENTS.json").is_file());
    // Nothing new in the worktree, and git sees it clean.
    assert_eq!(list(&wt), before);
    assert_eq!(repo.git(&wt, &["status", "--porcelain"]), "");
    let doctor = stdout(&repo.swarm_in(&wt, &["doctor"]));
    assert!(
        doctor.contains(&repo.root().display().to_string()),
        "{doctor}"
    );
}

/// The names under `dir`, recursively, without git's `.git` file.
fn list(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(d) = stack.pop() {
        for entry in fs::read_dir(&d).expect("read_dir") {
            let path = entry.expect("entry").path();
            out.push(path.strip_prefix(dir).expect("in").display().to_string());
            if path.is_dir() {
                stack.push(path);
            }
        }
    }
    out.sort();
    out
}

#[cfg(feature = "redis")]
#[test]
fn on_a_redis_store_each_host_has_worktrees_of_its_own_in_one_swarm() {
    let redis = RedisServer::start();
    let (a, b) = (Repo::new(), Repo::new());
    let env = |host: &str| {
        let mut env: Vec<(&str, String)> = redis.store_env("shared");
        env.push(("SWARM_STORE_HOST", host.to_owned()));
        env
    };
    let launch = |repo: &Repo, host: &str| {
        let out = ok(repo.swarm_with(
            &repo.root(),
            &env(host),
            &[
                "launch",
                "1",
                "--agent",
                "demo",
                "--worktrees",
                "--session",
                "wt",
                "--no-attach",
                "--json",
            ],
        ));
        stdout_json(&out)["agents"][0]["id"]
            .as_str()
            .expect("id")
            .to_owned()
    };
    // The ids are the swarm's: host B's agent comes after host A's, and
    // each worktree is under its own host's project root.
    assert_eq!(launch(&a, "host-a"), "agent-0");
    assert_eq!(launch(&b, "host-b"), "agent-1");
    assert!(a.worktree("agent-0").is_dir() && !a.worktree("agent-1").exists());
    assert!(b.worktree("agent-1").is_dir() && !b.worktree("agent-0").exists());
    // A lock taken in host A's worktree blocks the same file in host B's.
    ok(a.swarm_with(
        &a.worktree("agent-0"),
        &env("host-a"),
        &["lock", "src/a.py", "--agent", "agent-0"],
    ));
    let out = b.swarm_with(
        &b.worktree("agent-1").join("src"),
        &env("host-b"),
        &["lock", "a.py", "--agent", "agent-1"],
    );
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    // Each host's changes are its own repository's.
    let changes = stdout_json(&ok(b.swarm_with(
        &b.root(),
        &env("host-b"),
        &["changes", "--json"],
    )));
    let agents: Vec<&str> = changes["agents"]
        .as_array()
        .expect("agents")
        .iter()
        .map(|x| x["agent"].as_str().expect("agent"))
        .collect();
    assert_eq!(agents, ["agent-1"]);
    // Both agents are registered, with nothing about worktrees added.
    let listed = stdout_json(&ok(a.swarm_with(
        &a.root(),
        &env("host-a"),
        &["agents", "--json"],
    )));
    let text = listed.to_string();
    assert!(
        text.contains("agent-0") && text.contains("agent-1"),
        "{text}"
    );
    assert!(!text.contains("worktree"), "{text}");
}
