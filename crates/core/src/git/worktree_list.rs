//! `WorktreeEntry`: one worktree as `git worktree list --porcelain` lists
//! it.

use std::path::PathBuf;

/// One worktree of a repository.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct WorktreeEntry {
    /// Its top directory.
    pub path: PathBuf,
    /// The commit checked out (`None` for a bare repository's entry).
    pub head: Option<String>,
    /// The branch checked out (`main`), `None` when detached.
    pub branch: Option<String>,
    /// Why it is locked, when it is (`git worktree lock`).
    pub locked: Option<String>,
    /// Whether git would prune it (its directory is gone).
    pub prunable: bool,
}

/// Reads the listing: one block of `key value` lines per worktree, blocks
/// separated by a blank line.
pub(crate) fn parse_worktree_list(text: &str) -> Vec<WorktreeEntry> {
    let mut out = Vec::new();
    let mut current: Option<WorktreeEntry> = None;
    for line in text.lines() {
        let (key, value) = line.split_once(' ').unwrap_or((line, ""));
        match key {
            "worktree" => {
                out.extend(current.take());
                current = Some(WorktreeEntry {
                    path: PathBuf::from(value),
                    ..WorktreeEntry::default()
                });
            }
            "HEAD" => {
                if let Some(c) = current.as_mut() {
                    c.head = Some(value.to_owned());
                }
            }
            "branch" => {
                if let Some(c) = current.as_mut() {
                    c.branch = Some(
                        value
                            .strip_prefix("refs/heads/")
                            .unwrap_or(value)
                            .to_owned(),
                    );
                }
            }
            "locked" => {
                if let Some(c) = current.as_mut() {
                    c.locked = Some(value.to_owned());
                }
            }
            "prunable" => {
                if let Some(c) = current.as_mut() {
                    c.prunable = true;
                }
            }
            _ => {}
        }
    }
    out.extend(current);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_every_block() {
        let text = "worktree /p\nHEAD abc\nbranch refs/heads/main\n\n\
                    worktree /p/.swarm/worktrees/agent-0\nHEAD def\nbranch refs/heads/swarm/agent-0\nlocked\n\n\
                    worktree /gone\nHEAD 123\ndetached\nprunable gitdir file points to non-existent location\n\n";
        let got = parse_worktree_list(text);
        assert_eq!(got.len(), 3);
        assert_eq!(got[0].branch.as_deref(), Some("main"));
        assert_eq!(got[1].path, PathBuf::from("/p/.swarm/worktrees/agent-0"));
        assert_eq!(got[1].branch.as_deref(), Some("swarm/agent-0"));
        assert_eq!(got[1].locked.as_deref(), Some(""));
        assert_eq!((got[2].branch.as_ref(), got[2].prunable), (None, true));
        assert_eq!(got[2].head.as_deref(), Some("123"));
    }
}
