//! The audit log, `.swarm/audit.log`: one JSON object per line for every
//! action that overrides another agent or removes state on its behalf
//! (forced unlocks, stale-lock takeovers, cleanups, ended leases, acting
//! `--as-other`), and for renewed leases, so that a person can see
//! afterwards who did what to whom, and who kept what for how long.

use serde::Serialize;

use crate::store::{AppendFile, Paths, StoreError};
use crate::support::json::{self, Layout};
use crate::support::time;

/// What happened.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum AuditKind {
    /// `swarm unlock --force` released another agent's (or a damaged) lock.
    ForceUnlock,
    /// A lock replaced another agent's stale lock on the same path.
    StaleTakeover,
    /// `swarm locks --clean` removed a stale lock.
    CleanStale,
    /// `swarm locks --clean` removed a damaged lock file.
    CleanDamaged,
    /// A command ran as another agent than the pane's own (`--as-other`).
    AsOther,
    /// A person answered an agent's dialog (`swarm answer`, the monitor,
    /// the dashboard).
    Answered,
    /// A lease ended and its claim was removed (by `swarm locks --clean`,
    /// or when another agent took the path).
    LeaseExpired,
    /// A holder renewed its lease (`swarm lock --renew`).
    LeaseRenewed,
    /// A new budget period was started for an agent (`swarm budget
    /// reset`).
    BudgetReset,
}

/// One line of the audit log.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct AuditEvent {
    /// When, aware UTC ISO 8601.
    pub time: String,
    /// What.
    pub event: AuditKind,
    /// The agent that did it, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub by: Option<String>,
    /// The lock path concerned.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// The agent whose lock it was.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub holder: Option<String>,
    /// When that lock was taken, Unix seconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub locked_at: Option<f64>,
    /// The holder's reason.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Anything else worth keeping (a damaged file's problem, the command).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

impl AuditEvent {
    /// An event of `kind` happening now, by `by`, with no other details.
    pub fn new(kind: AuditKind, by: Option<&str>) -> AuditEvent {
        AuditEvent {
            time: time::utc_iso(time::now()),
            event: kind,
            by: by.map(str::to_owned),
            path: None,
            holder: None,
            locked_at: None,
            reason: None,
            detail: None,
        }
    }
}

/// The project's audit log.
#[derive(Clone, Debug)]
pub struct AuditLog {
    file: AppendFile,
}

impl AuditLog {
    /// The audit log of the project laid out by `paths`.
    pub fn new(paths: &Paths) -> AuditLog {
        AuditLog {
            file: AppendFile::new(paths.audit_log()),
        }
    }

    /// Appends the events, one line each, and flushes them to disk.
    pub fn record(&self, events: &[AuditEvent]) -> Result<(), StoreError> {
        let lines: Vec<Vec<u8>> = events
            .iter()
            .map(|e| json::to_vec(e, Layout::Line).unwrap_or_default())
            .collect();
        self.file.append_lines(&lines)
    }
}
