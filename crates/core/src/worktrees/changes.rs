//! `Changes`: what each agent's branch holds compared with the base (the
//! branch checked out in the main worktree), and the files two or more
//! agents changed (`Overlap`).

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::git::Git;

use super::error::WorktreeError;
use super::repository::{Base, Repository};

/// One agent's work on its branch.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct AgentChanges {
    /// The agent's id.
    pub agent: String,
    /// Its branch, `swarm/<agent>`.
    pub branch: String,
    /// Its worktree, `None` when the branch has none (any more).
    pub worktree: Option<PathBuf>,
    /// Commits on the branch that the base lacks.
    pub ahead: u64,
    /// Commits on the base that the branch lacks.
    pub behind: u64,
    /// Files the branch's commits changed since it forked from the base.
    pub committed: Vec<String>,
    /// Files changed in its worktree and not committed (staged, unstaged
    /// or untracked).
    pub uncommitted: Vec<String>,
}

impl AgentChanges {
    /// Every file the agent changed, committed or not, each once.
    pub fn files(&self) -> BTreeSet<&str> {
        self.committed
            .iter()
            .chain(&self.uncommitted)
            .map(String::as_str)
            .collect()
    }
}

/// A file changed by two or more agents.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Overlap {
    /// The file, relative to the top of the repository.
    pub path: String,
    /// The agents that changed it, in agent order.
    pub agents: Vec<String>,
}

/// Every agent's branch against the base.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Changes {
    /// The branch measured against.
    pub base: Base,
    /// One entry per agent branch, in agent order.
    pub agents: Vec<AgentChanges>,
    /// The files changed by two or more agents, by path.
    pub overlaps: Vec<Overlap>,
}

/// Looks at every agent's branch (`swarm/<id>`) and worktree. Three git
/// calls per agent; nothing is changed.
pub fn changes(repo: &Repository) -> Result<Changes, WorktreeError> {
    let base = repo.base()?;
    let git = repo.git();
    let mut agents = Vec::new();
    for b in repo.agent_branches()? {
        let (ahead, behind) = git.ahead_behind(&base.commit, &b.branch)?;
        let committed = git.changed_since_fork(&base.commit, &b.branch)?;
        let worktree = b
            .worktree
            .filter(|w| !w.prunable && w.path.is_dir())
            .map(|w| w.path);
        let uncommitted = match &worktree {
            Some(path) => {
                let mut files: Vec<String> = Git::at(path)
                    .status()?
                    .into_iter()
                    .map(|e| e.path)
                    .collect();
                files.sort();
                files.dedup();
                files
            }
            None => Vec::new(),
        };
        agents.push(AgentChanges {
            agent: b.agent,
            branch: b.branch,
            worktree,
            ahead,
            behind,
            committed,
            uncommitted,
        });
    }
    let overlaps = overlaps(&agents);
    Ok(Changes {
        base,
        agents,
        overlaps,
    })
}

/// The files that appear in two or more agents' changes.
pub(crate) fn overlaps(agents: &[AgentChanges]) -> Vec<Overlap> {
    let mut by_path: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    for a in agents {
        for file in a.files() {
            by_path.entry(file).or_default().push(a.agent.clone());
        }
    }
    by_path
        .into_iter()
        .filter(|(_, agents)| agents.len() >= 2)
        .map(|(path, agents)| Overlap {
            path: path.to_owned(),
            agents,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn agent(id: &str, committed: &[&str], uncommitted: &[&str]) -> AgentChanges {
        AgentChanges {
            agent: id.into(),
            branch: format!("swarm/{id}"),
            worktree: None,
            ahead: 0,
            behind: 0,
            committed: committed.iter().map(|s| s.to_string()).collect(),
            uncommitted: uncommitted.iter().map(|s| s.to_string()).collect(),
        }
    }

    #[test]
    fn a_file_two_agents_change_is_an_overlap() {
        let agents = [
            agent("agent-0", &["src/a.py", "README"], &[]),
            agent("agent-1", &["src/b.py"], &["src/a.py"]),
            agent("agent-2", &["README"], &["README", "x"]),
        ];
        assert_eq!(
            overlaps(&agents),
            [
                Overlap {
                    path: "README".into(),
                    agents: vec!["agent-0".into(), "agent-2".into()]
                },
                Overlap {
                    path: "src/a.py".into(),
                    agents: vec!["agent-0".into(), "agent-1".into()]
                },
            ]
        );
        assert!(overlaps(&agents[..1]).is_empty());
    }
}
