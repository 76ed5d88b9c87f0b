//! Every config key in one table: its section, type, allowed range and the
//! comment `config init` writes above it. Checking, environment overrides,
//! the template and `config show` are all driven by this table, so a key
//! added to `Config` and here is handled everywhere at once (a test keeps
//! the two in step).
//!
//! Checks run on the parsed document (a JSON tree) before it becomes a
//! `Config`, so that every unknown key, wrong type and out-of-range value
//! is found in one pass, not just the first.

use std::path::Path;

use serde_json::Value;

use crate::domain::validate;

/// A key of the config file.
#[derive(Debug)]
pub(crate) struct Key {
    /// Its section (`rate_limiting`), empty for a top-level key.
    pub section: &'static str,
    /// Its name within the section.
    pub name: &'static str,
    /// What values it takes.
    pub kind: Kind,
    /// One line (or two) saying what it does, for `config init`.
    pub doc: &'static str,
    /// For keys unset by default: a value to show in the commented-out
    /// template line.
    pub example: Option<&'static str>,
}

/// The values a key takes.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Kind {
    /// A whole number in `min..=max`.
    Int {
        /// Smallest allowed.
        min: u64,
        /// Largest allowed.
        max: u64,
    },
    /// A whole number in `min..=max`, or unset.
    OptInt {
        /// Smallest allowed.
        min: u64,
        /// Largest allowed.
        max: u64,
    },
    /// `true` or `false`.
    Bool,
    /// Non-blank text of at most `max_chars` characters.
    Text {
        /// Longest allowed.
        max_chars: usize,
    },
    /// A list of `item`s.
    List(ListKind),
    /// A list of `item`s, or unset.
    OptList(ListKind),
    /// An existing directory, or unset.
    OptDir,
    /// A name that could be an agent id (`validate::agent_id`).
    AgentName,
    /// One of the listed words.
    Choice(&'static [&'static str]),
    /// A server URL (`redis://`, `rediss://`, `unix://`), or unset.
    OptUrl,
    /// A name of 1-64 letters, digits, `.`, `_` and `-`, or unset.
    OptName,
    /// Non-blank text of at most `max_chars` characters, or unset.
    OptText {
        /// Longest allowed.
        max_chars: usize,
    },
}

/// The shape of a list value.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ListKind {
    /// What each element is.
    pub item: Item,
    /// Fewest elements.
    pub min_items: usize,
    /// Most elements.
    pub max_items: usize,
    /// Whether an element may appear twice.
    pub unique: bool,
}

/// An element of a list value.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Item {
    /// A whole number in `min..=max`.
    Int {
        /// Smallest allowed.
        min: u64,
        /// Largest allowed.
        max: u64,
    },
    /// Text of at most `max_chars` characters.
    Text {
        /// Longest allowed.
        max_chars: usize,
    },
    /// A program name: no `/`, no whitespace.
    Program,
    /// A custom message type (`validate::message_type_name`).
    MessageType,
}

/// The sections, in file order, with the comment `config init` writes
/// above each.
pub(crate) const SECTIONS: [(&str, &str); 10] = [
    (
        "rate_limiting",
        "Message rate limit per sender, shared by every swarm process.",
    ),
    ("locking", "File locks (`swarm lock`)."),
    ("discovery", "Finding the agent panes (`swarm discover`)."),
    (
        "onboarding",
        "Onboarding messages sent to new agents (kept for the Python tool).",
    ),
    ("dashboard", "Web dashboard settings (`swarm dashboard`)."),
    (
        "messaging",
        "How a message is put into an agent's pane (swarm only).",
    ),
    (
        "acks",
        "Messages sent with --ack: retries until acknowledged (swarm only).",
    ),
    (
        "message_log",
        "Rotation of agent_messages.log and how much rotated history is kept (swarm only).",
    ),
    (
        "store",
        "Where the shared state lives: the project's files, or one Redis server for agents on several hosts (swarm only).",
    ),
    (
        "launch",
        "`swarm launch`: each agent in a git worktree of its own, and what happens around them (swarm only).",
    ),
];

