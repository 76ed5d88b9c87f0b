//! Agents in git worktrees of their own (`launch --worktrees`), still one
//! swarm: real git repositories, real tmux, the demo agent in the panes.

use std::fs;
use std::path::Path;
use std::process::Command;

#[cfg(feature = "dashboard")]
use crate::harness::dashboard::Dashboard;
#[cfg(feature = "redis")]
use crate::harness::redis_server::RedisServer;
use crate::harness::repo::{Repo, ok, refused};
use crate::harness::{Project, stderr, stdout, stdout_json, swarm, wait_for};

/// The CONFLICT messages in `agent`'s inbox.
fn conflict_notices(repo: &Repo, agent: &str) -> usize {
    let out = ok(repo.swarm(&["inbox", "--agent", agent, "--json"]));
    let json = stdout_json(&out);
    json.as_array()
        .or_else(|| json["messages"].as_array())
        .expect("messages")
        .iter()
        .filter(|m| m["msg_type"] == "CONFLICT")
        .count()
}

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
fn two_agents_committing_one_file_show_an_overlap_told_once() {
    let repo = Repo::new();
    repo.launch(2);
    repo.commit_file(&repo.worktree("agent-0"), "src/a.py", "a = 2\n");
    repo.commit_file(&repo.worktree("agent-1"), "src/a.py", "a = 3\n");
    repo.commit_file(&repo.worktree("agent-1"), "src/c.py", "c = 1\n");
    fs::write(repo.worktree("agent-0").join("notes.txt"), "draft\n").expect("write");
    let out = ok(repo.swarm(&["changes", "--json"]));
    let json = stdout_json(&out);
    assert_eq!(json["base"], "main");
    assert_eq!(
        json["overlaps"],
        serde_json::json!([{"path": "src/a.py", "agents": ["agent-0", "agent-1"]}])
    );
    let a0 = &json["agents"][0];
    assert_eq!(
        (
            a0["agent"].as_str(),
            a0["ahead"].as_u64(),
            a0["behind"].as_u64()
        ),
        (Some("agent-0"), Some(1), Some(0))
    );
    assert_eq!(a0["committed"], serde_json::json!(["src/a.py"]));
    assert_eq!(a0["uncommitted"], serde_json::json!(["notes.txt"]));
    assert_eq!(
        json["agents"][1]["files"],
        serde_json::json!(["src/a.py", "src/c.py"])
    );
    assert_eq!(
        json["told"],
        serde_json::json!([{"path": "src/a.py", "agents": ["agent-0", "agent-1"]}])
    );
    // Told once: a second look tells nobody again.
    let again = stdout_json(&ok(repo.swarm(&["changes", "--json"])));
    assert_eq!(again["told"], serde_json::json!([]));
    assert_eq!(conflict_notices(&repo, "agent-0"), 1);
    assert_eq!(conflict_notices(&repo, "agent-1"), 1);
    let state = repo.project.read(".swarm/overlaps.json");
    assert!(state.contains("\"src/a.py\""), "{state}");
    // The text view names the overlap too.
    let text = stdout(&ok(repo.swarm(&["changes"])));
    assert!(text.contains("src/a.py  agent-0, agent-1"), "{text}");
    assert!(text.contains("notes.txt (uncommitted)"), "{text}");
}

/// A running `swarm watch`, killed when dropped.
#[cfg(feature = "dashboard")]
struct Watch(std::process::Child);

