//! The message log: every line readable as JSON, and what its rotated
//! segments keep and why.

use crate::config;
use crate::log::on_files::FileLog;
use crate::log::record::Record;
use crate::log::retention::{LogPolicy, SegmentVerdict};
use crate::store::{LogFiles, StateFile};

use super::project::on_shared_store;
use super::report::{CheckOutcome, CheckStatus, Subject};
use super::state_files::{file_itself, shown, unreadable};

/// Whether the message log is a plain file whose every line is JSON,
/// and how many messages and delivery records it holds.
pub(super) fn message_log(s: &Subject<'_>) -> Vec<CheckOutcome> {
    if on_shared_store(s) {
        return Vec::new();
    }
    let path = s.paths.message_log();
    let check = &shown(s, &path);
    let mut out: Vec<CheckOutcome> = file_itself(check, &path).into_iter().collect();
    if out.iter().any(|o| o.status == CheckStatus::Fail) {
        return out;
    }
    let bytes = match StateFile::new(&path).read() {
        Ok(Some(b)) => b,
        Ok(None) => return out,
        Err(e) => return vec![unreadable(check, &path, &e)],
    };
    let text = String::from_utf8_lossy(&bytes);
    let mut total = 0;
    let mut bad = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        total += 1;
        if serde_json::from_str::<serde_json::Value>(line).is_err() {
            bad.push(i + 1);
        }
    }
    // Messages as every other view counts them: delivery records are
    // lines of the log, not messages.
    let (messages, deliveries) = match FileLog::new(s.paths).read() {
        Ok(contents) => {
            let m = contents
                .records
                .iter()
                .filter(|r| matches!(r, Record::Message(_)))
                .count();
            (m, contents.records.len() - m)
        }
        Err(e) => return vec![unreadable(check, &path, &e)],
    };
    out.push(if bad.is_empty() {
        CheckOutcome::ok(
            check,
            format!(
                "readable, {messages} message(s) and {deliveries} delivery record(s), every line JSON"
            ),
        )
    } else {
        CheckOutcome::warn(
            check,
            format!(
                "{} of {total} line(s) are not JSON (first at line {}); those messages cannot be read",
                bad.len(),
                bad[0]
            ),
            format!(
                "look at those lines (`sed -n {}p {}`); the rest of the log is fine",
                bad[0],
                path.display()
            ),
        )
    });
    out
}

/// The rotated segments of the message log: what is kept and why (the
/// decision the next rotation will make).
pub(super) fn message_log_segments(s: &Subject<'_>) -> Vec<CheckOutcome> {
    if on_shared_store(s) {
        return Vec::new();
    }
    const CHECK: &str = "message log history";
    let policy = match config::load(s.paths.root(), s.env) {
        Ok(loaded) => {
            let c = &loaded.config.message_log;
            LogPolicy {
                rotate_bytes: c.rotate_bytes,
                keep_bytes: c.keep_bytes,
                keep_age: std::time::Duration::from_secs(u64::from(c.keep_days) * 86_400),
            }
        }
        Err(_) => LogPolicy::default(),
    };
    let verdicts = match FileLog::new(s.paths).with_policy(policy).retention() {
        Ok(v) => v,
        Err(e) => return vec![unreadable(CHECK, &s.paths.message_log(), &e)],
    };
    if verdicts.is_empty() {
        return vec![CheckOutcome::ok(CHECK, "no rotated segments yet")];
    }
    let total: u64 = verdicts.iter().map(|v| v.bytes).sum();
    let pinned: Vec<&SegmentVerdict> = verdicts
        .iter()
        .filter(|v| v.keep && v.reason.contains("but"))
        .collect();
    let going = verdicts.iter().filter(|v| !v.keep).count();
    let segments = LogFiles::new(s.paths.message_log());
    let details = verdicts
        .iter()
        .map(|v| {
            format!(
                "{}: {} bytes, last written {} ago: {} ({})",
                shown(s, &segments.numbered(v.number)),
                v.bytes,
                crate::support::time::human_duration(v.age_secs as f64),
                if v.keep {
                    "kept"
                } else {
                    "removed at the next rotation"
                },
                v.reason
            )
        })
        .collect();
    let message = format!(
        "{} rotated segment(s), {total} bytes (keeping up to {} bytes and {} days){}",
        verdicts.len(),
        policy.keep_bytes,
        policy.keep_age.as_secs() / 86_400,
        if going > 0 {
            format!("; {going} will be removed at the next rotation")
        } else {
            String::new()
        }
    );
    let outcome = if pinned.is_empty() {
        CheckOutcome::ok(CHECK, message)
    } else {
        CheckOutcome::warn(
            CHECK,
            format!(
                "{message}; {} kept past the limits for unread messages",
                pinned.len()
            ),
            "the agents named below have not read their messages: have them run `swarm inbox --new`, or remove agents that left with `swarm discover`",
        )
    };
    vec![outcome.with_details(details)]
}
