//! Whether the project's watcher runs on this host, with the settings the
//! config gives now, and what it last said went wrong.

use crate::config;
use crate::watcher::service;

use super::report::{CheckOutcome, Subject};

/// The watcher: running (with which channels, since when), or not and
/// whether a command will start it; a running one whose settings differ
/// from what the config and this shell's environment give now is told to
/// restart.
pub(super) fn watcher(s: &Subject<'_>) -> Vec<CheckOutcome> {
    const CHECK: &str = "watcher";
    let status = match service::status(s.paths) {
        Ok(status) => status,
        Err(e) => {
            return vec![CheckOutcome::warn(
                CHECK,
                format!("could not tell whether the watcher runs: {e}"),
                "check the permissions of .swarm/",
            )];
        }
    };
    let config = config::load(s.paths.root(), s.env).ok().map(|l| l.config);
    let autostart = config.as_ref().is_none_or(|c| c.watcher.autostart);
    let outcome = match (status.running, &status.record) {
        (false, _) if autostart => CheckOutcome::ok(
            CHECK,
            "no watcher runs now; the next command that needs it starts it (watcher.autostart)",
        ),
        (false, _) => CheckOutcome::warn(
            CHECK,
            "no watcher runs and watcher.autostart is off: held messages wait, ACKs are not \
             retried and nothing is notified",
            "`swarm watcher start` (or `swarm watcher run` in a terminal of its own)",
        ),
        (true, None) => CheckOutcome::ok(
            CHECK,
            "a watcher runs (another swarm version: it keeps no record of its settings)",
        ),
        (true, Some(r)) => {
            let summary = format!(
                "the watcher runs (process {}, since {}; notifies: {})",
                r.pid,
                r.since,
                if r.channels.is_empty() {
                    "nothing".to_owned()
                } else {
                    r.channels.join(", ")
                }
            );
            let differs = config.as_ref().map(|c| r.lacks(c)).unwrap_or_default();
            if !differs.is_empty() {
                CheckOutcome::warn(
                    CHECK,
                    format!("{summary}, with other values than the config and this shell give now"),
                    "`swarm watcher restart` from this shell (a changed file is read again by \
                     itself within seconds; a variable of this shell only by a restart)",
                )
                .with_details(differs.iter().map(|k| format!("differs: {k}")).collect())
            } else if let Some(e) = &r.last_error {
                CheckOutcome::ok(CHECK, summary).with_details(vec![format!("last error: {e}")])
            } else {
                CheckOutcome::ok(CHECK, summary)
            }
        }
    };
    vec![outcome]
}