/// Every key, in file order.
pub(crate) const KEYS: &[Key] = &[
    Key {
        section: "",
        name: "project_root",
        kind: Kind::OptDir,
        doc: "Kept for the Python tool; swarm finds the root from --root, $CLAUDESWARM_ROOT or the nearest marker.",
        example: Some("\"/path/to/project\""),
    },
    Key {
        section: "rate_limiting",
        name: "messages_per_minute",
        kind: Kind::Int { min: 1, max: 1000 },
        doc: "Messages one agent may send per window (1-1000). A broadcast counts once.",
        example: None,
    },
    Key {
        section: "rate_limiting",
        name: "window_seconds",
        kind: Kind::Int { min: 1, max: 3600 },
        doc: "Length of the window in seconds (1-3600).",
        example: None,
    },
    Key {
        section: "locking",
        name: "stale_timeout",
        kind: Kind::Int {
            min: 60,
            max: 86_400,
        },
        doc: "Seconds after which a lock counts as abandoned and may be taken over (60-86400).",
        example: None,
    },
    Key {
        section: "locking",
        name: "auto_cleanup",
        kind: Kind::Bool,
        doc: "Kept for the Python tool.",
        example: None,
    },
    Key {
        section: "locking",
        name: "default_reason",
        kind: Kind::Text { max_chars: 100 },
        doc: "Reason recorded for a lock taken without --reason (at most 100 characters).",
        example: None,
    },
    Key {
        section: "discovery",
        name: "stale_threshold",
        kind: Kind::Int { min: 10, max: 3600 },
        doc: "Seconds an agent whose program exited stays listed as stale (10-3600).",
        example: None,
    },
    Key {
        section: "discovery",
        name: "auto_refresh_interval",
        kind: Kind::OptInt {
            min: 5,
            max: 86_400,
        },
        doc: "Kept for the Python tool; `swarm discover --watch --interval S` refreshes instead (5-86400).",
        example: Some("60"),
    },
    Key {
        section: "discovery",
        name: "enable_cross_project_coordination",
        kind: Kind::Bool,
        doc: "Also list agents whose pane works outside this project.",
        example: None,
    },
    Key {
        section: "discovery",
        name: "agent_commands",
        kind: Kind::List(ListKind {
            item: Item::Program,
            min_items: 0,
            max_items: 100,
            unique: true,
        }),
        doc: "Program names that make a pane an agent (swarm only).",
        example: None,
    },
    Key {
        section: "onboarding",
        name: "enabled",
        kind: Kind::Bool,
        doc: "Kept for the Python tool.",
        example: None,
    },
    Key {
        section: "onboarding",
        name: "custom_messages",
        kind: Kind::OptList(ListKind {
            item: Item::Text { max_chars: 1000 },
            min_items: 0,
            max_items: 100,
            unique: false,
        }),
        doc: "Extra lines sent to every agent when it is onboarded (at most 100, each at most 1000 characters).",
        example: Some("[\"Read COORDINATION.md before you start.\"]"),
    },
    Key {
        section: "onboarding",
        name: "auto_onboard",
        kind: Kind::Bool,
        doc: "Kept for the Python tool.",
        example: None,
    },
    Key {
        section: "dashboard",
        name: "enabled",
        kind: Kind::Bool,
        doc: "Kept for the Python tool.",
        example: None,
    },
    Key {
        section: "dashboard",
        name: "port",
        kind: Kind::Int {
            min: 1024,
            max: 65_535,
        },
        doc: "Port `swarm dashboard` listens on (1024-65535).",
        example: None,
    },
    Key {
        section: "dashboard",
        name: "host",
        kind: Kind::Text { max_chars: 253 },
        doc: "Host `swarm dashboard` listens on: localhost (127.0.0.1 and ::1), an address, or 0.0.0.0 for every interface.",
        example: None,
    },
    Key {
        section: "dashboard",
        name: "auto_open_browser",
        kind: Kind::Bool,
        doc: "Open the dashboard in a browser when it starts (needs a graphical session and xdg-open; `open` on macOS).",
        example: None,
    },
    Key {
        section: "dashboard",
        name: "refresh_interval",
        kind: Kind::Int { min: 1, max: 3600 },
        doc: "Seconds between the dashboard's checks for changes no file event announced (1-3600).",
        example: None,
    },
    Key {
        section: "dashboard",
        name: "allowed_hosts",
        kind: Kind::List(ListKind {
            item: Item::Text { max_chars: 260 },
            min_items: 0,
            max_items: 100,
            unique: true,
        }),
        doc: "Names the dashboard answers to besides the address it listens on (`name` or `name:port`); any other Host header is refused.",
        example: None,
    },
    Key {
        section: "messaging",
        name: "delivery_pause_ms",
        kind: Kind::OptInt { min: 0, max: 5000 },
        doc: "Milliseconds between pasting a message and pressing Enter, for every agent (0-5000). Unset: each agent's profile says (0 for Claude Code and Codex, 100 for Gemini CLI).",
        example: Some("150"),
    },
    Key {
        section: "messaging",
        name: "max_inline_bytes",
        kind: Kind::Int {
            min: 256,
            max: 10_240,
        },
        doc: "Longer messages go to a file and the agent gets a one-line pointer (256-10240 bytes).",
        example: None,
    },
    Key {
        section: "messaging",
        name: "confirm_delivery",
        kind: Kind::Bool,
        doc: "Check on screen that each message was submitted; press Enter once more if not.",
        example: None,
    },
    Key {
        section: "messaging",
        name: "operator",
        kind: Kind::AgentName,
        doc: "Sender name of a person: the default --from outside tmux, and the monitor's composer (letters, digits, - and _).",
        example: None,
    },
    Key {
        section: "messaging",
        name: "custom_types",
        kind: Kind::List(ListKind {
            item: Item::MessageType,
            min_items: 0,
            max_items: 100,
            unique: true,
        }),
        doc: "Extra message types besides the built-in ones (upper case A-Z, 0-9 and -, e.g. \"DEPLOY-DONE\").",
        example: None,
    },
    Key {
        section: "acks",
        name: "timeout_seconds",
        kind: Kind::Int { min: 1, max: 300 },
        doc: "Seconds to wait for an acknowledgement before the first retry (1-300).",
        example: None,
    },
    Key {
        section: "acks",
        name: "retry_delays",
        kind: Kind::List(ListKind {
            item: Item::Int { min: 1, max: 3600 },
            min_items: 1,
            max_items: 10,
            unique: false,
        }),
        doc: "Seconds before each further retry (each 1-3600); past the list, the wait doubles.",
        example: None,
    },
    Key {
        section: "acks",
        name: "max_retries",
        kind: Kind::Int { min: 0, max: 10 },
        doc: "Retries before an unacknowledged message is broadcast as escalated (0-10).",
        example: None,
    },
    Key {
        section: "message_log",
        name: "rotate_bytes",
        kind: Kind::Int {
            min: 1024,
            max: 1 << 30,
        },
        doc: "The log is renamed to agent_messages.log.<N> once it is larger than this (1 KiB-1 GiB).",
        example: None,
    },
    Key {
        section: "message_log",
        name: "keep_bytes",
        kind: Kind::Int {
            min: 0,
            max: 1 << 40,
        },
        doc: "Rotated segments are removed, oldest first, while together larger than this (0-1 TiB); never one holding a message an agent has not read.",
        example: None,
    },
    Key {
        section: "message_log",
        name: "keep_days",
        kind: Kind::Int { min: 1, max: 3650 },
        doc: "Rotated segments older than this many days are removed (1-3650); never one holding a message an agent has not read.",
        example: None,
    },
    Key {
        section: "store",
        name: "backend",
        kind: Kind::Choice(&["files", "redis"]),
        doc: "\"files\" (the project's state files, the default) or \"redis\" (one Redis or Valkey server shared by every host).",
        example: None,
    },
    Key {
        section: "store",
        name: "url",
        kind: Kind::OptUrl,
        doc: "The Redis server: redis://host:6379, rediss:// (TLS) or unix:///path/redis.sock. Give it as SWARM_STORE_URL when it holds a password.",
        example: Some("\"redis://127.0.0.1:6379\""),
    },
    Key {
        section: "store",
        name: "name",
        kind: Kind::OptName,
        doc: "The swarm's name; every key lives under it, so several swarms can share one server (default: the project directory's name).",
        example: Some("\"my-project\""),
    },
    Key {
        section: "store",
        name: "host",
        kind: Kind::OptName,
        doc: "This machine's name in the swarm (default: the host name); set it for containers.",
        example: Some("\"build-box\""),
    },
    Key {
        section: "store",
        name: "timeout_ms",
        kind: Kind::Int {
            min: 100,
            max: 30_000,
        },
        doc: "How long a command waits for the server before it fails, in milliseconds (100-30000).",
        example: None,
    },
    Key {
        section: "launch",
        name: "worktrees",
        kind: Kind::Bool,
        doc: "Give each launched agent a git worktree of its own (.swarm/worktrees/<id>, branch swarm/<id>), as `launch --worktrees` does.",
        example: None,
    },
    Key {
        section: "launch",
        name: "worktree_setup",
        kind: Kind::OptText { max_chars: 4096 },
        doc: "A command run with `sh -c` in each new worktree before its agent starts ($SWARM_ROOT is the project root); a failure is reported and the agent starts anyway.",
        example: Some("\"cp $SWARM_ROOT/.env . && npm ci\""),
    },
    Key {
        section: "launch",
        name: "tell_overlaps",
        kind: Kind::Bool,
        doc: "When `swarm changes` finds a file changed on two or more agents' branches, tell those agents once.",
        example: None,
    },
];

