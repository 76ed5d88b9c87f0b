//! The tree's own rules, checked on the source: no file holds more than
//! 900 lines before its test module, no file outside the core's `store/`
//! spells the name of a state file (docs/ARCHITECTURE.md: `store::Paths`
//! owns them all, so moving one is a change in one place), each crate's
//! manifest names only the crates below it, a front door takes, releases
//! and renews locks and sends only through the core's door (`ops`),
//! docs/ARCHITECTURE.md lists the core's public surface as the code has it,
//! no core module imports one above it in the order docs/ARCHITECTURE.md
//! states, every file under tests/ is part of the test binary, and test
//! modules share helpers only through tests/harness/.

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
fn front_doors_lock_only_through_the_door() {
    // `ops::lock` holds the wait loop and the reason rule, `ops::unlock`
    // the forced release, `ops::renew` the renewal: a front door (the
    // program, the MCP server, the monitor, the dashboard) that called the
    // lock store itself would grow its own copy of them.
    let verbs = [
        (".acquire(", "ops::lock"),
        (".release(", "ops::unlock"),
        (".renew(", "ops::renew"),
    ];
    let direct: Vec<String> = front_door_lines()
        .into_iter()
        .filter_map(|(path, n, code)| {
            let (call, door) = verbs.iter().find(|(call, _)| code.contains(call))?;
            Some(format!(
                "{}:{n}: {} (the lock store's `{}`: call swarm_core::{door})",
                path.display(),
                code.trim(),
                call.trim_matches(|c| c == '.' || c == '(')
            ))
        })
        .collect();
    assert!(
        direct.is_empty(),
        "take, release and renew locks through swarm_core::ops, not the lock store: \
         {direct:#?}"
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

/// `text` with its comments and the insides of its string and character
/// literals blanked out (newlines kept, so line numbers still hold): what
/// is left is code only.
fn code_only(text: &str) -> String {
    let c: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let blank = |ch: char| if ch == '\n' { '\n' } else { ' ' };
    let mut i = 0;
    while i < c.len() {
        let next = c.get(i + 1).copied();
        if c[i] == '/' && next == Some('/') {
            while i < c.len() && c[i] != '\n' {
                out.push(' ');
                i += 1;
            }
        } else if c[i] == '/' && next == Some('*') {
            let mut depth = 0;
            while i < c.len() {
                if c[i] == '/' && c.get(i + 1) == Some(&'*') {
                    depth += 1;
                    out.push_str("  ");
                    i += 2;
                } else if c[i] == '*' && c.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    out.push_str("  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    out.push(blank(c[i]));
                    i += 1;
                }
            }
        } else if c[i] == 'r'
            && matches!(next, Some('"') | Some('#'))
            && !c[..i]
                .last()
                .is_some_and(|p| p.is_alphanumeric() || *p == '_')
        {
            // A raw string: r"..." or r#"..."#, its hashes counted.
            let mut j = i + 1;
            while c.get(j) == Some(&'#') {
                j += 1;
            }
            if c.get(j) != Some(&'"') {
                out.push(c[i]);
                i += 1;
                continue;
            }
            let hashes = j - i - 1;
            out.push('"');
            j += 1;
            while j < c.len() {
                if c[j] == '"' && (1..=hashes).all(|k| c.get(j + k) == Some(&'#')) {
                    j += hashes + 1;
                    break;
                }
                out.push(blank(c[j]));
                j += 1;
            }
            out.push('"');
            i = j;
        } else if c[i] == '"' {
            out.push('"');
            i += 1;
            while i < c.len() && c[i] != '"' {
                if c[i] == '\\' {
                    out.push(' ');
                    i += 1;
                }
                if i < c.len() {
                    out.push(blank(c[i]));
                    i += 1;
                }
            }
            out.push('"');
            i += 1;
        } else if c[i] == '\'' {
            // A character literal ('x', '\n', '\u{1F600}'), not a lifetime.
            let end = if next == Some('\\') {
                (i + 2..c.len()).find(|&j| c[j] == '\'')
            } else {
                (c.get(i + 2) == Some(&'\'')).then_some(i + 2)
            };
            match end {
                Some(end) => {
                    out.push_str(&" ".repeat(end - i + 1));
                    i = end + 1;
                }
                None => {
                    out.push('\'');
                    i += 1;
                }
            }
        } else {
            out.push(c[i]);
            i += 1;
        }
    }
    out
}

/// The tokens of code (`code_only`'s output) with their line numbers:
/// identifiers and `::` whole, any other character alone.
fn tokens(code: &str) -> Vec<(usize, String)> {
    let c: Vec<char> = code.chars().collect();
    let mut out = Vec::new();
    let (mut i, mut line) = (0, 1);
    while i < c.len() {
        if c[i] == '\n' {
            line += 1;
            i += 1;
        } else if c[i].is_whitespace() {
            i += 1;
        } else if c[i].is_alphanumeric() || c[i] == '_' {
            let start = i;
            while i < c.len() && (c[i].is_alphanumeric() || c[i] == '_') {
                i += 1;
            }
            out.push((line, c[start..i].iter().collect()));
        } else if c[i] == ':' && c.get(i + 1) == Some(&':') {
            out.push((line, "::".to_owned()));
            i += 2;
        } else {
            out.push((line, c[i].to_string()));
            i += 1;
        }
    }
    out
}

/// The first names of the paths a `use` group lists (`{a::b, c, d::{e}}`
/// gives `a`, `c`, `d`), from the token after its `{`; `self` left out.
fn group_heads(tokens: &[(usize, String)]) -> Vec<String> {
    let mut heads = Vec::new();
    let mut depth = 0;
    let mut at_head = true;
    for (_, t) in tokens {
        match t.as_str() {
            "{" => {
                depth += 1;
                at_head = false;
            }
            "}" if depth == 0 => break,
            "}" => depth -= 1,
            "," if depth == 0 => at_head = true,
            t if at_head => {
                if t != "self" {
                    heads.push(t.to_owned());
                }
                at_head = false;
            }
            _ => {}
        }
    }
    heads
}

/// What the code of one file names from the top of its crate: the first
/// name of every `crate::` path (`use crate::{a, b::c}` gives `a` and
/// `b`), and of every `super::` path that climbs to the top, with its
/// line. `depth` is how many modules deep the file is (`x/mod.rs` 1,
/// `x/y.rs` 2); an inline `mod name { .. }` goes one deeper.
fn crate_paths(text: &str, depth: usize) -> Vec<(usize, String)> {
    let toks = tokens(&code_only(text));
    let mut found = Vec::new();
    // One entry per open brace: whether it opened an inline module.
    let mut braces: Vec<bool> = Vec::new();
    for (i, (line, t)) in toks.iter().enumerate() {
        let next = |k: usize| toks.get(i + k).map(|(_, t)| t.as_str());
        match t.as_str() {
            "{" => braces.push(i >= 2 && toks[i - 2].1 == "mod"),
            "}" => {
                braces.pop();
            }
            "crate" if next(1) == Some("::") && !(i > 0 && toks[i - 1].1 == "::") => {
                if next(2) == Some("{") {
                    found.extend(group_heads(&toks[i + 3..]).into_iter().map(|h| (*line, h)));
                } else if let Some(name) = next(2) {
                    found.push((*line, name.to_owned()));
                }
            }
            "super" if !(i > 0 && toks[i - 1].1 == "::") => {
                let mut k = 0;
                while toks.get(i + 2 * k).is_some_and(|(_, t)| t == "super")
                    && next(2 * k + 1) == Some("::")
                {
                    k += 1;
                }
                let here = depth + braces.iter().filter(|m| **m).count();
                if k == 0 || k < here {
                    continue;
                }
                let at = i + 2 * k;
                if next(2 * k) == Some("{") {
                    found.extend(group_heads(&toks[at + 1..]).into_iter().map(|h| (*line, h)));
                } else if let Some((_, name)) = toks.get(at) {
                    found.push((*line, name.clone()));
                }
            }
            _ => {}
        }
    }
    found
}

/// The import order of the core's modules that docs/ARCHITECTURE.md
/// states (`support, git < domain, store < ...`): each module's floor,
/// from 0 at the bottom.
fn stated_core_order() -> Vec<(String, usize)> {
    let doc = fs::read_to_string(root().join("docs/ARCHITECTURE.md")).expect("read");
    let after = doc
        .split_once("The exact import order inside the core")
        .map(|(_, rest)| rest)
        .expect("docs/ARCHITECTURE.md states the import order inside the core");
    let sentence = after
        .split('`')
        .skip(1)
        .find(|s| s.contains('<'))
        .expect("the import order in backquotes: `a, b < c < ...`");
    sentence
        .split('<')
        .enumerate()
        .flat_map(|(floor, names)| {
            names
                .split(',')
                .map(move |n| (n.split_whitespace().collect::<String>(), floor))
        })
        .collect()
}

/// The names that follow `crate::<room>::` in a file's code, with their
/// lines (`crate::hooks::{a, b::c}` gives `a` and `b`).
fn room_items(text: &str, room: &str) -> Vec<(usize, String)> {
    let toks = tokens(&code_only(text));
    let mut out = Vec::new();
    for i in 0..toks.len() {
        let at = |k: usize| toks.get(i + k).map(|(_, t)| t.as_str());
        if at(0) != Some("crate")
            || at(1) != Some("::")
            || at(2) != Some(room)
            || at(3) != Some("::")
            || (i > 0 && toks[i - 1].1 == "::")
        {
            continue;
        }
        let line = toks[i].0;
        if at(4) == Some("{") {
            out.extend(group_heads(&toks[i + 5..]).into_iter().map(|h| (line, h)));
        } else if let Some(item) = at(4) {
            out.push((line, item.to_owned()));
        }
    }
    out
}

/// The part of a room in parts that holds `item`: the part itself when
/// the order names `room::item`, the part whose `pub use` in the room's
/// mod.rs re-exports it, else the room as a whole.
fn part_of(src: &Path, order: &[(String, usize)], room: &str, item: &str) -> String {
    let named = |part: &str| order.iter().any(|(n, _)| *n == format!("{room}::{part}"));
    if named(item) {
        return format!("{room}::{item}");
    }
    let mod_rs = fs::read_to_string(src.join(room).join("mod.rs")).unwrap_or_default();
    let toks = tokens(&code_only(&mod_rs));
    for (i, w) in toks.windows(3).enumerate() {
        if w[0].1 != "pub" || w[1].1 != "use" || !named(&w[2].1) {
            continue;
        }
        let names_it = toks[i + 3..]
            .iter()
            .take_while(|(_, t)| t != ";")
            .any(|(_, t)| t == item);
        if names_it {
            return format!("{room}::{}", w[2].1);
        }
    }
    room.to_owned()
}

/// Imports inside the core that run against the stated order and stay for
/// now: (file under crates/core/src, module it imports, why).
const KNOWN_UPWARD_IMPORTS: &[(&str, &str, &str)] = &[];

#[test]
fn no_core_module_imports_one_above_it() {
    let order = stated_core_order();
    let floor_of = |m: &str| order.iter().find(|(n, _)| n == m).map(|(_, f)| *f);
    let src = root().join("crates/core/src");
    // The names lib.rs re-exports (`crate::Result`) stand for their module.
    let lib = fs::read_to_string(src.join("lib.rs")).expect("read lib.rs");
    let reexported = |name: &str| {
        lib.lines()
            .filter_map(|l| l.trim().strip_prefix("pub use "))
            .find(|l| {
                l.split(|c: char| !c.is_alphanumeric() && c != '_')
                    .any(|w| w == name)
            })
            .and_then(|l| l.split("::").next())
            .map(str::to_owned)
    };
    // (importing file, line, its module, the module it imports)
    let mut imports = Vec::new();
    let mut modules = std::collections::BTreeSet::new();
    for path in rust_files(&src) {
        let rel = path.strip_prefix(&src).expect("under src");
        let parts: Vec<String> = rel
            .iter()
            .map(|p| p.to_string_lossy().trim_end_matches(".rs").to_owned())
            .collect();
        if parts == ["lib"] {
            continue;
        }
        modules.insert(parts[0].clone());
        // A part of a room the order names on its own (`hooks::payload`).
        let module = match parts.get(1) {
            Some(p) if parts.len() > 1 && floor_of(&format!("{}::{p}", parts[0])).is_some() => {
                format!("{}::{p}", parts[0])
            }
            _ => parts[0].clone(),
        };
        let depth = parts.len() - usize::from(parts.last().is_some_and(|p| p == "mod"));
        let text = fs::read_to_string(&path).expect("read");
        let mut found = Vec::new();
        for (line, name) in crate_paths(&text, depth) {
            let target = if floor_of(&name).is_some() || src.join(&name).is_dir() {
                name
            } else if let Some(m) = reexported(&name) {
                m
            } else {
                name
            };
            if order
                .iter()
                .any(|(n, _)| n.starts_with(&format!("{target}::")))
            {
                // A room in parts: each item named through it counts as
                // an import of the part that holds it.
                let items: Vec<String> = room_items(&text, &target)
                    .into_iter()
                    .filter(|(l, _)| *l == line)
                    .map(|(_, item)| part_of(&src, &order, &target, &item))
                    .collect();
                if !items.is_empty() {
                    found.extend(items.into_iter().map(|t| (line, t)));
                    continue;
                }
            }
            found.push((line, target));
        }
        found.dedup();
        for (line, target) in found {
            if target != module {
                imports.push((rel.display().to_string(), line, module.clone(), target));
            }
        }
    }
    let mut problems = Vec::new();
    for (name, _) in &order {
        let known = match name.split_once("::") {
            Some((room, part)) => {
                src.join(room).join(format!("{part}.rs")).is_file()
                    || src.join(room).join(part).is_dir()
            }
            None => modules.contains(name),
        };
        if !known {
            problems.push(format!(
                "docs/ARCHITECTURE.md's import order names `{name}`, which is no module of \
                 crates/core/src: take it out of the sentence"
            ));
        }
    }
    for module in &modules {
        if floor_of(module).is_some() {
            continue;
        }
        let name_of = |f: usize| {
            let names: Vec<&str> = order
                .iter()
                .filter(|(_, g)| *g == f)
                .map(|(n, _)| n.as_str())
                .collect();
            names.join(", ")
        };
        let highest_import = imports
            .iter()
            .filter(|(_, _, m, _)| m == module)
            .filter_map(|(_, _, _, t)| floor_of(t))
            .max();
        let lowest_importer = imports
            .iter()
            .filter(|(_, _, _, t)| t == module)
            .filter_map(|(_, _, m, _)| floor_of(m))
            .min();
        let above = highest_import.map_or("at the bottom".to_owned(), |f| {
            format!("above `{}` (the highest it imports)", name_of(f))
        });
        let below = lowest_importer.map_or(String::new(), |f| {
            format!(" and below `{}` (the lowest that imports it)", name_of(f))
        });
        problems.push(format!(
            "crates/core/src/{module} is a core module that docs/ARCHITECTURE.md's import \
             order (\"The exact import order inside the core ...\") does not name: add it to \
             that sentence {above}{below}"
        ));
    }
    let mut excepted = vec![false; KNOWN_UPWARD_IMPORTS.len()];
    for (file, line, module, target) in &imports {
        let (Some(from), Some(to)) = (floor_of(module), floor_of(target)) else {
            continue;
        };
        if to <= from {
            continue;
        }
        match KNOWN_UPWARD_IMPORTS
            .iter()
            .position(|(f, t, _)| f == file && t == target)
        {
            Some(k) => excepted[k] = true,
            None => problems.push(format!(
                "crates/core/src/{file}:{line}: `{module}` imports `{target}`, which \
                 docs/ARCHITECTURE.md's import order puts above it"
            )),
        }
    }
    for (k, (file, target, _)) in KNOWN_UPWARD_IMPORTS.iter().enumerate() {
        if !excepted[k] {
            problems.push(format!(
                "crates/core/src/{file} no longer imports `{target}`: take it out of \
                 KNOWN_UPWARD_IMPORTS"
            ));
        }
    }
    assert!(problems.is_empty(), "{problems:#?}");
}

#[test]
fn the_import_reader_sees_paths_in_code_only() {
    let text = r##"
use crate::{a::b, c, d::{e, f}, self};
// use crate::commented;
/* use crate::blocked; /* nested */ crate::still_blocked */
let s = "crate::in_a_string"; let r = r#"crate::raw"#; let q = '"';
fn f<'a>(x: &'a str) -> crate::g::T { crate::h::call() }
mod inner { use super::super::climbed; use super::sibling; }
"##;
    let names: Vec<String> = crate_paths(text, 1).into_iter().map(|(_, n)| n).collect();
    assert_eq!(names, ["a", "c", "d", "g", "h", "climbed"]);
    let lines: Vec<usize> = crate_paths(text, 1).into_iter().map(|(l, _)| l).collect();
    assert_eq!(lines, [2, 2, 2, 6, 6, 7]);
}

/// The modules a file declares (`mod name;`, `pub mod name;`, with any
/// attribute before them), comments left out.
fn declared_modules(path: &Path) -> Vec<String> {
    let text = fs::read_to_string(path).unwrap_or_default();
    let toks = tokens(&code_only(&text));
    toks.windows(3)
        .filter(|w| w[0].1 == "mod" && w[2].1 == ";")
        .map(|w| w[1].1.clone())
        .collect()
}

#[test]
fn every_test_file_is_part_of_the_test_binary() {
    // tests/tests.rs is the one test binary's root: a module file it (or a
    // parent module) does not declare is never compiled, and its tests
    // silently never run.
    let tests = root().join("tests");
    let mut missing = Vec::new();
    for path in rust_files(&tests) {
        let rel = path.strip_prefix(&tests).expect("under tests");
        if rel == Path::new("tests.rs") || rel.starts_with("fixtures") {
            continue;
        }
        // A folder module is its mod.rs: the folder is declared by its
        // parent under the folder's name.
        let (module, dir) = if rel.file_name().is_some_and(|n| n == "mod.rs") {
            let folder = path.parent().expect("parent");
            (folder.to_path_buf(), folder.parent().expect("parent"))
        } else {
            (path.with_extension(""), path.parent().expect("parent"))
        };
        let name = module
            .file_name()
            .expect("name")
            .to_string_lossy()
            .into_owned();
        let parent = if dir == tests {
            tests.join("tests.rs")
        } else if dir.join("mod.rs").exists() {
            dir.join("mod.rs")
        } else {
            dir.with_extension("rs")
        };
        if !declared_modules(&parent).contains(&name) {
            let parent = parent.strip_prefix(root()).unwrap_or(&parent).display();
            missing.push(format!(
                "tests/{} is declared by no `mod {name};` in {parent}: add it there",
                rel.display()
            ));
        }
    }
    assert!(missing.is_empty(), "{missing:#?}");
}

#[test]
fn test_modules_share_helpers_only_through_the_harness() {
    // A helper one test module borrows from another is found by nobody
    // who reads the harness, and moves when that module is split: shared
    // helpers live in tests/harness/.
    let tests = root().join("tests");
    let mut borrowed = Vec::new();
    for path in rust_files(&tests) {
        let rel = path.strip_prefix(&tests).expect("under tests");
        if rel.starts_with("harness") || rel.starts_with("fixtures") {
            continue;
        }
        let parts = rel.iter().count();
        let depth = parts - usize::from(rel.file_name().is_some_and(|n| n == "mod.rs"));
        let text = fs::read_to_string(&path).expect("read");
        for (line, name) in crate_paths(&text, depth) {
            if name != "harness" {
                borrowed.push(format!("tests/{}:{line}: crate::{name}", rel.display()));
            }
        }
        // `super::sibling::item`: a module beside this one.
        let dir = path.parent().expect("parent");
        let siblings = declared_modules(&if dir == tests {
            tests.join("tests.rs")
        } else if dir.join("mod.rs").exists() {
            dir.join("mod.rs")
        } else {
            dir.with_extension("rs")
        });
        let toks = tokens(&code_only(&text));
        for (i, (line, t)) in toks.iter().enumerate() {
            let at = |k: usize| toks.get(i + k).map(|(_, t)| t.as_str());
            if t != "super" || at(1) != Some("::") || (i > 0 && toks[i - 1].1 == "::") {
                continue;
            }
            let names = if at(2) == Some("{") {
                group_heads(&toks[i + 3..])
                    .into_iter()
                    .filter(|h| {
                        // Only a path through the sibling (`a::b`), not
                        // an item of the parent named like it.
                        toks[i + 3..]
                            .windows(2)
                            .any(|w| w[0].1 == *h && w[1].1 == "::")
                    })
                    .collect()
            } else if at(3) == Some("::") {
                at(2).map(|n| vec![n.to_owned()]).unwrap_or_default()
            } else {
                Vec::new()
            };
            for name in names {
                if siblings.contains(&name) && dir != tests {
                    borrowed.push(format!("tests/{}:{line}: super::{name}", rel.display()));
                }
            }
        }
    }
    assert!(
        borrowed.is_empty(),
        "move these helpers into tests/harness/: {borrowed:#?}"
    );
}
