//! `merge`: an agent's branch into the base, only when it merges cleanly,
//! decided before anything is touched.
//!
//! `git merge-tree --write-tree` (git 2.38) merges in memory; a conflict
//! refuses the merge with every conflicting file named, and so does an
//! uncommitted change or an untracked file in the main worktree that the
//! merge would overwrite. A clean merge is a fast-forward when the base
//! has not moved since the branch forked; otherwise a merge commit of the
//! merged tree (`git commit-tree`, by the user's git identity). The branch
//! is then moved and the main worktree updated by `git merge --ff-only`
//! onto that commit: one git command that checks the index and the files
//! again and changes nothing if anything is in the way, so even a change
//! made after the checks above cannot be overwritten or half-merged.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::git::{Git, GitError, MERGE_TREE_VERSION, MergeTree, TreeChange};

use super::error::WorktreeError;
use super::repository::{Repository, branch_of};

/// How the branch was merged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MergeKind {
    /// Everything on the branch was in the target already.
    UpToDate,
    /// The target moved forward to the branch's commit.
    FastForward,
    /// A merge commit joins the two.
    MergeCommit,
}

impl MergeKind {
    /// The word for it in reports (`fast-forward`).
    pub fn as_str(self) -> &'static str {
        match self {
            MergeKind::UpToDate => "up-to-date",
            MergeKind::FastForward => "fast-forward",
            MergeKind::MergeCommit => "merge-commit",
        }
    }
}

/// What `merge` did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Merged {
    /// The agent.
    pub agent: String,
    /// Its branch.
    pub branch: String,
    /// The branch merged into.
    pub into: String,
    /// How.
    pub kind: MergeKind,
    /// The target's commit afterwards.
    pub commit: String,
    /// Files the merge changed on the target.
    pub files: Vec<String>,
    /// The worktree whose files were updated (the main one); `None` when
    /// only the branch moved (it is checked out nowhere) or nothing changed.
    pub updated: Option<PathBuf>,
    /// Files changed and not committed in the agent's worktree: they are
    /// not part of the merge, and were left where they are.
    pub uncommitted: Vec<String>,
}

/// Merges `swarm/<agent>` into `into` (default: the branch checked out in
/// the main worktree), as the module says.
pub fn merge(repo: &Repository, agent: &str, into: Option<&str>) -> Result<Merged, WorktreeError> {
    let git = repo.git();
    let version = git.version()?;
    if version < MERGE_TREE_VERSION {
        return Err(GitError::TooOld {
            what: "swarm merge (git merge-tree --write-tree)",
            need: format!("{}.{}", MERGE_TREE_VERSION.major, MERGE_TREE_VERSION.minor),
            have: version.to_string(),
        }
        .into());
    }
    let branch = branch_of(agent);
    let Some(theirs) = git.commit_of(&format!("refs/heads/{branch}"))? else {
        return Err(WorktreeError::NoBranch {
            agent: agent.to_owned(),
            branch,
            known: repo
                .agent_branches()?
                .into_iter()
                .map(|b| b.agent)
                .collect(),
        });
    };
    let uncommitted = match repo.checked_out_in(&branch)? {
        Some(path) if path.is_dir() => Git::at(&path)
            .status()?
            .into_iter()
            .map(|e| e.path)
            .collect(),
        _ => Vec::new(),
    };
    let checked_out = git.checked_out_branch()?;
    let into = match into {
        Some(b) => b.to_owned(),
        None => checked_out.clone().ok_or(WorktreeError::Detached)?,
    };
    let Some(ours) = git.commit_of(&format!("refs/heads/{into}"))? else {
        return Err(WorktreeError::NoTarget(into));
    };
    let in_main = checked_out.as_deref() == Some(into.as_str());
    if !in_main && let Some(worktree) = repo.checked_out_in(&into)? {
        return Err(WorktreeError::CheckedOutElsewhere {
            branch: into,
            worktree,
        });
    }
    if in_main && git.merging()? {
        return Err(WorktreeError::MergeInProgress);
    }
    let done = |kind, commit: String, files, updated| Merged {
        agent: agent.to_owned(),
        branch: branch.clone(),
        into: into.clone(),
        kind,
        commit,
        files,
        updated,
        uncommitted: uncommitted.clone(),
    };
    if git.is_ancestor(&theirs, &ours)? {
        return Ok(done(MergeKind::UpToDate, ours, Vec::new(), None));
    }
    let (kind, tree) = if git.is_ancestor(&ours, &theirs)? {
        (MergeKind::FastForward, theirs.clone())
    } else {
        match git.merge_tree(&ours, &theirs)? {
            MergeTree::Clean(tree) => (MergeKind::MergeCommit, tree),
            MergeTree::Conflicts(files) => {
                return Err(WorktreeError::Conflicts {
                    branch,
                    into,
                    files,
                });
            }
        }
    };
    let changes = git.tree_changes(&ours, &tree)?;
    if in_main {
        check_main_worktree(repo.root(), &changes)?;
    }
    let commit = match kind {
        MergeKind::MergeCommit => git.commit_tree(
            &tree,
            &[&ours, &theirs],
            &format!("Merge branch '{branch}' into {into}"),
        )?,
        _ => theirs.clone(),
    };
    let files = changes.into_iter().map(|c| c.path).collect();
    if in_main {
        git.fast_forward_to(&commit)?;
        Ok(done(kind, commit, files, Some(repo.root().to_owned())))
    } else {
        git.move_branch(
            &into,
            &commit,
            &ours,
            &format!("swarm merge {agent}: {}", kind.as_str()),
        )?;
        Ok(done(kind, commit, files, None))
    }
}

/// Refuses the merge when the main worktree has uncommitted changes to a
/// file it changes, or a file git does not track (untracked or ignored)
/// where it puts one.
pub(crate) fn check_main_worktree(
    root: &Path,
    changes: &[TreeChange],
) -> Result<(), WorktreeError> {
    let dirty: BTreeSet<String> = Git::at(root)
        .status()?
        .into_iter()
        .filter(|e| !e.is_untracked())
        .map(|e| e.path)
        .collect();
    let touched: Vec<&str> = changes
        .iter()
        .map(|c| c.path.as_str())
        .filter(|p| dirty.contains(*p))
        .collect();
    if !touched.is_empty() {
        return Err(WorktreeError::DirtyFiles {
            files: touched.into_iter().map(str::to_owned).collect(),
        });
    }
    let deleted: BTreeSet<&str> = changes
        .iter()
        .filter(|c| c.status == 'D')
        .map(|c| c.path.as_str())
        .collect();
    let mut in_the_way = BTreeSet::new();
    for c in changes.iter().filter(|c| c.status == 'A') {
        if std::fs::symlink_metadata(root.join(&c.path)).is_ok() {
            in_the_way.insert(c.path.clone());
        }
        // A file where the new one needs a directory.
        for (i, _) in c.path.match_indices('/') {
            let parent = &c.path[..i];
            if deleted.contains(parent) {
                continue;
            }
            if std::fs::symlink_metadata(root.join(parent)).is_ok_and(|m| !m.is_dir()) {
                in_the_way.insert(parent.to_owned());
            }
        }
    }
    if !in_the_way.is_empty() {
        return Err(WorktreeError::UntrackedInTheWay {
            files: in_the_way.into_iter().collect(),
        });
    }
    Ok(())
}