impl Key {
    /// `section.name`, or `name` for a top-level key.
    pub(crate) fn path(&self) -> String {
        if self.section.is_empty() {
            self.name.to_owned()
        } else {
            format!("{}.{}", self.section, self.name)
        }
    }

    /// The environment variable that overrides it,
    /// `SWARM_<SECTION>_<KEY>`; top-level keys have none.
    pub(crate) fn env_var(&self) -> Option<String> {
        if self.section.is_empty() {
            return None;
        }
        Some(format!("SWARM_{}_{}", self.section, self.name).to_ascii_uppercase())
    }

    /// The key at `section.name`.
    pub(crate) fn find(section: &str, name: &str) -> Option<&'static Key> {
        KEYS.iter().find(|k| k.section == section && k.name == name)
    }
}

/// One problem found in a document: the key it is about (`section.key`,
/// `section.key[2]` for a list element, empty for the document itself)
/// and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Finding {
    /// Where in the document.
    pub key: String,
    /// What is wrong and what is allowed.
    pub message: String,
}

fn finding(key: impl Into<String>, message: impl Into<String>) -> Finding {
    Finding {
        key: key.into(),
        message: message.into(),
    }
}

/// Checks a whole document (the parsed file, as JSON): every section and
/// key known, every value of the right type and in range. Returns every
/// problem, in document order.
pub(crate) fn check_document(doc: &Value) -> Vec<Finding> {
    let mut out = Vec::new();
    let top = match doc {
        Value::Object(map) => map,
        // An empty YAML document.
        Value::Null => return out,
        other => {
            out.push(finding(
                "",
                format!(
                    "the file must hold sections of keys (like [rate_limiting]), got {}",
                    describe(other)
                ),
            ));
            return out;
        }
    };
    for (name, value) in top {
        if let Some(key) = Key::find("", name) {
            out.extend(check_key(key, value));
            continue;
        }
        if name == "profiles" {
            out.extend(super::profile::check_section(
                value,
                &super::profile::builtin_names(),
            ));
            continue;
        }
        if !SECTIONS.iter().any(|(s, _)| s == name) {
            out.push(finding(name.clone(), unknown_section(name)));
            continue;
        }
        let Value::Object(keys) = value else {
            out.push(finding(
                name.clone(),
                format!(
                    "must be a section (a table of keys), got {}",
                    describe(value)
                ),
            ));
            continue;
        };
        for (k, v) in keys {
            match Key::find(name, k) {
                Some(key) => out.extend(check_key(key, v)),
                None => out.push(finding(format!("{name}.{k}"), unknown_key(name, k))),
            }
        }
    }
    out
}

