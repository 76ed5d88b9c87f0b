//! `Repository`: the project's git repository seen from its main worktree,
//! and the agents' branches (`swarm/<agent id>`) with their worktrees.

use std::path::{Path, PathBuf};

use crate::domain::validate;
use crate::git::{Git, GitError, WorktreeEntry, layout};
use crate::store::Paths;

use super::error::WorktreeError;

/// Branches of agents start with this; the rest is the agent's id.
pub(crate) const BRANCH_PREFIX: &str = "swarm/";

/// The branch of an agent's worktree.
pub(crate) fn branch_of(agent: &str) -> String {
    format!("{BRANCH_PREFIX}{agent}")
}

/// Where an agent's worktree goes: `.swarm/worktrees/<agent id>`.
pub(crate) fn worktree_path(paths: &Paths, agent: &str) -> PathBuf {
    paths.worktrees_dir().join(agent)
}

/// The linked worktrees of the project's repository that lie under
/// `.swarm/worktrees/`, read from git's files without running git (cheap
/// enough for a command that only mentions them).
pub fn agent_worktree_dirs(paths: &Paths) -> Vec<PathBuf> {
    let dir = paths.worktrees_dir();
    layout::linked_worktrees(paths.root())
        .into_iter()
        .filter(|w| w.starts_with(&dir))
        .collect()
}

/// The branch the agents' work is measured against and merged into.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Base {
    /// The branch checked out in the main worktree; `None` when its HEAD
    /// is detached.
    pub branch: Option<String>,
    /// Its commit.
    pub commit: String,
}

impl Base {
    /// How to name it to a person: the branch, or `HEAD (detached at
    /// <short commit>)`.
    pub fn name(&self) -> String {
        match &self.branch {
            Some(b) => b.clone(),
            None => format!(
                "HEAD (detached at {})",
                self.commit.get(..12).unwrap_or(&self.commit)
            ),
        }
    }
}

/// One agent's branch, with its worktree when it has one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct AgentBranch {
    /// The agent's id.
    pub agent: String,
    /// `swarm/<agent>`.
    pub branch: String,
    /// The worktree the branch is checked out in, if any.
    pub worktree: Option<WorktreeEntry>,
}

/// The project's repository, from its main worktree.
#[derive(Clone, Debug)]
pub struct Repository {
    git: Git,
    root: PathBuf,
}

impl Repository {
    /// The repository whose main worktree's top is `root`; refuses a root
    /// that is not one (a directory below the top, or outside git).
    pub fn open(root: &Path) -> Result<Repository, WorktreeError> {
        let git = Git::at(root);
        let top = match git.toplevel() {
            Ok(top) => top,
            Err(GitError::NotARepo { .. }) => {
                return Err(WorktreeError::NotARepository {
                    root: root.to_owned(),
                    top: None,
                });
            }
            Err(e) => return Err(e.into()),
        };
        let same = |a: &Path, b: &Path| match (a.canonicalize(), b.canonicalize()) {
            (Ok(a), Ok(b)) => a == b,
            _ => a == b,
        };
        if !same(&top, root) {
            return Err(WorktreeError::NotARepository {
                root: root.to_owned(),
                top: Some(top),
            });
        }
        Ok(Repository {
            git,
            root: root.to_owned(),
        })
    }

    /// git in the main worktree.
    pub(crate) fn git(&self) -> &Git {
        &self.git
    }

    /// The main worktree's top.
    pub(crate) fn root(&self) -> &Path {
        &self.root
    }

    /// The branch checked out in the main worktree and its commit.
    pub(crate) fn base(&self) -> Result<Base, WorktreeError> {
        let Some(commit) = self.git.commit_of("HEAD")? else {
            return Err(WorktreeError::NoCommit {
                root: self.root.clone(),
            });
        };
        Ok(Base {
            branch: self.git.checked_out_branch()?,
            commit,
        })
    }

    /// Every agent's branch (`swarm/<valid agent id>`), in agent order,
    /// with the worktree it is checked out in.
    pub(crate) fn agent_branches(&self) -> Result<Vec<AgentBranch>, WorktreeError> {
        let worktrees = self.git.worktrees()?;
        let mut out: Vec<AgentBranch> = self
            .git
            .branches(BRANCH_PREFIX)?
            .into_iter()
            .filter_map(|branch| {
                let agent = branch.strip_prefix(BRANCH_PREFIX)?.to_owned();
                let valid = validate::agent_id(&agent).is_ok_and(|id| id == agent);
                valid.then(|| AgentBranch {
                    worktree: worktrees
                        .iter()
                        .find(|w| w.branch.as_deref() == Some(branch.as_str()))
                        .cloned(),
                    agent,
                    branch,
                })
            })
            .collect();
        out.sort_by_key(|a| agent_order(&a.agent));
        Ok(out)
    }

    /// `swarm/<agent>` when that branch exists; else the error that names
    /// the agents that have one.
    pub(crate) fn agent_branch(&self, agent: &str) -> Result<String, WorktreeError> {
        let branch = branch_of(agent);
        if self
            .git
            .commit_of(&format!("refs/heads/{branch}"))?
            .is_some()
        {
            return Ok(branch);
        }
        Err(WorktreeError::NoBranch {
            agent: agent.to_owned(),
            branch,
            known: self
                .agent_branches()?
                .into_iter()
                .map(|b| b.agent)
                .collect(),
        })
    }

    /// The worktree `branch` is checked out in, if any.
    pub(crate) fn checked_out_in(&self, branch: &str) -> Result<Option<PathBuf>, WorktreeError> {
        Ok(self
            .git
            .worktrees()?
            .into_iter()
            .find(|w| w.branch.as_deref() == Some(branch))
            .map(|w| w.path))
    }
}

/// True when `path`, every link resolved, is inside `dir`.
pub(crate) fn inside(dir: &Path, path: &Path) -> bool {
    match (dir.canonicalize(), path.canonicalize()) {
        (Ok(dir), Ok(path)) => path.starts_with(dir),
        _ => false,
    }
}

/// Sorts `agent-2` before `agent-10`, and named ids after numbered ones.
pub(crate) fn agent_order(agent: &str) -> (u64, String) {
    (
        validate::agent_number(agent).unwrap_or(u64::MAX),
        agent.to_owned(),
    )
}
