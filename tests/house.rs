//! The tree's own rules, checked on the source: no file holds more than
//! 900 lines before its test module, and no file outside `src/store/`
//! spells the name of a state file (docs/ARCHITECTURE.md: `store::Paths`
//! owns them all, so moving one is a change in one place).

use std::fs;
use std::path::{Path, PathBuf};

/// Every `.rs` file under `dir`.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in fs::read_dir(dir).expect("read src") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            out.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    out.sort();
    out
}

/// The lines of a file before its `#[cfg(test)]` module.
fn code_lines(path: &Path) -> Vec<String> {
    fs::read_to_string(path)
        .expect("read")
        .lines()
        .take_while(|l| l.trim() != "#[cfg(test)]")
        .map(str::to_owned)
        .collect()
}

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

#[test]
fn no_file_holds_more_than_900_lines_before_its_tests() {
    let long: Vec<String> = rust_files(&src())
        .into_iter()
        .filter_map(|p| {
            let n = code_lines(&p).len();
            (n > 900).then(|| format!("{} ({n} lines)", p.display()))
        })
        .collect();
    assert!(long.is_empty(), "split these along their seams: {long:?}");
}

#[test]
fn only_the_store_spells_state_file_names() {
    // Every name `store::Paths` gives out (docs/FORMATS.md), as code would
    // spell it in a string.
    const NAMES: &[&str] = &[
        "\"ACTIVE_AGENTS.json\"",
        "\"PENDING_ACKS.json\"",
        "\"agent_messages.log\"",
        "\".agent_locks\"",
        "\".agent_memory\"",
        "\"AGENT_CARDS.json\"",
        "\"TASKS.json\"",
        "\"CONTEXTS.json\"",
        "\"LEARNING_DATA.json\"",
        "\"DELEGATION_HISTORY.json\"",
        "\"CONFLICT_LOG.json\"",
        "\".swarm\"",
        "\"held.json\"",
        "\"rate_limits.json\"",
        "\"read_cursors.json\"",
        "\"last_read_messages.json\"",
        "\"agent_ids.json\"",
        "\"ack_due\"",
        "\"lock_index.json\"",
        "\"message_log.json\"",
        "\"audit.log\"",
        "\"feed.jsonl\"",
        "\"episodes.json\"",
        "\"watcher.lock\"",
        ".swarm/audit.log",
    ];
    let store = src().join("store");
    let mut found = Vec::new();
    for path in rust_files(&src()) {
        if path.starts_with(&store) {
            continue;
        }
        for (i, line) in code_lines(&path).iter().enumerate() {
            let t = line.trim_start();
            if t.starts_with("//") {
                continue;
            }
            for name in NAMES {
                if line.contains(name) {
                    found.push(format!("{}:{}: {name}", path.display(), i + 1));
                }
            }
        }
    }
    assert!(found.is_empty(), "take these from store::Paths: {found:#?}");
}