/// Checks one key's value; findings name the key (and the list element).
pub(crate) fn check_key(key: &Key, value: &Value) -> Vec<Finding> {
    let path = key.path();
    check_kind(&key.kind, value)
        .into_iter()
        .map(|(suffix, message)| finding(format!("{path}{suffix}"), message))
        .collect()
}

/// The problems of one value: `(suffix, message)`, the suffix naming a
/// list element (`[2]`) or empty.
fn check_kind(kind: &Kind, value: &Value) -> Vec<(String, String)> {
    let one = |m: String| vec![(String::new(), m)];
    match (kind, value) {
        (
            Kind::OptInt { .. }
            | Kind::OptList(_)
            | Kind::OptDir
            | Kind::OptUrl
            | Kind::OptName
            | Kind::OptText { .. },
            Value::Null,
        ) => Vec::new(),
        (Kind::Choice(words), Value::String(s)) if words.contains(&s.as_str()) => Vec::new(),
        (Kind::Choice(words), v) => one(format!(
            "expected one of {}, got {}",
            words
                .iter()
                .map(|w| format!("\"{w}\""))
                .collect::<Vec<_>>()
                .join(", "),
            describe(v)
        )),
        (Kind::OptUrl, Value::String(s)) => validate::store_url(s)
            .err()
            .map(|e| one(e.to_string()))
            .unwrap_or_default(),
        (Kind::OptUrl, v) => one(format!("expected a server URL, got {}", describe(v))),
        (Kind::OptName, Value::String(s)) => validate::store_name(s)
            .err()
            .map(|e| one(e.to_string()))
            .unwrap_or_default(),
        (Kind::OptName, v) => one(format!("expected a name, got {}", describe(v))),
        (Kind::Int { min, max } | Kind::OptInt { min, max }, v) => {
            check_int(*min, *max, v).map(one).unwrap_or_default()
        }
        (Kind::Bool, Value::Bool(_)) => Vec::new(),
        (Kind::Bool, v) => one(format!("expected true or false, got {}", describe(v))),
        (Kind::Text { max_chars } | Kind::OptText { max_chars }, Value::String(s)) => {
            if s.trim().is_empty() {
                one("cannot be empty".into())
            } else if s.chars().count() > *max_chars {
                one(format!(
                    "too long ({} characters, at most {max_chars})",
                    s.chars().count()
                ))
            } else {
                Vec::new()
            }
        }
        (Kind::Text { .. } | Kind::OptText { .. }, v) => {
            one(format!("expected text, got {}", describe(v)))
        }
        (Kind::AgentName, Value::String(s)) => match validate::agent_id(s) {
            Ok(id) if id == *s => Vec::new(),
            Ok(_) => one("cannot start or end with spaces".into()),
            Err(e) => one(e.to_string()),
        },
        (Kind::AgentName, v) => one(format!("expected a name, got {}", describe(v))),
        (Kind::List(list) | Kind::OptList(list), Value::Array(items)) => check_list(list, items),
        (Kind::List(list) | Kind::OptList(list), v) => one(format!(
            "expected a list of {}, got {}",
            item_noun(&list.item),
            describe(v)
        )),
        (Kind::OptDir, Value::String(s)) => {
            if s.trim().is_empty() {
                one("cannot be empty (leave it out instead)".into())
            } else if !Path::new(s).is_dir() {
                one(format!("{s} is not an existing directory"))
            } else {
                Vec::new()
            }
        }
        (Kind::OptDir, v) => one(format!("expected a directory path, got {}", describe(v))),
    }
}