#[cfg(feature = "dashboard")]
impl Drop for Watch {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[cfg(feature = "dashboard")]
#[test]
fn the_watcher_tells_an_overlap_as_it_appears_and_the_dashboard_shows_it() {
    let repo = Repo::new();
    repo.launch(3);
    let mut cmd = crate::harness::swarm_process(&repo.project, Some(&repo.server));
    cmd.env("HOME", repo.home.path())
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .args(["watch", "--interval", "1"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    let _watch = Watch(cmd.spawn().expect("start swarm watch"));
    let dashboard = Dashboard::start(&repo.project);
    assert_eq!(
        dashboard.get("/api/v1/overlaps").json()["overlaps"],
        serde_json::json!([])
    );
    // Nobody runs `swarm changes`: the watcher finds the overlap.
    repo.commit_file(&repo.worktree("agent-0"), "src/a.py", "a = 2\n");
    fs::write(repo.worktree("agent-2").join("src/a.py"), "a = 4\n").expect("write");
    wait_for("the overlap to be told", || {
        (conflict_notices(&repo, "agent-0") == 1 && conflict_notices(&repo, "agent-2") == 1)
            .then_some(())
    });
    assert_eq!(conflict_notices(&repo, "agent-1"), 0);
    let expected = serde_json::json!([{"path": "src/a.py", "agents": ["agent-0", "agent-2"]}]);
    // The watcher records what it found once it has told it.
    wait_for("the dashboard to show the overlap", || {
        let body = dashboard.get("/api/v1/overlaps").json();
        (body["overlaps"] == expected).then_some(())
    });
    // It stays told once, however many rounds look again; `swarm changes`
    // finds it told already.
    let changes = stdout_json(&ok(repo.swarm(&["changes", "--json"])));
    assert_eq!(changes["overlaps"], expected);
    assert_eq!(changes["told"], serde_json::json!([]));
    // Gone (agent-2 drops its change): no overlap left to show.
    repo.git(&repo.worktree("agent-2"), &["checkout", "--", "src/a.py"]);
    wait_for("the overlap to go", || {
        let body = dashboard.get("/api/v1/overlaps").json();
        (body["count"] == 0).then_some(())
    });
    assert_eq!(conflict_notices(&repo, "agent-0"), 1);
}

#[cfg(feature = "dashboard")]
#[test]
fn overlaps_are_not_told_when_the_config_says_so_but_still_shown() {
    let repo = Repo::new();
    repo.project
        .write(".claudeswarm.toml", "[launch]\ntell_overlaps = false\n");
    repo.launch(2);
    repo.commit_file(&repo.worktree("agent-0"), "src/a.py", "a = 2\n");
    repo.commit_file(&repo.worktree("agent-1"), "src/a.py", "a = 3\n");
    let json = stdout_json(&ok(repo.swarm(&["changes", "--json"])));
    assert_eq!(json["overlaps"][0]["path"], "src/a.py");
    assert_eq!(json["told"], serde_json::json!([]));
    assert_eq!(conflict_notices(&repo, "agent-0"), 0);
    assert_eq!(conflict_notices(&repo, "agent-1"), 0);
    let dashboard = Dashboard::start(&repo.project);
    assert_eq!(dashboard.get("/api/v1/overlaps").json()["count"], 1);
}

#[test]
fn a_clean_merge_lands_and_the_others_learn_how_far_behind_they_are() {
    let repo = Repo::new();
    repo.launch(3);
    repo.commit_file(&repo.worktree("agent-0"), "src/new.py", "new = 1\n");
    repo.commit_file(&repo.worktree("agent-1"), "src/b.py", "b = 2\n");
    // Untracked files the merges do not touch never stand in their way
    // (swarm's own state files are untracked too).
    repo.project.write("scratch.txt", "mine\n");
    repo.project
        .write(".claudeswarm.toml", "[launch]\ntell_overlaps = true\n");
    // A fast-forward: main has not moved since agent-0's branch forked.
    let out = ok(repo.swarm(&["merge", "agent-0", "--json"]));
    let json = stdout_json(&out);
    assert_eq!(json["result"], "fast-forward");
    assert_eq!(json["files"], serde_json::json!(["src/new.py"]));
    assert_eq!(repo.project.read("src/new.py"), "new = 1\n");
    let head = repo.git(&repo.root(), &["rev-parse", "HEAD"]);
    let branch = repo.git(&repo.root(), &["rev-parse", "swarm/agent-0"]);
    assert_eq!(head, branch);
    // agent-1 and agent-2 are one commit behind now.
    let behind: Vec<(String, u64)> = json["behind"]
        .as_array()
        .expect("behind")
        .iter()
        .map(|b| {
            (
                b["agent"].as_str().expect("agent").to_owned(),
                b["behind"].as_u64().expect("n"),
            )
        })
        .collect();
    assert_eq!(
        behind,
        [("agent-1".to_owned(), 1), ("agent-2".to_owned(), 1)]
    );
    // main moved: agent-1's branch needs a merge commit, by the user's
    // git identity, with both parents.
    let out = ok(repo.swarm(&["merge", "agent-1"]));
    let text = stdout(&out);
    assert!(
        text.contains("Merged swarm/agent-1 into main with merge commit"),
        "{text}"
    );
    assert_eq!(repo.project.read("src/b.py"), "b = 2\n");
    assert_eq!(repo.project.read("src/new.py"), "new = 1\n");
    let parents = repo.git(&repo.root(), &["log", "-1", "--format=%P"]);
    assert_eq!(parents.split_whitespace().count(), 2, "{parents}");
    let author = repo.git(&repo.root(), &["log", "-1", "--format=%an <%ae>"]);
    assert_eq!(author.trim(), "Tess Ter <tess@example.com>");
    assert_eq!(
        repo.git(&repo.root(), &["status", "--porcelain"]),
        "?? .claudeswarm.toml\n?? scratch.txt\n"
    );
    let changes = stdout_json(&ok(repo.swarm(&["changes", "--json"])));
    let of = |id: &str| {
        changes["agents"]
            .as_array()
            .expect("agents")
            .iter()
            .find(|a| a["agent"] == id)
            .cloned()
            .expect(id)
    };
    assert_eq!(of("agent-2")["behind"], 3);
    assert_eq!(of("agent-1")["ahead"], 0);
    // Merging again changes nothing.
    let again = stdout_json(&ok(repo.swarm(&["merge", "agent-1", "--json"])));
    assert_eq!(again["result"], "up-to-date");
}

#[test]
fn merge_into_another_branch_moves_only_that_branch() {
    let repo = Repo::new();
    repo.launch(2);
    repo.git(&repo.root(), &["branch", "release"]);
    repo.commit_file(&repo.worktree("agent-0"), "src/new.py", "new = 1\n");
    let before = repo.snapshot();
    let main = repo.git(&repo.root(), &["rev-parse", "main"]);
    let json = stdout_json(&ok(
        repo.swarm(&["merge", "agent-0", "--into", "release", "--json"])
    ));
    assert_eq!(json["result"], "fast-forward");
    assert_eq!(json["into"], "release");
    assert_eq!(
        repo.git(&repo.root(), &["rev-parse", "release"]),
        repo.git(&repo.root(), &["rev-parse", "swarm/agent-0"])
    );
    // The main worktree and its branch are as they were (git's reflog of
    // the moved branch aside).
    assert_eq!(repo.git(&repo.root(), &["rev-parse", "main"]), main);
    let mut after = repo.snapshot();
    after.retain(|p, _| !p.starts_with(".git/logs") && !p.starts_with(".git/refs"));
    let mut before = before;
    before.retain(|p, _| !p.starts_with(".git/logs") && !p.starts_with(".git/refs"));
    assert_eq!(after, before);
    assert!(!repo.project.file("src/new.py").exists());
    // A branch checked out in another worktree is not swarm's to move,
    // and one that does not exist is not found.
    let out = repo.swarm(&["merge", "agent-0", "--into", "swarm/agent-1"]);
    refused(&out, 1, &["checked out in", "agent-1"]);
    let out = repo.swarm(&["merge", "agent-0", "--into", "nope"]);
    refused(&out, 4, &["there is no branch nope"]);
}

#[test]
fn a_conflicting_merge_is_refused_and_changes_nothing() {
    let repo = Repo::new();
    repo.launch(2);
    repo.commit_file(&repo.worktree("agent-0"), "src/a.py", "a = 2\n");
    repo.commit_file(&repo.worktree("agent-1"), "src/a.py", "a = 3\n");
    repo.commit_file(&repo.worktree("agent-1"), "src/b.py", "b = 3\n");
    ok(repo.swarm(&["merge", "agent-0"]));
    repo.project.write("scratch.txt", "mine\n");
    let before = repo.snapshot();
    let head = repo.git(&repo.root(), &["rev-parse", "HEAD"]);
    let out = repo.swarm(&["merge", "agent-1"]);
    refused(
        &out,
        1,
        &["does not merge cleanly", "src/a.py", "nothing was changed"],
    );
    assert!(!stderr(&out).contains("src/b.py"), "{}", stderr(&out));
    // With --json the refusal names the files on stdout too.
    let out = repo.swarm(&["merge", "agent-1", "--json"]);
    assert_eq!(out.status.code(), Some(1));
    let json = stdout_json(&out);
    assert_eq!(json["result"], "refused");
    assert_eq!(json["files"], serde_json::json!(["src/a.py"]));
    // Every file of the main tree (and git's HEAD, refs and index) as it
    // was, and no merge under way.
    assert_eq!(repo.snapshot(), before);
    assert_eq!(repo.git(&repo.root(), &["rev-parse", "HEAD"]), head);
    assert!(!repo.root().join(".git/MERGE_HEAD").exists());
    assert_eq!(
        repo.git(&repo.worktree("agent-1"), &["rev-parse", "HEAD"]),
        repo.git(&repo.root(), &["rev-parse", "swarm/agent-1"])
    );
}

#[test]
fn uncommitted_changes_the_merge_would_overwrite_refuse_it() {
    let repo = Repo::new();
    repo.launch(2);
    repo.commit_file(&repo.worktree("agent-0"), "src/a.py", "a = 2\n");
    repo.commit_file(&repo.worktree("agent-1"), "src/new.py", "new = 1\n");
    // An uncommitted change to a file the merge changes.
    repo.project.write("src/a.py", "a = 99  # mine\n");
    let before = repo.snapshot();
    let out = repo.swarm(&["merge", "agent-0"]);
    refused(&out, 1, &["uncommitted changes to 1 file", "src/a.py"]);
    assert_eq!(repo.snapshot(), before);
    // An untracked file where the merge would put one.
    repo.project.write("src/new.py", "my own\n");
    let out = repo.swarm(&["merge", "agent-1"]);
    refused(&out, 1, &["does not track"]);
    assert_eq!(repo.project.read("src/new.py"), "my own\n");
    // Uncommitted work in the agent's own worktree is reported, not merged.
    fs::write(repo.worktree("agent-1").join("wip.txt"), "wip\n").expect("write");
    fs::remove_file(repo.project.file("src/new.py")).expect("rm");
    let out = ok(repo.swarm(&["merge", "agent-1"]));
    assert!(stderr(&out).contains("wip.txt"), "{}", stderr(&out));
    assert!(!repo.project.file("wip.txt").exists());
    assert_eq!(
        repo.git(&repo.worktree("agent-1"), &["status", "--porcelain"]),
        "?? wip.txt\n"
    );
    // The person's change to src/a.py survived all of it.
    assert_eq!(repo.project.read("src/a.py"), "a = 99  # mine\n");
}

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

#[test]
fn down_keeps_dirty_and_unmerged_worktrees_and_removes_the_rest() {
    let repo = Repo::new();
    repo.launch(4);
    // agent-0: uncommitted work; agent-1: a commit not merged; agent-2:
    // a commit merged; agent-3: nothing at all.
    fs::write(repo.worktree("agent-0").join("draft.txt"), "draft\n").expect("write");
    repo.commit_file(&repo.worktree("agent-1"), "src/one.py", "1\n");
    repo.commit_file(&repo.worktree("agent-2"), "src/two.py", "2\n");
    ok(repo.swarm(&["merge", "agent-2"]));
    // A plain down deletes no worktree.
    let out = ok(repo.swarm(&["down", "--session", "wt"]));
    assert!(
        stdout(&out).contains("4 agent worktrees stay"),
        "{}",
        stdout(&out)
    );
    for id in ["agent-0", "agent-1", "agent-2", "agent-3"] {
        assert!(repo.worktree(id).is_dir(), "{id}");
    }
    // --remove-worktrees after the session is gone: keeps the dirty and
    // the unmerged one, says why, exits 0.
    let out = ok(repo.swarm(&["down", "--session", "wt", "--remove-worktrees"]));
    let text = stdout(&out);
    assert!(
        text.contains(
            "Kept worktree .swarm/worktrees/agent-0 of agent-0: 1 uncommitted file (draft.txt)"
        ),
        "{text}"
    );
    assert!(
        text.contains("Kept worktree .swarm/worktrees/agent-1 of agent-1: 1 commit on swarm/agent-1 not merged"),
        "{text}"
    );
    assert!(
        text.contains("Removed worktree .swarm/worktrees/agent-2"),
        "{text}"
    );
    assert!(
        text.contains("Removed worktree .swarm/worktrees/agent-3"),
        "{text}"
    );
    assert!(repo.worktree("agent-0").join("draft.txt").is_file());
    assert!(repo.worktree("agent-1").is_dir());
    assert!(!repo.worktree("agent-2").exists());
    assert!(!repo.worktree("agent-3").exists());
    let branches = repo.git(&repo.root(), &["branch", "--format=%(refname:short)"]);
    assert_eq!(
        branches.lines().collect::<Vec<_>>(),
        ["main", "swarm/agent-0", "swarm/agent-1"]
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

#[test]
fn merge_needs_git_2_38_and_says_so() {
    let repo = Repo::new();
    repo.launch(1);
    repo.commit_file(&repo.worktree("agent-0"), "src/x.py", "x\n");
    // A git that says it is 2.37, and is the real one otherwise.
    let bin = tempfile::tempdir().expect("tempdir");
    let real = swarm::find_on_path("git").expect("git on PATH");
    let fake = bin.path().join("git");
    fs::write(
        &fake,
        format!(
            "#!/bin/sh\nif [ \"$1\" = version ]; then echo 'git version 2.37.7'; exit 0; fi\nexec '{}' \"$@\"\n",
            real.display()
        ),
    )
    .expect("write");
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(&fake, fs::Permissions::from_mode(0o755)).expect("chmod");
    let path = format!(
        "{}:{}",
        bin.path().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut cmd = swarm(&repo.project, &repo.server);
    cmd.env("PATH", path)
        .env("HOME", repo.home.path())
        .args(["merge", "agent-0"]);
    let out = cmd.output().expect("run");
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains("needs git 2.38 or newer; this git is 2.37.7"),
        "{err}"
    );
    assert!(!repo.root().join("src/x.py").exists());
}

#[test]
fn merge_refuses_unknown_agents_and_worktrees_need_a_repository() {
    let repo = Repo::new();
    repo.launch(1);
    let out = repo.swarm(&["merge", "agent-9"]);
    refused(&out, 4, &["no branch swarm/agent-9", "agent-0"]);
    // Outside git, launch --worktrees refuses before opening anything.
    let plain = Project::new();
    let out = swarm(&plain, &repo.server)
        .args([
            "launch",
            "1",
            "--agent",
            "demo",
            "--worktrees",
            "--session",
            "p",
            "--no-attach",
        ])
        .output()
        .expect("run");
    refused(&out, 1, &["not the top of a git repository"]);
    assert!(
        repo.server
            .try_tmux(&["has-session", "-t", "=p"])
            .status
            .code()
            != Some(0)
    );
}

#[test]
fn the_guides_worktree_session_works_as_written() {
    let repo = Repo::new();
    let page =
        fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/guide/worktrees.md"))
            .expect("docs/guide/worktrees.md");
    // The swarm commands of its first block; the test commits for the
    // agents itself.
    let commands: Vec<&str> = page
        .lines()
        .skip_while(|l| !l.starts_with("```sh"))
        .skip(1)
        .take_while(|l| !l.starts_with("```"))
        .filter(|l| l.starts_with("swarm "))
        .collect();
    assert!(commands.len() >= 5, "{commands:?}");
    let bin = tempfile::tempdir().expect("tempdir");
    std::os::unix::fs::symlink(crate::harness::swarm_bin(), bin.path().join("swarm"))
        .expect("symlink");
    let path = format!(
        "{}:{}",
        bin.path().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    for command in commands {
        let out = Command::new("sh")
            .args(["-c", command])
            .current_dir(repo.root())
            .env_remove("TMUX")
            .env_remove("TMUX_PANE")
            .env_remove("CLAUDESWARM_ROOT")
            .env("PATH", &path)
            .env("HOME", repo.home.path())
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("SWARM_TMUX_SOCKET", &repo.server.socket)
            .env("NO_COLOR", "1")
            .stdin(std::process::Stdio::null())
            .output()
            .expect("run");
        let printed = format!("{}{}", stdout(&out), stderr(&out));
        assert!(out.status.success(), "{command}: {printed}");
        // What the comment line stands for: the agents commit.
        if command.starts_with("swarm launch") {
            repo.commit_file(&repo.worktree("agent-0"), "src/zero.py", "0\n");
            repo.commit_file(&repo.worktree("agent-1"), "src/one.py", "1\n");
        }
        if command.starts_with("swarm merge agent-0") {
            assert!(printed.contains("Fast-forwarded main"), "{printed}");
            assert!(printed.contains("agent-1 by 1 commit"), "{printed}");
        }
    }
    assert_eq!(repo.project.read("src/zero.py"), "0\n");
    // agent-1 came in through the queue; both merged worktrees went.
    assert_eq!(repo.project.read("src/one.py"), "1\n");
    assert!(!repo.worktree("agent-1").exists());
    assert!(!repo.worktree("agent-0").exists());
    assert!(repo.project.agents().is_empty());
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
