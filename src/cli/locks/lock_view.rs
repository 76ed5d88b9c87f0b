//! How locks look in output: the Python tool's text blocks for people and
//! one JSON object per lock for programs. Everything read from a lock file
//! is sanitised before it reaches a terminal.

use serde::Serialize;

use crate::locks::{HeldLock, LockKey, LockRecord, LockStore, has_glob_chars};
use crate::support::sanitize;
use crate::support::time;

/// One lock as JSON: the lock file's four keys (docs/FORMATS.md) plus what a
/// reader would otherwise compute.
#[derive(Debug, Serialize)]
pub(crate) struct LockJson {
    /// The holder.
    pub agent_id: String,
    /// The path or pattern as stored.
    pub filepath: String,
    /// Unix seconds.
    pub locked_at: f64,
    /// The holder's reason.
    pub reason: String,
    /// Seconds since `locked_at`.
    pub age_seconds: f64,
    /// Older than `locking.stale_timeout`.
    pub stale: bool,
    /// True for a glob pattern.
    pub pattern: bool,
    /// The fencing token (a shared store hands them out; never for
    /// lock files).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fence: Option<u64>,
    /// The host whose command took it (shared store only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
}

impl LockJson {
    /// The JSON view of a lock at `now`.
    pub(crate) fn new(r: &LockRecord, table: &dyn LockStore, now: f64) -> LockJson {
        LockJson {
            agent_id: r.agent_id.clone(),
            filepath: r.filepath.clone(),
            locked_at: r.locked_at,
            reason: r.reason.clone(),
            age_seconds: (r.age(now) * 10.0).round() / 10.0,
            stale: table.is_stale(r, now),
            pattern: has_glob_chars(&r.filepath),
            fence: r.fence,
            host: r.host.as_deref().map(sanitize::one_line),
        }
    }
}

/// `2026-11-21 13:26:18` (UTC), as the Python tool prints lock times.
pub(crate) fn utc(locked_at: f64) -> String {
    time::from_unix_seconds(locked_at)
        .map(|t| t.format("%Y-%m-%d %H:%M:%S").to_string())
        .unwrap_or_else(|| "?".into())
}

/// The Python tool's block for one lock, under `header`:
/// holder, time, age and (when there is one) reason.
pub(crate) fn text_block(header: &str, held: &HeldLock, now: f64) -> String {
    let r = &held.record;
    let mut s = format!(
        "{header}\n  Held by: {}\n  Locked at: {} UTC\n  Age: {:.1} seconds\n",
        sanitize::one_line(&r.agent_id),
        utc(r.locked_at),
        r.age(now)
    );
    let reason = sanitize::one_line(&r.reason);
    if !reason.is_empty() {
        s.push_str(&format!("  Reason: {reason}\n"));
    }
    if let Some(host) = &r.host {
        s.push_str(&format!("  Host: {}\n", sanitize::one_line(host)));
    }
    if let Some(fence) = r.fence {
        s.push_str(&format!("  Fencing token: {fence}\n"));
    }
    s
}

/// A stored path or pattern, safe to print.
pub(crate) fn shown(filepath: &str) -> String {
    sanitize::one_line(filepath)
}

/// How the user typed the path that normalised to `filepath` (the first
/// of `typed` whose key it is), for messages that echo their input.
pub(crate) fn as_typed<'a>(typed: &'a [String], keys: &[LockKey], filepath: &'a str) -> &'a str {
    typed
        .iter()
        .zip(keys)
        .find(|(_, k)| k.as_str() == filepath)
        .map_or(filepath, |(t, _)| t.as_str())
}

/// The keys, space-separated, for the audit log.
pub(crate) fn joined(keys: &[LockKey]) -> String {
    keys.iter()
        .map(LockKey::as_str)
        .collect::<Vec<_>>()
        .join(" ")
}
