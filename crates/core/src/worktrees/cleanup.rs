//! Which agents' worktrees may go when a swarm stops, and removing them:
//! only one whose agent has left, with nothing uncommitted and every
//! commit merged into the base; its branch goes with it.

use std::path::PathBuf;

use crate::git::Git;
use crate::store::Paths;

use super::error::WorktreeError;
use super::repository::Repository;

/// Why a worktree stays.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Keep {
    /// Its agent is still registered as active.
    Running,
    /// These files are changed and not committed (untracked ones too).
    Uncommitted(Vec<String>),
    /// This many commits are not in the base.
    Unmerged(u64),
    /// git refused to remove it (locked, or changed since it was checked).
    Refused(String),
}

/// One agent worktree of `.swarm/worktrees/`, and whether it may go.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RemovalVerdict {
    /// The agent.
    pub agent: String,
    /// The worktree.
    pub path: PathBuf,
    /// Its branch.
    pub branch: String,
    /// Why it stays; `None` when it may be removed.
    pub keep: Option<Keep>,
    /// Why its branch stayed although the worktree went (git refused to
    /// delete it).
    pub branch_kept: Option<String>,
}

/// Looks at every agent worktree under `.swarm/worktrees/` (on its
/// `swarm/<id>` branch); `active` are the agents still running, whose
/// worktrees always stay.
pub fn removal_verdicts(
    repo: &Repository,
    paths: &Paths,
    active: &[String],
) -> Result<Vec<RemovalVerdict>, WorktreeError> {
    let base = repo.base()?;
    let dir = paths.worktrees_dir();
    let mut out = Vec::new();
    for b in repo.agent_branches()? {
        let Some(worktree) = b.worktree else {
            continue;
        };
        if !worktree.path.starts_with(&dir) && !canonical_starts_with(&worktree.path, &dir) {
            continue;
        }
        let keep = if active.contains(&b.agent) {
            Some(Keep::Running)
        } else if let Some(reason) = worktree.locked.clone() {
            Some(Keep::Refused(if reason.is_empty() {
                "it is locked (git worktree lock)".into()
            } else {
                format!("it is locked: {reason}")
            }))
        } else {
            let uncommitted: Vec<String> = if worktree.path.is_dir() {
                Git::at(&worktree.path)
                    .status()?
                    .into_iter()
                    .map(|e| e.path)
                    .collect()
            } else {
                Vec::new()
            };
            let (ahead, _) = repo.git().ahead_behind(&base.commit, &b.branch)?;
            if !uncommitted.is_empty() {
                Some(Keep::Uncommitted(uncommitted))
            } else if ahead > 0 {
                Some(Keep::Unmerged(ahead))
            } else {
                None
            }
        };
        out.push(RemovalVerdict {
            agent: b.agent,
            path: worktree.path,
            branch: b.branch,
            keep,
            branch_kept: None,
        });
    }
    Ok(out)
}

fn canonical_starts_with(path: &std::path::Path, dir: &std::path::Path) -> bool {
    match (path.canonicalize(), dir.canonicalize()) {
        (Ok(p), Ok(d)) => p.starts_with(d),
        _ => false,
    }
}

/// Removes each worktree `review` let go, then its branch; one git
/// refuses (it checks again) is kept with git's reason. Returns every
/// verdict as it ended.
pub fn remove(repo: &Repository, verdicts: Vec<RemovalVerdict>) -> Vec<RemovalVerdict> {
    verdicts
        .into_iter()
        .map(|mut v| {
            if v.keep.is_some() {
                return v;
            }
            let git = repo.git();
            match git.remove_worktree(&v.path) {
                Err(e) => v.keep = Some(Keep::Refused(e.to_string())),
                Ok(()) => {
                    if let Err(e) = git.delete_merged_branch(&v.branch) {
                        v.branch_kept = Some(e.to_string());
                    }
                }
            }
            v
        })
        .collect()
}
