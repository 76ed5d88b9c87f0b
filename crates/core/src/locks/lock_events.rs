//! The audit records of lock changes, the same for every store: whose
//! claim a takeover, a cleanup or a forced release removed, and which
//! leases ended or were renewed.

use crate::store::audit::{AuditEvent, AuditKind};
use crate::support::time;

use super::held_lock::HeldLock;
use super::hold::Hold;

/// `kind` done by `by` to the lock `held` (its first holder's claim).
pub fn lock_event(kind: AuditKind, by: Option<&str>, held: &HeldLock) -> AuditEvent {
    let mut e = AuditEvent::new(kind, by);
    e.path = Some(held.record.filepath.clone());
    e.holder = Some(held.record.agent_id.clone());
    e.locked_at = Some(held.record.locked_at);
    e.reason = Some(held.record.reason.clone());
    e
}

/// The claim `hold` on `path`, lapsed, removed by `by`: `lease-expired`
/// for a lease (saying when it ended), else `stale` (a stale takeover or
/// cleanup).
pub fn lapse_event(stale: AuditKind, by: Option<&str>, path: &str, hold: &Hold) -> AuditEvent {
    let kind = if hold.expires_at.is_some() {
        AuditKind::LeaseExpired
    } else {
        stale
    };
    let mut e = hold_event(kind, by, path, hold);
    if let Some(end) = hold.expires_at {
        e.detail = Some(format!("lease ended at {}", iso(end)));
    }
    e
}

/// `by` renewed its claim `hold` on `path` (as it is now).
pub fn renew_event(path: &str, hold: &Hold) -> AuditEvent {
    let mut e = hold_event(AuditKind::LeaseRenewed, Some(&hold.agent_id), path, hold);
    if let Some(end) = hold.expires_at {
        e.detail = Some(format!("lease now ends at {}", iso(end)));
    }
    e
}

fn hold_event(kind: AuditKind, by: Option<&str>, path: &str, hold: &Hold) -> AuditEvent {
    let mut e = AuditEvent::new(kind, by);
    e.path = Some(path.to_owned());
    e.holder = Some(hold.agent_id.clone());
    e.locked_at = Some(hold.locked_at);
    e.reason = Some(hold.reason.clone());
    e
}

fn iso(unix: f64) -> String {
    time::from_unix_seconds(unix).map_or_else(|| format!("{unix}"), time::utc_iso)
}