fn check_int(min: u64, max: u64, v: &Value) -> Option<String> {
    let range = || format!("must be between {min} and {max}");
    match v {
        Value::Number(n) => match (n.as_u64(), n.as_i64()) {
            (Some(u), _) if (min..=max).contains(&u) => None,
            (Some(u), _) => Some(format!("{}, got {u}", range())),
            (None, Some(i)) => Some(format!("{}, got {i}", range())),
            (None, None) => Some(format!(
                "expected a whole number from {min} to {max}, got number {n}"
            )),
        },
        other => Some(format!(
            "expected a whole number from {min} to {max}, got {}",
            describe(other)
        )),
    }
}

fn check_list(list: &ListKind, items: &[Value]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    if items.len() < list.min_items {
        out.push((
            String::new(),
            format!(
                "needs at least {} element{}",
                list.min_items,
                if list.min_items == 1 { "" } else { "s" }
            ),
        ));
    }
    if items.len() > list.max_items {
        out.push((
            String::new(),
            format!(
                "too many elements ({}, at most {})",
                items.len(),
                list.max_items
            ),
        ));
    }
    for (i, item) in items.iter().enumerate() {
        let problem = check_item(&list.item, item).or_else(|| {
            (list.unique && items[..i].contains(item))
                .then(|| format!("{} appears twice", describe(item)))
        });
        if let Some(m) = problem {
            out.push((format!("[{i}]"), m));
        }
    }
    out
}

