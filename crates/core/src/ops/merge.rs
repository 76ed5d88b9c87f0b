//! `merge`: an agent's branch into the base, only when it merges cleanly
//! (`worktrees::merge` decides before anything is touched), then which of
//! the other agents' branches are behind the target now.

use crate::domain::validate;
use crate::error::{Error, Result};
use crate::worktrees::{self, MergeKind, Merged, Repository, WorktreeError};

/// Which agent's branch to merge, and into what: checked, ready to run.
#[derive(Clone, Debug)]
pub struct MergePlan {
    agent: String,
    into: Option<String>,
}

impl MergePlan {
    /// Merges `swarm/<agent>` into `into` (`None`: the branch checked out
    /// in the main worktree). Refused: an agent id that is not one, a
    /// target that is blank or starts with `-` (`Error::Invalid`).
    pub fn new(agent: &str, into: Option<&str>) -> Result<MergePlan> {
        let agent = validate::agent_id(agent)?;
        if let Some(into) = into
            && (into.trim().is_empty() || into.starts_with('-'))
        {
            return Err(Error::Invalid(format!(
                "--into {into:?} is not a branch name"
            )));
        }
        Ok(MergePlan {
            agent,
            into: into.map(str::to_owned),
        })
    }

    /// The agent whose branch is merged.
    pub fn agent(&self) -> &str {
        &self.agent
    }
}

/// What `merge` did.
#[derive(Clone, Debug)]
pub struct MergeReport {
    /// The merge.
    pub merged: Merged,
    /// The other agents whose branches are behind the target now, with
    /// by how many commits (none when nothing was merged).
    pub behind: Vec<(String, u64)>,
    /// What the person should know (how far the others are behind could
    /// not be told).
    pub warnings: Vec<String>,
}

/// Merges the plan's branch in the project's repository (see
/// `worktrees::merge`; it needs nothing else of the swarm); a merge
/// refused leaves every tree and branch as it was, and is the error.
pub fn merge(
    repo: &Repository,
    plan: &MergePlan,
) -> std::result::Result<MergeReport, WorktreeError> {
    let merged = worktrees::merge(repo, &plan.agent, plan.into.as_deref())?;
    let mut warnings = Vec::new();
    let behind = behind_now(repo, &merged, &mut warnings);
    Ok(MergeReport {
        merged,
        behind,
        warnings,
    })
}

/// The other agents' branches that are behind the target now.
fn behind_now(
    repo: &Repository,
    merged: &Merged,
    warnings: &mut Vec<String>,
) -> Vec<(String, u64)> {
    if merged.kind == MergeKind::UpToDate {
        return Vec::new();
    }
    match worktrees::changes(repo) {
        Ok(changes) if changes.base.branch.as_deref() == Some(merged.into.as_str()) => changes
            .agents
            .into_iter()
            .filter(|a| a.agent != merged.agent && a.behind > 0)
            .map(|a| (a.agent, a.behind))
            .collect(),
        Ok(_) => Vec::new(),
        Err(e) => {
            warnings.push(format!(
                "could not tell how far the other agents are behind: {e}"
            ));
            Vec::new()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plan_takes_an_agent_id_and_a_branch_name_or_none() {
        let plan = MergePlan::new(" agent-0 ", None).expect("a plan");
        assert_eq!(plan.agent(), "agent-0");
        assert!(MergePlan::new("agent-0", Some("release")).is_ok());
        assert!(matches!(
            MergePlan::new("agent 0", None),
            Err(Error::Validation(_))
        ));
        for into in ["", "  ", "-x", "--force"] {
            assert!(
                matches!(
                    MergePlan::new("agent-0", Some(into)),
                    Err(Error::Invalid(_))
                ),
                "{into:?}"
            );
        }
    }
}
