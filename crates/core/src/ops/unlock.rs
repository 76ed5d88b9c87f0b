//! `unlock`: releases an agent's locks; another agent's only when the plan
//! forces it, which the store records first.

use crate::backend::Operator;
use crate::locks::{LockError, LockKey, Released};

/// What to release, for whom: checked, ready to run.
#[derive(Clone, Debug)]
pub struct UnlockPlan {
    keys: Vec<LockKey>,
    agent: String,
    force: bool,
}

impl UnlockPlan {
    /// Releases `agent`'s locks on `keys`; a lock another agent holds
    /// fails the whole call (nothing is released).
    pub fn new(keys: Vec<LockKey>, agent: &str) -> UnlockPlan {
        UnlockPlan {
            keys,
            agent: agent.to_owned(),
            force: false,
        }
    }

    /// Releases other agents' locks (and damaged lock files) on the keys
    /// too, when `force`.
    pub fn force(mut self, force: bool) -> UnlockPlan {
        self.force = force;
        self
    }

    /// The keys to release, in the order given.
    pub fn keys(&self) -> &[LockKey] {
        &self.keys
    }
}

/// What `unlock` did.
#[derive(Clone, Debug)]
pub struct UnlockReport {
    /// For each key of the plan, in its order, what happened to it.
    pub released: Vec<(LockKey, Released)>,
}

/// Releases the plan's locks (see `LockStore::release`).
pub fn unlock(op: &Operator, plan: &UnlockPlan) -> Result<UnlockReport, LockError> {
    let released = op
        .backend
        .locks
        .release(&plan.keys, &plan.agent, plan.force)?;
    Ok(UnlockReport { released })
}