fn check_item(item: &Item, v: &Value) -> Option<String> {
    match (item, v) {
        (Item::Int { min, max }, v) => check_int(*min, *max, v),
        (Item::Text { max_chars }, Value::String(s)) => {
            let n = s.chars().count();
            (n > *max_chars).then(|| format!("too long ({n} characters, at most {max_chars})"))
        }
        (Item::Program, Value::String(s)) => {
            (s.trim().is_empty() || s.contains('/') || s.chars().any(char::is_whitespace))
                .then(|| format!("{s:?} is not a program name (no spaces or `/`)"))
        }
        (Item::MessageType, Value::String(s)) => {
            validate::message_type_name(s).err().map(|e| e.to_string())
        }
        (item, v) => Some(format!("expected {}, got {}", item_noun(item), describe(v))),
    }
}

fn item_noun(item: &Item) -> &'static str {
    match item {
        Item::Int { .. } => "whole numbers",
        Item::Text { .. } => "text",
        Item::Program => "program names",
        Item::MessageType => "message type names",
    }
}

/// A value as a person would name it in an error: `string "ten"`,
/// `number 5.5`, `a list`.
pub(crate) fn describe(v: &Value) -> String {
    match v {
        Value::Null => "nothing (null)".into(),
        Value::Bool(b) => format!("boolean {b}"),
        Value::Number(n) if n.is_f64() => format!("number {n}"),
        Value::Number(n) => format!("integer {n}"),
        Value::String(s) => {
            let short: String = s.chars().take(40).collect();
            let dots = if short.len() < s.len() { "..." } else { "" };
            format!("string {}{dots}", Value::String(short))
        }
        Value::Array(_) => "a list".into(),
        Value::Object(_) => "a table".into(),
    }
}

fn unknown_section(name: &str) -> String {
    let names: Vec<&str> = SECTIONS
        .iter()
        .map(|(s, _)| *s)
        .chain(KEYS.iter().filter(|k| k.section.is_empty()).map(|k| k.name))
        .collect();
    format!(
        "unknown section{}; known: {}",
        suggestion(name, &names),
        names.join(", ")
    )
}

