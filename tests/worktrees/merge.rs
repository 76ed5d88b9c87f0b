//! `swarm merge`: a clean merge lands and the others learn how far behind
//! they are, into another branch moves only that branch, a conflicting or
//! overwriting merge is refused and changes nothing, and what it needs (git
//! 2.38, a known agent, a repository) is said when missing.

use std::fs;

use crate::harness::repo::{Repo, ok, refused};
use crate::harness::{Project, stderr, stdout, stdout_json, swarm};

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
