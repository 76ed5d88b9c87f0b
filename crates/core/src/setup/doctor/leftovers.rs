//! Files left behind: temporary files of interrupted writes and damaged
//! state files that were moved aside.

use std::path::PathBuf;

use crate::store::inspect;

use super::report::{CheckOutcome, Subject};

/// Temporary files of interrupted writes and damaged copies moved aside,
/// in the root and the state directories.
pub(super) fn leftover_files(s: &Subject<'_>) -> Vec<CheckOutcome> {
    let dirs = [
        s.paths.root().to_owned(),
        s.paths.swarm_dir(),
        s.paths.locks_dir(),
        s.paths.memory_dir(),
    ];
    let mut temps: Vec<PathBuf> = Vec::new();
    let mut corrupt: Vec<PathBuf> = Vec::new();
    for dir in &dirs {
        for name in inspect::list_dir(dir).unwrap_or_default() {
            if name.contains(".corrupt-") {
                corrupt.push(dir.join(&name));
            } else if is_temp_name(&name) {
                temps.push(dir.join(&name));
            }
        }
    }
    let list = |v: &[PathBuf]| v.iter().map(|p| p.display().to_string()).collect();
    let mut out = Vec::new();
    if !temps.is_empty() {
        out.push(
            CheckOutcome::warn(
                "temp files",
                format!(
                    "{} temporary file(s) left by interrupted writes",
                    temps.len()
                ),
                "if no swarm command is running, delete them; the real files are intact",
            )
            .with_details(list(&temps)),
        );
    }
    if !corrupt.is_empty() {
        out.push(
            CheckOutcome::warn(
                "damaged copies",
                format!("{} damaged state file(s) were moved aside", corrupt.len()),
                "look at them for anything worth keeping, then delete them",
            )
            .with_details(list(&corrupt)),
        );
    }
    if out.is_empty() {
        out.push(CheckOutcome::ok(
            "leftovers",
            "no temporary or damaged files left behind",
        ));
    }
    out
}

/// Temp names of our atomic writes (`.NAME.tmp-XXXX`) and of the Python
/// tool's (`NAME.json.tmp`, `NAME.lock.tmp`).
fn is_temp_name(name: &str) -> bool {
    (name.starts_with('.') && name.contains(".tmp-"))
        || name.ends_with(".json.tmp")
        || name.ends_with(".lock.tmp")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn temp_names() {
        assert!(is_temp_name(".ACTIVE_AGENTS.json.tmp-abcdef0123"));
        assert!(is_temp_name("TASKS.json.tmp"));
        assert!(is_temp_name("0123.lock.tmp"));
        assert!(!is_temp_name("ACTIVE_AGENTS.json"));
        assert!(!is_temp_name(".ACTIVE_AGENTS.json.lock"));
    }
}
