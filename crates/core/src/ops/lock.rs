//! `lock`: takes locks for an agent, all or none, waiting while another
//! agent's lock is in the way when the plan says so. The reason rule
//! lives here: a reason is shown in other agents' terminals, so it is one
//! line without control sequences, at most `MAX_REASON_CHARS`, and a
//! blank one counts as none (the lock keeps its reason, or a new one gets
//! `locking.default_reason`).

use std::ops::ControlFlow;
use std::time::{Duration, Instant};

use crate::backend::Operator;
use crate::locks::{AcquiredLock, LockError, LockKey, LockRequest, MAX_REASON_CHARS};
use crate::support::poll::Pauses;
use crate::support::sanitize;

/// How often a waiting lock is tried again: it waits for another agent to
/// finish, not for a race to settle, so the pause grows to a second.
const RETRIES: Pauses = Pauses::new(Duration::from_millis(50), Duration::from_secs(1));

/// The longest wait a plan keeps: a day (as `swarm lock --wait` allows).
const MAX_WAIT: Duration = Duration::from_secs(86_400);

/// What to lock, for whom and how: checked, ready to run.
#[derive(Clone, Debug)]
pub struct LockPlan {
    keys: Vec<LockKey>,
    agent: String,
    reason: Option<String>,
    shared: bool,
    ttl: Option<Duration>,
    wait: Option<Duration>,
}

impl LockPlan {
    /// Exclusive locks on `keys` for `agent`, without a lease, failing at
    /// once when one is in the way; `reason` as typed, held to the
    /// module's reason rule (`LockError::ReasonTooLong` when longer than
    /// `MAX_REASON_CHARS`).
    pub fn new(
        keys: Vec<LockKey>,
        agent: &str,
        reason: Option<&str>,
    ) -> Result<LockPlan, LockError> {
        Ok(LockPlan {
            keys,
            agent: agent.to_owned(),
            reason: clean_reason(reason)?,
            shared: false,
            ttl: None,
            wait: None,
        })
    }

    /// Shared (reading) locks instead of exclusive ones, when `shared`.
    pub fn shared(mut self, shared: bool) -> LockPlan {
        self.shared = shared;
        self
    }

    /// A lease of `ttl` (`None`: the stale timeout applies).
    pub fn lease(mut self, ttl: Option<Duration>) -> LockPlan {
        self.ttl = ttl;
        self
    }

    /// While a lock is in the way, keep trying for up to `wait` (at most
    /// a day); `None` fails at once.
    pub fn wait(mut self, wait: Option<Duration>) -> LockPlan {
        self.wait = wait.map(|w| w.min(MAX_WAIT));
        self
    }

    /// The keys to lock, in the order given.
    pub fn keys(&self) -> &[LockKey] {
        &self.keys
    }

    /// The reason, cleaned; `None` when none (or a blank one) was given.
    pub fn reason(&self) -> Option<&str> {
        self.reason.as_deref()
    }
}

/// What `lock` took.
#[derive(Clone, Debug, PartialEq)]
pub struct LockReport {
    /// One entry per key, in the plan's order.
    pub acquired: Vec<AcquiredLock>,
}

/// Takes the plan's locks (see `LockStore::acquire`). While another
/// agent's lock is in the way and the plan's wait has not run out, it
/// tries again after a growing pause; then `LockError::Held` lists what
/// is still in the way.
pub fn lock(op: &Operator, plan: &LockPlan) -> Result<LockReport, LockError> {
    let request = LockRequest {
        agent: &plan.agent,
        reason: plan.reason.as_deref(),
        default_reason: &op.default_lock_reason,
        shared: plan.shared,
        ttl: plan.ttl,
    };
    let store = &*op.backend.locks;
    let now = Instant::now();
    let deadline = plan.wait.and_then(|w| now.checked_add(w)).unwrap_or(now);
    let taken = RETRIES.until(deadline, || match store.acquire(&plan.keys, &request) {
        Ok(acquired) => ControlFlow::Break(Ok(acquired)),
        Err(LockError::Held(conflicts)) => ControlFlow::Continue(LockError::Held(conflicts)),
        Err(e) => ControlFlow::Break(Err(e)),
    });
    match taken {
        Ok(Ok(acquired)) => Ok(LockReport { acquired }),
        Ok(Err(e)) | Err(e) => Err(e),
    }
}

/// The reason rule (see the module's comment).
fn clean_reason(raw: Option<&str>) -> Result<Option<String>, LockError> {
    let Some(raw) = raw else { return Ok(None) };
    let len = raw.chars().count();
    if len > MAX_REASON_CHARS {
        return Err(LockError::ReasonTooLong { len });
    }
    Ok(Some(sanitize::one_line(raw)).filter(|r| !r.trim().is_empty()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reason_is_one_clean_line_and_a_blank_one_is_none() {
        assert_eq!(clean_reason(None).expect("ok"), None);
        assert_eq!(clean_reason(Some("")).expect("ok"), None);
        assert_eq!(clean_reason(Some(" \t ")).expect("ok"), None);
        assert_eq!(clean_reason(Some("\x1b[31m")).expect("ok"), None);
        let clean = clean_reason(Some("schema\nchange \x1b[31mnow")).expect("ok");
        assert_eq!(
            clean,
            Some(sanitize::one_line("schema\nchange \x1b[31mnow"))
        );
        let clean = clean.expect("a reason");
        assert!(
            !clean.contains('\n') && !clean.contains('\x1b'),
            "{clean:?}"
        );
    }

    #[test]
    fn a_reason_too_long_is_refused() {
        let most = "r".repeat(MAX_REASON_CHARS);
        assert_eq!(clean_reason(Some(&most)).expect("fits"), Some(most.clone()));
        let over = format!("{most}é");
        assert!(matches!(
            clean_reason(Some(&over)),
            Err(LockError::ReasonTooLong { len }) if len == MAX_REASON_CHARS + 1
        ));
    }
}