fn unknown_key(section: &str, name: &str) -> String {
    let names: Vec<&str> = KEYS
        .iter()
        .filter(|k| k.section == section)
        .map(|k| k.name)
        .collect();
    format!(
        "unknown key{}; [{section}] has: {}",
        suggestion(name, &names),
        names.join(", ")
    )
}

/// ` (did you mean `x`?)` when one of `names` is a small typo away.
pub(crate) fn suggestion(name: &str, names: &[&str]) -> String {
    nearest(name, names)
        .map(|n| format!(" (did you mean `{n}`?)"))
        .unwrap_or_default()
}

/// The index of the name in `names` nearest to `name`, if it is a small
/// typo away: at most a third of the typed name's length (at least one
/// edit). Measured against what was typed, so that a short stray name is
/// never "near" a long one.
pub(crate) fn nearest_index(name: &str, names: &[&str]) -> Option<usize> {
    let limit = (name.chars().count() / 3).max(1);
    names
        .iter()
        .enumerate()
        .map(|(i, n)| (edit_distance(name, n), i))
        .filter(|(d, _)| *d <= limit)
        .min()
        .map(|(_, i)| i)
}

/// The name in `names` a small typo away from `name` (see `nearest_index`).
fn nearest<'a>(name: &str, names: &[&'a str]) -> Option<&'a str> {
    nearest_index(name, names).and_then(|i| names.get(i).copied())
}

