//! Parsing a config file into a plain JSON tree plus the line of each key,
//! for both formats, so that one checker (`schema`) serves TOML and YAML
//! and every problem can name its line.

use std::collections::HashMap;

use serde_json::{Map, Number, Value};

/// Deepest YAML nesting accepted (parity: 10; the top-level mapping's
/// values are at depth 1).
pub(crate) const MAX_YAML_DEPTH: usize = 10;

/// A parsed document: the values, and the line (1-based) where each key
/// (`section`, `section.key`) is written, when it is known.
#[derive(Debug, Default)]
pub(super) struct Parsed {
    /// The document as JSON.
    pub value: Value,
    /// Line of each key path.
    pub lines: HashMap<String, usize>,
    /// Values that have no JSON form (a TOML date, a YAML tag, NaN), by
    /// key path; they are left out of `value`.
    pub unsupported: Vec<(String, String)>,
}

/// A document that could not be parsed at all.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct SyntaxError {
    /// Where, when the parser said.
    pub line: Option<usize>,
    /// The parser's explanation.
    pub message: String,
}

impl Parsed {
    /// The line of `key` (`section.key[2]`), or of the nearest enclosing
    /// key whose line is known.
    pub(super) fn line_of(&self, key: &str) -> Option<usize> {
        let mut k = key.split('[').next().unwrap_or(key);
        loop {
            if let Some(line) = self.lines.get(k) {
                return Some(*line);
            }
            k = &k[..k.rfind('.')?];
        }
    }
}

/// Parses TOML, with exact key lines from the parser's spans.
pub(super) fn parse_toml(text: &str) -> Result<Parsed, SyntaxError> {
    let table = toml::de::DeTable::parse(text).map_err(|e| SyntaxError {
        line: e.span().map(|s| line_at(text, s.start)),
        message: e.message().trim_end().to_owned(),
    })?;
    let mut parsed = Parsed::default();
    let mut map = Map::new();
    for (k, v) in table.get_ref().iter() {
        let key = k.get_ref().to_string();
        parsed
            .lines
            .insert(key.clone(), line_at(text, k.span().start));
        toml_entry(text, &key, &key, v, &mut parsed, &mut map);
    }
    parsed.value = Value::Object(map);
    Ok(parsed)
}

/// Adds `name = v` (at key path `path`) to `into`, recording key lines.
fn toml_entry(
    text: &str,
    path: &str,
    name: &str,
    v: &toml::Spanned<toml::de::DeValue<'_>>,
    parsed: &mut Parsed,
    into: &mut Map<String, Value>,
) {
    let name = name.to_owned();
    if let toml::de::DeValue::Table(t) = v.get_ref() {
        let mut inner = Map::new();
        for (k, child) in t.iter() {
            let child_path = format!("{path}.{}", k.get_ref());
            parsed
                .lines
                .entry(child_path.clone())
                .or_insert_with(|| line_at(text, k.span().start));
            toml_entry(text, &child_path, k.get_ref(), child, parsed, &mut inner);
        }
        into.insert(name, Value::Object(inner));
        return;
    }
    match toml_value_to_json(v.get_ref()) {
        Some(json) => {
            into.insert(name, json);
        }
        None => parsed.unsupported.push((
            path.to_owned(),
            "dates and times are not valid values here".into(),
        )),
    }
}

/// A TOML value as JSON; `None` for values JSON has no form for (dates,
/// NaN, infinities), anywhere inside it.
pub(super) fn toml_value_to_json(v: &toml::de::DeValue<'_>) -> Option<Value> {
    use toml::de::DeValue;
    Some(match v {
        DeValue::String(s) => Value::String(s.to_string()),
        DeValue::Integer(i) => {
            let digits = i.as_str();
            match i64::from_str_radix(digits, i.radix()) {
                Ok(n) => Value::from(n),
                // Out of i64 range: still a whole number, reported as out
                // of range by the checker.
                Err(_) => Value::from(u64::from_str_radix(digits, i.radix()).ok()?),
            }
        }
        DeValue::Float(f) => {
            Value::Number(Number::from_f64(f.as_str().replace('_', "").parse().ok()?)?)
        }
        DeValue::Boolean(b) => Value::Bool(*b),
        DeValue::Datetime(_) => return None,
        DeValue::Array(a) => Value::Array(
            a.iter()
                .map(|x| toml_value_to_json(x.get_ref()))
                .collect::<Option<_>>()?,
        ),
        DeValue::Table(t) => Value::Object(
            t.iter()
                .map(|(k, x)| Some((k.get_ref().to_string(), toml_value_to_json(x.get_ref())?)))
                .collect::<Option<_>>()?,
        ),
    })
}

