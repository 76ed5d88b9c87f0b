//! The worktree session of docs/guide/worktrees.md, run as written.

use std::fs;
use std::path::Path;
use std::process::Command;

use crate::harness::repo::Repo;
use crate::harness::{stderr, stdout};

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