/// Levenshtein distance, for "did you mean" hints on short names.
pub(crate) fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != *cb);
            cur[j + 1] = (prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

/// Parses an environment override by its key's type: whole numbers,
/// `true`/`false` (also `1`/`0`, `yes`/`no`, `on`/`off`), text as is,
/// lists comma-separated or as a TOML array (`[60, 120]`), and `none` (or
/// an empty value) to unset an optional key.
pub(crate) fn parse_env(kind: &Kind, raw: &str) -> Result<Value, String> {
    let t = raw.trim();
    let unset = t.is_empty() || t.eq_ignore_ascii_case("none") || t.eq_ignore_ascii_case("null");
    match kind {
        Kind::OptInt { .. }
        | Kind::OptList(_)
        | Kind::OptDir
        | Kind::OptUrl
        | Kind::OptName
        | Kind::OptText { .. }
            if unset =>
        {
            Ok(Value::Null)
        }
        Kind::Int { .. } | Kind::OptInt { .. } => parse_int(t),
        Kind::Bool => match t.to_ascii_lowercase().as_str() {
            "true" | "1" | "yes" | "on" => Ok(Value::Bool(true)),
            "false" | "0" | "no" | "off" => Ok(Value::Bool(false)),
            _ => Err(format!(
                "expected true or false (or 1/0, yes/no, on/off), got {raw:?}"
            )),
        },
        Kind::Text { .. } | Kind::OptText { .. } | Kind::OptDir | Kind::AgentName => {
            Ok(Value::String(raw.to_owned()))
        }
        Kind::OptUrl | Kind::OptName | Kind::Choice(_) => Ok(Value::String(t.to_owned())),
        Kind::List(list) | Kind::OptList(list) => parse_env_list(&list.item, t),
    }
}

fn parse_int(t: &str) -> Result<Value, String> {
    t.parse::<i64>()
        .map(Value::from)
        .map_err(|_| format!("expected a whole number, got {t:?}"))
}

fn parse_env_list(item: &Item, t: &str) -> Result<Value, String> {
    if t.starts_with('[') {
        let parsed = toml::de::DeValue::parse(t)
            .map_err(|e| format!("not a valid list: {}", e.message()))?;
        return match super::tree::toml_value_to_json(parsed.get_ref()) {
            Some(v @ Value::Array(_)) => Ok(v),
            _ => Err(format!("not a valid list: {t:?}")),
        };
    }
    if t.is_empty() {
        return Ok(Value::Array(Vec::new()));
    }
    t.split(',')
        .map(str::trim)
        .map(|part| match item {
            Item::Int { .. } => parse_int(part),
            _ => Ok(Value::String(part.to_owned())),
        })
        .collect::<Result<Vec<_>, _>>()
        .map(Value::Array)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn env_names() {
        let k = Key::find("rate_limiting", "messages_per_minute").expect("key");
        assert_eq!(
            k.env_var().as_deref(),
            Some("SWARM_RATE_LIMITING_MESSAGES_PER_MINUTE")
        );
        assert_eq!(Key::find("", "project_root").and_then(Key::env_var), None);
    }

    #[test]
    fn every_problem_is_found_with_its_key() {
        let doc = json!({
            "rate_limit": {"x": 1},
            "rate_limiting": {"messages_per_minute": 0, "burst": 2, "window_seconds": "60"},
            "messaging": {"custom_types": ["DEPLOY", "INFO", "deploy", "DEPLOY"]},
            "acks": {"retry_delays": []},
            "locking": 5,
        });
        let keys: Vec<String> = check_document(&doc).into_iter().map(|f| f.key).collect();
        assert_eq!(
            keys,
            [
                "rate_limit",
                "rate_limiting.messages_per_minute",
                "rate_limiting.burst",
                "rate_limiting.window_seconds",
                "messaging.custom_types[1]",
                "messaging.custom_types[2]",
                "messaging.custom_types[3]",
                "acks.retry_delays",
                "locking",
            ]
        );
    }

    #[test]
    fn typos_get_a_suggestion() {
        let f = check_document(&json!({"rate_limit": {}}));
        assert!(
            f[0].message.contains("did you mean `rate_limiting`"),
            "{f:?}"
        );
        let f = check_document(&json!({"locking": {"stale_timout": 60}}));
        assert!(
            f[0].message.contains("did you mean `stale_timeout`"),
            "{f:?}"
        );
        let f = check_document(&json!({"zzz": {}}));
        assert!(!f[0].message.contains("did you mean"), "{f:?}");
    }

    #[test]
    fn a_suggestion_is_near_the_name_typed() {
        // Within a third of the typed name's length, whatever the candidate's.
        assert_eq!(suggestion("foo", &["operator"]), "");
        assert_eq!(suggestion("x", &["acks"]), "");
        assert_eq!(suggestion("port", &["portable_backend_name"]), "");
        assert_eq!(
            suggestion("operatr", &["operator"]),
            " (did you mean `operator`?)"
        );
        assert_eq!(
            suggestion("rate_limit", &["locking", "rate_limiting"]),
            " (did you mean `rate_limiting`?)"
        );
    }

    #[test]
    fn env_values_parse_by_type() {
        let kind = |s, n| &Key::find(s, n).expect("key").kind;
        assert_eq!(
            parse_env(kind("rate_limiting", "window_seconds"), " 20 "),
            Ok(json!(20))
        );
        assert!(parse_env(kind("rate_limiting", "window_seconds"), "ten").is_err());
        assert_eq!(
            parse_env(kind("messaging", "confirm_delivery"), "YES"),
            Ok(json!(true))
        );
        assert!(parse_env(kind("messaging", "confirm_delivery"), "maybe").is_err());
        assert_eq!(
            parse_env(kind("acks", "retry_delays"), "10, 20"),
            Ok(json!([10, 20]))
        );
        assert_eq!(
            parse_env(kind("acks", "retry_delays"), "[5, 6]"),
            Ok(json!([5, 6]))
        );
        assert!(parse_env(kind("acks", "retry_delays"), "5, x").is_err());
        assert_eq!(
            parse_env(kind("discovery", "auto_refresh_interval"), "none"),
            Ok(Value::Null)
        );
        assert_eq!(
            parse_env(kind("discovery", "agent_commands"), "claude,opencode"),
            Ok(json!(["claude", "opencode"]))
        );
    }
}