/// Parses YAML (safe: no custom tags), refusing nesting deeper than
/// `MAX_YAML_DEPTH`. Key lines come from a scan of the block-style text,
/// since the YAML parser keeps no positions in its values.
pub(super) fn parse_yaml(text: &str) -> Result<Parsed, SyntaxError> {
    if text.trim().is_empty() {
        return Ok(Parsed {
            value: Value::Object(Map::new()),
            ..Parsed::default()
        });
    }
    let yaml: yaml_serde::Value = yaml_serde::from_str(text).map_err(|e| SyntaxError {
        line: e.location().map(|l| l.line()),
        message: e.to_string(),
    })?;
    if too_deep(&yaml, 0) {
        return Err(SyntaxError {
            line: None,
            message: format!("YAML nesting depth exceeds the maximum of {MAX_YAML_DEPTH} levels"),
        });
    }
    let mut parsed = Parsed {
        lines: yaml_key_lines(text),
        ..Parsed::default()
    };
    parsed.value = match yaml {
        yaml_serde::Value::Null => Value::Object(Map::new()),
        other => yaml_to_json(&other, "", &mut parsed.unsupported).unwrap_or(Value::Null),
    };
    Ok(parsed)
}

fn too_deep(v: &yaml_serde::Value, depth: usize) -> bool {
    if depth > MAX_YAML_DEPTH {
        return true;
    }
    match v {
        yaml_serde::Value::Sequence(items) => items.iter().any(|x| too_deep(x, depth + 1)),
        yaml_serde::Value::Mapping(m) => m.values().any(|x| too_deep(x, depth + 1)),
        yaml_serde::Value::Tagged(t) => too_deep(&t.value, depth),
        _ => false,
    }
}

fn yaml_to_json(
    v: &yaml_serde::Value,
    path: &str,
    unsupported: &mut Vec<(String, String)>,
) -> Option<Value> {
    use yaml_serde::Value as Y;
    fn bad(unsupported: &mut Vec<(String, String)>, path: &str, why: &str) -> Option<Value> {
        unsupported.push((path.to_owned(), why.to_owned()));
        None
    }
    match v {
        Y::Null => Some(Value::Null),
        Y::Bool(b) => Some(Value::Bool(*b)),
        Y::Number(n) => {
            if let Some(i) = n.as_i64() {
                Some(Value::from(i))
            } else if let Some(u) = n.as_u64() {
                Some(Value::from(u))
            } else {
                match n.as_f64().and_then(Number::from_f64) {
                    Some(f) => Some(Value::Number(f)),
                    None => bad(
                        unsupported,
                        path,
                        "NaN and infinity are not valid values here",
                    ),
                }
            }
        }
        Y::String(s) => Some(Value::String(s.clone())),
        Y::Sequence(items) => {
            let mut out = Vec::with_capacity(items.len());
            for (i, x) in items.iter().enumerate() {
                out.push(yaml_to_json(x, &format!("{path}[{i}]"), unsupported)?);
            }
            Some(Value::Array(out))
        }
        Y::Mapping(m) => {
            let mut out = Map::new();
            for (k, x) in m {
                let key = match k {
                    Y::String(s) => s.clone(),
                    // `1: x` or `true: x`: a key all the same, reported as
                    // unknown by the checker.
                    Y::Number(n) => n.to_string(),
                    Y::Bool(b) => b.to_string(),
                    Y::Null => "null".into(),
                    _ => {
                        return bad(
                            unsupported,
                            path,
                            "keys must be plain names, not lists or tables",
                        );
                    }
                };
                let child = if path.is_empty() {
                    key.clone()
                } else {
                    format!("{path}.{key}")
                };
                if let Some(value) = yaml_to_json(x, &child, unsupported) {
                    out.insert(key, value);
                }
            }
            Some(Value::Object(out))
        }
        Y::Tagged(_) => bad(unsupported, path, "YAML tags (`!name`) are not supported"),
    }
}

/// The line of every block-style mapping key (`key:` at the start of a
/// line), by key path. Flow-style mappings (`{a: 1}`) are not scanned;
/// their keys fall back to the line of the enclosing key.
fn yaml_key_lines(text: &str) -> HashMap<String, usize> {
    let mut lines = HashMap::new();
    // (indentation, key) of the enclosing keys.
    let mut stack: Vec<(usize, String)> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let body = line.trim_start_matches(' ');
        if body.is_empty() || body.starts_with('#') || body.starts_with("---") {
            continue;
        }
        let indent = line.len() - body.len();
        let Some(key) = block_key(body) else {
            continue;
        };
        while stack.last().is_some_and(|(ind, _)| *ind >= indent) {
            stack.pop();
        }
        let mut path: Vec<&str> = stack.iter().map(|(_, k)| k.as_str()).collect();
        path.push(&key);
        lines.entry(path.join(".")).or_insert(i + 1);
        stack.push((indent, key));
    }
    lines
}

