//! `notice_overlaps`: looks at the agents' branches, records the overlaps
//! (a file changed on two agents' branches) for the monitor and the
//! dashboard and, when the plan names a sender, tells the agents of each
//! new one once (`messaging::notice_overlaps`).

use crate::agents::registry::Registry;
use crate::backend::Operator;
use crate::error::Result;
use crate::worktrees::Changes;

pub use crate::messaging::ToldOverlap;

/// Whether to tell new overlaps, and as whom: ready to run.
#[derive(Clone, Debug, Default)]
pub struct OverlapPlan {
    from: Option<String>,
}

impl OverlapPlan {
    /// Records the overlaps; tells each new one as `from` (swarm itself
    /// sends it, with no rate limit), or tells none when `None`.
    pub fn new(from: Option<&str>) -> OverlapPlan {
        OverlapPlan {
            from: from.map(str::to_owned),
        }
    }
}

/// What `notice_overlaps` saw and did.
#[derive(Clone, Debug)]
pub struct OverlapReport {
    /// The branches and their overlaps.
    pub changes: Changes,
    /// The overlaps told now, and to whom.
    pub told: Vec<ToldOverlap>,
    /// What the user should know.
    pub warnings: Vec<String>,
}

/// Looks at the branches of the agents of `registry` in the repository
/// whose main worktree is the project root, and tells what the plan says.
pub fn notice_overlaps(
    op: &Operator,
    registry: &Registry,
    plan: &OverlapPlan,
) -> Result<OverlapReport> {
    let (changes, told, warnings) = crate::messaging::notice_overlaps(
        &op.messenger(),
        registry,
        &op.paths,
        plan.from.as_deref(),
    )?;
    Ok(OverlapReport {
        changes,
        told,
        warnings,
    })
}
