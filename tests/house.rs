//! The tree's own rules, checked on the source: no file holds more than
//! 900 lines before its test module, no file outside the core's `store/`
//! spells the name of a state file (docs/ARCHITECTURE.md: `store::Paths`
//! owns them all, so moving one is a change in one place), each crate's
//! manifest names only the crates below it, a front door takes and
//! releases locks and sends only through the core's door (`ops`), and
//! docs/ARCHITECTURE.md lists the core's public surface as the code has it.

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

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The sources of every crate: the program's `src/` and each library's
/// `crates/*/src/`.
fn sources() -> Vec<PathBuf> {
    let mut dirs = vec![root().join("src")];
    let mut crates: Vec<PathBuf> = fs::read_dir(root().join("crates"))
        .expect("read crates")
        .map(|e| e.expect("entry").path().join("src"))
        .collect();
    crates.sort();
    dirs.extend(crates);
    dirs.iter().flat_map(|d| rust_files(d)).collect()
}

#[test]
fn no_file_holds_more_than_900_lines_before_its_tests() {
    let long: Vec<String> = sources()
        .into_iter()
        .filter_map(|p| {
            let n = code_lines(&p).len();
            (n > 900).then(|| format!("{} ({n} lines)", p.display()))
        })
        .collect();
    assert!(long.is_empty(), "split these along their seams: {long:?}");
}

/// The code lines of the front doors: the program and the crates above
/// the core that act for a person or an agent.
fn front_door_lines() -> Vec<(PathBuf, usize, String)> {
    let dirs = [
        "src",
        "crates/mcp/src",
        "crates/monitor/src",
        "crates/dashboard/src",
    ];
    let mut out = Vec::new();
    for dir in dirs {
        for path in rust_files(&root().join(dir)) {
            for (n, line) in code_lines(&path).into_iter().enumerate() {
                let code = line.split("//").next().unwrap_or_default().to_owned();
                out.push((path.clone(), n + 1, code));
            }
        }
    }
    out
}

#[test]
fn front_doors_take_locks_only_through_the_door() {
    // `ops::lock` holds the wait loop and the reason rule; a front door
    // that called the store itself would grow its own copy of them.
    let direct: Vec<String> = front_door_lines()
        .into_iter()
        .filter(|(_, _, code)| code.contains(".acquire("))
        .map(|(path, n, code)| format!("{}:{n}: {}", path.display(), code.trim()))
        .collect();
    assert!(
        direct.is_empty(),
        "take locks with swarm_core::ops::lock, not the lock store: {direct:#?}"
    );
}

#[test]
fn front_doors_release_locks_only_through_the_door() {
    // The program, the MCP server, the monitor and the dashboard's forced
    // unlock alike.
    let direct: Vec<String> = front_door_lines()
        .into_iter()
        .filter(|(_, _, code)| code.contains(".release("))
        .map(|(path, n, code)| format!("{}:{n}: {}", path.display(), code.trim()))
        .collect();
    assert!(
        direct.is_empty(),
        "release locks with swarm_core::ops::unlock, not the lock store: {direct:#?}"
    );
}