/// `key` of a line `key: ...` / `"key": ...`, if it is one.
fn block_key(body: &str) -> Option<String> {
    let (key, rest) = if let Some(q) = body.strip_prefix('"').or_else(|| body.strip_prefix('\'')) {
        let quote = body.chars().next()?;
        let end = q.find(quote)?;
        (&q[..end], &q[end + 1..])
    } else {
        let end = body.find(':')?;
        (&body[..end], &body[end..])
    };
    let rest = rest.trim_start();
    let after = rest.strip_prefix(':')?;
    if key.is_empty() || key.starts_with(['-', '[', '{', '?']) {
        return None;
    }
    (after.is_empty() || after.starts_with([' ', '\t'])).then(|| key.trim_end().to_owned())
}

/// The 1-based line of byte `offset`.
fn line_at(text: &str, offset: usize) -> usize {
    let end = offset.min(text.len());
    text.as_bytes()[..end]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    proptest! {
        #[test]
        fn no_document_panics_the_parsers_or_the_checker(
            s in prop_oneof!["[\\PC\n]{0,200}", "[a-z_\\[\\]=:\" \n0-9{},.#-]{0,160}"]
        ) {
            for parsed in [parse_toml(&s), parse_yaml(&s)].into_iter().flatten() {
                let _ = super::super::schema::check_document(&parsed.value);
                for key in parsed.lines.keys() {
                    let _ = parsed.line_of(key);
                }
            }
        }
    }

    #[test]
    fn toml_lines_and_values() {
        let p = parse_toml("# c\n[locking]\nstale_timeout = 60\n\n[acks]\nretry_delays = [1, 2]\n")
            .expect("parse");
        assert_eq!(
            p.value,
            json!({"locking": {"stale_timeout": 60}, "acks": {"retry_delays": [1, 2]}})
        );
        assert_eq!(p.line_of("locking"), Some(2));
        assert_eq!(p.line_of("locking.stale_timeout"), Some(3));
        assert_eq!(p.line_of("acks.retry_delays[1]"), Some(6));
        assert_eq!(p.line_of("acks.nope"), Some(5));
    }

    #[test]
    fn quoted_toml_keys_keep_their_dots() {
        let p = parse_toml("[locking]\n\"a.b\" = 1\n").expect("parse");
        assert_eq!(p.value, json!({"locking": {"a.b": 1}}));
    }

    #[test]
    fn toml_syntax_errors_have_a_line() {
        let e = parse_toml("[a]\nb = \n").expect_err("bad");
        assert_eq!(e.line, Some(2), "{e:?}");
    }

    #[test]
    fn toml_dates_are_unsupported() {
        let p = parse_toml("[locking]\ndefault_reason = 1979-05-27\n").expect("parse");
        assert_eq!(p.unsupported.len(), 1);
        assert_eq!(p.unsupported[0].0, "locking.default_reason");
    }

    #[test]
    fn yaml_lines_and_values() {
        let text = "# c\nlocking:\n  stale_timeout: 60   # x\n\n\"acks\":\n  retry_delays:\n    - 1\n    - 2\nmessaging: {confirm_delivery: true}\n";
        let p = parse_yaml(text).expect("parse");
        assert_eq!(
            p.value,
            json!({"locking": {"stale_timeout": 60}, "acks": {"retry_delays": [1, 2]},
                   "messaging": {"confirm_delivery": true}})
        );
        assert_eq!(p.line_of("locking.stale_timeout"), Some(3));
        assert_eq!(p.line_of("acks.retry_delays[1]"), Some(6));
        assert_eq!(p.line_of("messaging.confirm_delivery"), Some(9));
    }

    #[test]
    fn yaml_depth_limit() {
        // `a: {b: {b: ... 1}}` with the scalar at depth `n`.
        let nested = |n: usize| format!("a: {}1{}", "{b: ".repeat(n - 1), "}".repeat(n - 1));
        assert!(parse_yaml(&nested(10)).is_ok());
        let e = parse_yaml(&nested(11)).expect_err("too deep");
        assert!(e.message.contains("nesting depth"), "{e:?}");
        let e =
            parse_yaml(&format!("{}1{}", "[".repeat(11), "]".repeat(11))).expect_err("too deep");
        assert!(e.message.contains("nesting depth"), "{e:?}");
    }

    #[test]
    fn yaml_tags_and_odd_keys() {
        let p = parse_yaml("a: !x 1\n1: b\n").expect("parse");
        assert_eq!(p.value, json!({"1": "b"}));
        assert_eq!(p.unsupported[0].0, "a");
        assert_eq!(parse_yaml("").expect("empty").value, json!({}));
        assert!(parse_yaml("a: [\n").is_err());
    }
}
