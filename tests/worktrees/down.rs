//! `swarm down` with worktrees: dirty and unmerged worktrees are kept,
//! the rest removed.

use std::fs;

use crate::harness::repo::{Repo, ok};
use crate::harness::stdout;

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