#[test]
fn front_doors_send_only_through_the_door() {
    // Sending, broadcasting, acknowledging, onboarding, redelivering and
    // telling overlaps are operations in `ops`, over the `Operator`: a
    // front door that built a `Messenger` would go around what a send
    // means besides typing (the feed, the person told, the watcher).
    let direct: Vec<String> = front_door_lines()
        .into_iter()
        .filter(|(_, _, code)| code.contains("Messenger") || code.contains(".messenger()"))
        .map(|(path, n, code)| format!("{}:{n}: {}", path.display(), code.trim()))
        .collect();
    assert!(
        direct.is_empty(),
        "act through swarm_core::ops (send, broadcast, ack, onboard, redeliver, answer, \
         subscribe, notice_overlaps), not a Messenger: {direct:#?}"
    );
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
        "\"sessions.json\"",
        "\"printed.json\"",
        "\"hook_sightings.json\"",
        "\"hook_errors.log\"",
        "\"watcher.lock\"",
        "\"watcher.json\"",
        ".swarm/audit.log",
    ];
    let store = root().join("crates/core/src/store");
    let mut found = Vec::new();
    for path in sources() {
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

/// The `tmux-swarm*` packages a manifest's `[dependencies]` name.
fn workspace_dependencies(manifest: &Path) -> Vec<String> {
    let text = fs::read_to_string(manifest).expect("read manifest");
    let mut in_deps = false;
    let mut found = Vec::new();
    for line in text.lines() {
        let t = line.trim();
        if t.starts_with('[') {
            in_deps = t == "[dependencies]";
            continue;
        }
        if in_deps && t.starts_with("tmux-swarm") {
            let name: String = t
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
                .collect();
            found.push(name);
        }
    }
    found.sort();
    found
}

#[test]
fn each_crate_names_only_the_crates_below_it() {
    // The floors (docs/ARCHITECTURE.md): the core at the bottom; the Redis
    // backend and the three front doors on it, none naming another; the
    // program on top. The compiler refuses an import of a crate that is
    // not a dependency, so the manifests are the floors.
    let core = vec!["tmux-swarm-core".to_owned()];
    for (krate, allowed) in [
        ("core", vec![]),
        ("redis", core.clone()),
        ("monitor", core.clone()),
        ("dashboard", core.clone()),
        ("mcp", core.clone()),
    ] {
        let deps = workspace_dependencies(&root().join("crates").join(krate).join("Cargo.toml"));
        assert_eq!(deps, allowed, "crates/{krate} may name only {allowed:?}");
    }
    let program = workspace_dependencies(&root().join("Cargo.toml"));
    assert!(
        program.contains(&"tmux-swarm-core".to_owned()),
        "{program:?}"
    );
}

/// The core's public surface as the code has it: for each public module,
/// the items defined at the top of its files (and of the private files
/// whose items it re-exports), one table row per module.
fn core_surface() -> String {
    let src = root().join("crates/core/src");
    // Which module files are public: `pub mod` all the way from lib.rs.
    let mut rows: std::collections::BTreeMap<String, Vec<String>> = Default::default();
    for path in rust_files(&src) {
        let rel = path.strip_prefix(&src).expect("under src");
        let mut parts: Vec<String> = rel
            .iter()
            .map(|p| p.to_string_lossy().trim_end_matches(".rs").to_owned())
            .collect();
        if parts.last().is_some_and(|l| l == "mod" || l == "lib") {
            parts.pop();
        }
        // The nearest public module: walk down while each step is `pub mod`.
        let mut public = Vec::new();
        for (i, part) in parts.iter().enumerate() {
            let parent = src.join(parts[..i].join("/"));
            let declaring = if i == 0 {
                src.join("lib.rs")
            } else if parent.join("mod.rs").exists() {
                parent.join("mod.rs")
            } else {
                PathBuf::from(format!("{}.rs", parent.display()))
            };
            let text = fs::read_to_string(&declaring).unwrap_or_default();
            let is_pub = text.lines().any(|l| {
                let l = l.trim();
                l == format!("pub mod {part};") || l == format!("pub mod {part} {{")
            });
            if !is_pub {
                break;
            }
            public.push(part.clone());
        }
        let module = if public.is_empty() {
            "(root)".to_owned()
        } else {
            public.join("::")
        };
        for line in code_lines(&path) {
            let Some(rest) = line.strip_prefix("pub ") else {
                continue;
            };
            let rest = rest.strip_prefix("async ").unwrap_or(rest);
            let mut words = rest.split_whitespace();
            let (Some(kind), Some(name)) = (words.next(), words.next()) else {
                continue;
            };
            if !["fn", "struct", "enum", "trait", "type", "const", "static"].contains(&kind) {
                continue;
            }
            let name: String = name
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            rows.entry(module.clone()).or_default().push(name);
        }
    }
    let mut out = String::from("| module | items |\n| --- | --- |\n");
    for (module, mut items) in rows {
        items.sort();
        items.dedup();
        let items: Vec<String> = items.iter().map(|i| format!("`{i}`")).collect();
        out.push_str(&format!("| `{module}` | {} |\n", items.join(", ")));
    }
    out
}

#[test]
fn the_architecture_lists_the_core_public_surface() {
    let doc = fs::read_to_string(root().join("docs/ARCHITECTURE.md")).expect("read");
    let start = "<!-- core-surface:start -->\n";
    let end = "<!-- core-surface:end -->";
    let listed = doc
        .split_once(start)
        .and_then(|(_, rest)| rest.split_once(end))
        .map(|(table, _)| table)
        .expect("docs/ARCHITECTURE.md has the core-surface markers");
    let actual = core_surface();
    assert!(
        listed == actual,
        "docs/ARCHITECTURE.md's list of the core's public surface is out of date; \
         put this between its markers:\n{actual}"
    );
}
