//! How locks look in output: the Python tool's text blocks for people and
//! one JSON object per lock for programs. Everything read from a lock file
//! is sanitised before it reaches a terminal.

use serde::Serialize;

use swarm_core::support::sanitize;
use swarm_core::support::time;
use swarm_core::{HeldLock, Hold, LockKey, LockRecord, LockStore, has_glob_chars};

/// One lock as JSON: the lock file's four keys (docs/FORMATS.md; of a
/// shared lock, its first holder's) plus what a reader would otherwise
/// compute, and the terms of shared locks and leases.
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
    /// It holds nobody any more: older than `locking.stale_timeout`, or
    /// past the end of its lease.
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
    /// A shared lock (present only when true).
    #[serde(skip_serializing_if = "is_false")]
    pub shared: bool,
    /// Every claim on a shared lock, in order (shared locks only).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub holders: Vec<HoldJson>,
    /// When `agent_id`'s lease ends, Unix seconds (leases only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<f64>,
    /// Seconds until then, 0 once it has passed (leases only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expires_in_seconds: Option<f64>,
}

/// One holder's claim on a shared lock, as JSON.
#[derive(Debug, Serialize)]
pub(crate) struct HoldJson {
    /// The holder.
    pub agent_id: String,
    /// When it took or renewed its claim, Unix seconds.
    pub locked_at: f64,
    /// Its reason.
    pub reason: String,
    /// When its lease ends, Unix seconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<f64>,
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// Seconds from `now` until `end`, one decimal, never negative.
fn left(end: f64, now: f64) -> f64 {
    ((end - now).max(0.0) * 10.0).round() / 10.0
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
            shared: r.shared,
            holders: if r.shared {
                r.holds()
                    .into_iter()
                    .map(|h| HoldJson {
                        agent_id: sanitize::one_line(&h.agent_id),
                        locked_at: h.locked_at,
                        reason: sanitize::one_line(&h.reason),
                        expires_at: h.expires_at,
                    })
                    .collect()
            } else {
                Vec::new()
            },
            expires_at: r.expires_at,
            expires_in_seconds: r.expires_at.map(|end| left(end, now)),
        }
    }
}

/// `2026-11-21 13:26:18` (UTC), as the Python tool prints lock times.
pub(crate) fn utc(locked_at: f64) -> String {
    time::from_unix_seconds(locked_at)
        .map(|t| t.format("%Y-%m-%d %H:%M:%S").to_string())
        .unwrap_or_else(|| "?".into())
}

/// `2026-11-21 13:36:18 UTC (in 9m58s)`, or `(ended 3.0s ago)`: when a
/// lease ends, seen at `now`.
pub(crate) fn lease_end(end: f64, now: f64) -> String {
    if end >= now {
        format!("{} UTC (in {})", utc(end), time::human_duration(end - now))
    } else {
        format!(
            "{} UTC (ended {} ago)",
            utc(end),
            time::human_duration(now - end)
        )
    }
}

/// The header mark of a lock that holds nobody any more: `[EXPIRED]` when
/// its lease ended, `[STALE]` otherwise.
pub(crate) fn lapsed_mark(r: &LockRecord) -> &'static str {
    if r.expires_at.is_some() {
        " [EXPIRED]"
    } else {
        " [STALE]"
    }
}

/// One holder's line in the block of a shared lock.
fn hold_line(h: &Hold, now: f64) -> String {
    let mut s = format!(
        "    {} since {} UTC",
        sanitize::one_line(&h.agent_id),
        utc(h.locked_at)
    );
    if let Some(end) = h.expires_at {
        s.push_str(&format!(", lease ends {}", lease_end(end, now)));
    }
    let reason = sanitize::one_line(&h.reason);
    if !reason.is_empty() {
        s.push_str(&format!(": {reason}"));
    }
    s.push('\n');
    s
}

/// The Python tool's block for one lock, under `header`: holder, time,
/// age and (when there is one) reason; a lease's end; for a shared lock,
/// every holder with its own claim.
pub(crate) fn text_block(header: &str, held: &HeldLock, now: f64) -> String {
    let r = &held.record;
    if r.shared {
        let holds = r.holds();
        let names: Vec<String> = holds
            .iter()
            .map(|h| sanitize::one_line(&h.agent_id))
            .collect();
        let mut s = format!("{header}\n  Held by: {} (shared)\n", names.join(", "));
        for h in &holds {
            s.push_str(&hold_line(h, now));
        }
        return s + &store_lines(r);
    }
    let mut s = format!(
        "{header}\n  Held by: {}\n  Locked at: {} UTC\n  Age: {:.1} seconds\n",
        sanitize::one_line(&r.agent_id),
        utc(r.locked_at),
        r.age(now)
    );
    if let Some(end) = r.expires_at {
        s.push_str(&format!("  Lease ends: {}\n", lease_end(end, now)));
    }
    let reason = sanitize::one_line(&r.reason);
    if !reason.is_empty() {
        s.push_str(&format!("  Reason: {reason}\n"));
    }
    s + &store_lines(r)
}

/// What a shared store adds: host and fencing token.
fn store_lines(r: &LockRecord) -> String {
    let mut s = String::new();
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
