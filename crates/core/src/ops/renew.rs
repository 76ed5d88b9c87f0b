//! `renew`: an agent's own locks counted again from now, all or none: for
//! the plan's lease, else each for the length of its own. A lock the agent
//! holds no live claim on is refused, so renewing never takes a lock.

use std::time::Duration;

use crate::backend::Operator;
use crate::locks::{AcquiredLock, LockError, LockKey};

/// Whose locks to renew, on which keys, for how long: ready to run.
#[derive(Clone, Debug)]
pub struct RenewPlan {
    keys: Vec<LockKey>,
    agent: String,
    ttl: Option<Duration>,
}

impl RenewPlan {
    /// Renews `agent`'s claims on exactly `keys`, each for the length of
    /// its own lease (a claim without one is refreshed).
    pub fn new(keys: Vec<LockKey>, agent: &str) -> RenewPlan {
        RenewPlan {
            keys,
            agent: agent.to_owned(),
            ttl: None,
        }
    }

    /// A new lease of `ttl` from now instead (`None`: each keeps its own
    /// length).
    pub fn lease(mut self, ttl: Option<Duration>) -> RenewPlan {
        self.ttl = ttl;
        self
    }

    /// The keys to renew, in the order given.
    pub fn keys(&self) -> &[LockKey] {
        &self.keys
    }

    /// The agent whose claims are renewed.
    pub fn agent(&self) -> &str {
        &self.agent
    }
}

/// What `renew` renewed.
#[derive(Clone, Debug, PartialEq)]
pub struct RenewReport {
    /// One entry per key, in the plan's order, as the lock stands now.
    pub renewed: Vec<AcquiredLock>,
}

/// Renews the plan's locks (see `LockStore::renew`): `LockError::NotHeld`
/// when the agent holds no live claim on one of the keys, and nothing is
/// renewed then.
pub fn renew(op: &Operator, plan: &RenewPlan) -> Result<RenewReport, LockError> {
    let renewed = op.backend.locks.renew(&plan.keys, &plan.agent, plan.ttl)?;
    Ok(RenewReport { renewed })
}
