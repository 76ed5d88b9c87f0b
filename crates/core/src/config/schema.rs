//! Checking a config document against the key table (`keys.rs`): every
//! unknown key, wrong type and out-of-range value is found in one pass on
//! the parsed document (a JSON tree) before it becomes a `Config`, not
//! just the first; and environment overrides parsed by their key's type.

use std::path::Path;

use serde_json::Value;

use crate::domain::validate;

use super::keys::{Item, KEYS, Key, Kind, ListKind, SECTIONS};

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
        if name == "prices" {
            out.extend(super::price::check_section(value));
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
            | Kind::OptFile
            | Kind::OptUrl
            | Kind::OptName
            | Kind::OptAmount { .. }
            | Kind::OptText { .. }
            | Kind::SecretUrl
            | Kind::SecretCommand { .. },
            Value::Null,
        ) => Vec::new(),
        (Kind::OptAmount { max }, Value::Number(n)) => match n.as_f64() {
            Some(v) if (0.0..=*max).contains(&v) => Vec::new(),
            _ => one(format!("expected an amount from 0 to {max}, got {n}")),
        },
        (Kind::OptAmount { .. }, v) => one(format!(
            "expected an amount (a number), got {}",
            describe(v)
        )),
        (Kind::SecretUrl, Value::String(s)) => validate::webhook_url(s)
            .err()
            .map(|e| one(e.to_string()))
            .unwrap_or_default(),
        (Kind::SecretUrl, v) => one(format!(
            "expected an http:// or https:// URL, got {}",
            describe(v)
        )),
        // The command is never quoted back: it may hold a token.
        (Kind::SecretCommand { max_chars }, Value::String(s)) => {
            let nul = s
                .contains('\0')
                .then(|| "cannot contain a NUL character".to_owned());
            check_text(s, *max_chars, "cannot be empty (leave it out instead)")
                .or(nul)
                .map(one)
                .unwrap_or_default()
        }
        (Kind::SecretCommand { .. }, v) => one(format!(
            "expected a shell command (text), got {}",
            describe(v)
        )),
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
            check_text(s, *max_chars, "cannot be empty")
                .map(one)
                .unwrap_or_default()
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
        (Kind::OptFile, Value::String(s)) => {
            if s.trim().is_empty() {
                one("cannot be empty (leave it out instead)".into())
            } else if Path::new(s).is_absolute() && !Path::new(s).is_file() {
                // A relative path is the project root's, which this check
                // does not know: the store names it when it cannot read it.
                one(format!("{s} is not an existing file"))
            } else {
                Vec::new()
            }
        }
        (Kind::OptFile, v) => one(format!("expected a file path, got {}", describe(v))),
    }
}

/// The problem of a text value, if any: blank (said as `blank`), or
/// longer than `max_chars`.
fn check_text(s: &str, max_chars: usize, blank: &str) -> Option<String> {
    let n = s.chars().count();
    if s.trim().is_empty() {
        Some(blank.to_owned())
    } else if n > max_chars {
        Some(format!("too long ({n} characters, at most {max_chars})"))
    } else {
        None
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
                .or_else(|| super::shells::refusal(s))
        }
        (Item::MessageType, Value::String(s)) => {
            validate::message_type_name(s).err().map(|e| e.to_string())
        }
        (Item::Choice(words), Value::String(s)) => (!words.contains(&s.as_str())).then(|| {
            format!(
                "unknown name {}{}; known: {}",
                Value::String(s.clone()),
                suggestion(s, words),
                words.join(", ")
            )
        }),
        (item, v) => Some(format!("expected {}, got {}", item_noun(item), describe(v))),
    }
}

fn item_noun(item: &Item) -> &'static str {
    match item {
        Item::Int { .. } => "whole numbers",
        Item::Text { .. } => "text",
        Item::Program => "program names",
        Item::MessageType => "message type names",
        Item::Choice(_) => "names",
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
        | Kind::OptFile
        | Kind::OptUrl
        | Kind::OptName
        | Kind::OptAmount { .. }
        | Kind::OptText { .. }
        | Kind::SecretUrl
        | Kind::SecretCommand { .. }
            if unset =>
        {
            Ok(Value::Null)
        }
        Kind::Int { .. } | Kind::OptInt { .. } => parse_int(t),
        Kind::OptAmount { .. } => t
            .parse::<f64>()
            .ok()
            .and_then(serde_json::Number::from_f64)
            .map(Value::Number)
            .ok_or_else(|| format!("expected an amount (a number), got {t:?}")),
        Kind::Bool => match t.to_ascii_lowercase().as_str() {
            "true" | "1" | "yes" | "on" => Ok(Value::Bool(true)),
            "false" | "0" | "no" | "off" => Ok(Value::Bool(false)),
            _ => Err(format!(
                "expected true or false (or 1/0, yes/no, on/off), got {raw:?}"
            )),
        },
        Kind::Text { .. }
        | Kind::OptText { .. }
        | Kind::OptDir
        | Kind::OptFile
        | Kind::AgentName
        | Kind::SecretCommand { .. } => Ok(Value::String(raw.to_owned())),
        Kind::OptUrl | Kind::OptName | Kind::Choice(_) | Kind::SecretUrl => {
            Ok(Value::String(t.to_owned()))
        }
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
