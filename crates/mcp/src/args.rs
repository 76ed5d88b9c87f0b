//! Checking a tool's arguments against the schema the model was shown,
//! before anything happens: arguments come from a model and are not
//! trusted. Each problem is an error naming the argument, so the model can
//! correct its call (the protocol's own "invalid params" error would not
//! reach it).

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use swarm_core::{Error, Result};

/// Checks `args` against `schema` (an object schema with flat properties,
/// as the tools declare), then reads them into `T`.
pub(super) fn parse<T: DeserializeOwned>(
    schema: &Map<String, Value>,
    args: Option<Map<String, Value>>,
) -> Result<T> {
    let args = args.unwrap_or_default();
    check(schema, &args)?;
    serde_json::from_value(Value::Object(args))
        .map_err(|e| Error::Invalid(format!("invalid arguments: {e}")))
}

fn check(schema: &Map<String, Value>, args: &Map<String, Value>) -> Result<()> {
    let empty = Map::new();
    let props = schema
        .get("properties")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    for key in args.keys() {
        if !props.contains_key(key) {
            let known: Vec<String> = props.keys().map(|k| format!("`{k}`")).collect();
            return Err(Error::Invalid(if known.is_empty() {
                format!(
                    "unknown argument `{}`: this tool takes no arguments",
                    shown(key)
                )
            } else {
                format!(
                    "unknown argument `{}`: this tool takes {}",
                    shown(key),
                    known.join(", ")
                )
            }));
        }
    }
    let required = schema
        .get("required")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[]);
    for r in required.iter().filter_map(Value::as_str) {
        if args.get(r).is_none_or(Value::is_null) {
            return Err(Error::Invalid(format!("missing argument `{r}`")));
        }
    }
    for (key, value) in args {
        if let Some(prop) = props.get(key).and_then(Value::as_object) {
            check_value(key, prop, value)?;
        }
    }
    Ok(())
}

fn check_value(name: &str, prop: &Map<String, Value>, value: &Value) -> Result<()> {
    let bad = |why: String| Err(Error::Invalid(format!("argument `{name}` {why}")));
    let allowed = types(prop);
    let kind = kind_of(value);
    if !allowed.is_empty() && !allowed.iter().any(|t| accepts(t, kind)) {
        let wanted: Vec<&str> = allowed
            .iter()
            .filter(|t| *t != "null")
            .map(|t| article(t))
            .collect();
        return bad(format!(
            "must be {}, not {}",
            wanted.join(" or "),
            article(kind)
        ));
    }
    if let Some(n) = value.as_i64().or_else(|| value.as_u64().map(|_| i64::MAX)) {
        let min = prop.get("minimum").and_then(Value::as_i64);
        let max = prop.get("maximum").and_then(Value::as_i64);
        if min.is_some_and(|m| n < m) || max.is_some_and(|m| n > m) {
            return bad(format!(
                "must be between {} and {} (got {value})",
                min.map_or("-".into(), |m| m.to_string()),
                max.map_or("-".into(), |m| m.to_string())
            ));
        }
    }
    if let Some(s) = value.as_str() {
        let len = s.chars().count();
        if let Some(max) = prop.get("maxLength").and_then(Value::as_u64)
            && len as u64 > max
        {
            return bad(format!("is too long ({len} characters, at most {max})"));
        }
    }
    if let Some(items) = value.as_array() {
        if let Some(max) = prop.get("maxItems").and_then(Value::as_u64)
            && items.len() as u64 > max
        {
            return bad(format!("has {} items, at most {max}", items.len()));
        }
        if let Some(min) = prop.get("minItems").and_then(Value::as_u64)
            && (items.len() as u64) < min
        {
            return bad(format!("needs at least {min} item(s)"));
        }
        if let Some(item_schema) = prop.get("items").and_then(Value::as_object) {
            let allowed = types(item_schema);
            for (i, item) in items.iter().enumerate() {
                let kind = kind_of(item);
                if !allowed.is_empty() && !allowed.iter().any(|t| accepts(t, kind)) {
                    return bad(format!(
                        "must be a list of {}s (item {} is {})",
                        allowed.join(" or "),
                        i + 1,
                        article(kind)
                    ));
                }
            }
        }
    }
    Ok(())
}

/// The JSON types a property schema allows (empty: any).
fn types(prop: &Map<String, Value>) -> Vec<String> {
    match prop.get("type") {
        Some(Value::String(t)) => vec![t.clone()],
        Some(Value::Array(ts)) => ts
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect(),
        _ => Vec::new(),
    }
}

fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn accepts(schema_type: &str, kind: &str) -> bool {
    schema_type == kind || (schema_type == "number" && kind == "integer")
}

fn article(kind: &str) -> &'static str {
    match kind {
        "null" => "null",
        "boolean" => "a boolean",
        "integer" => "an integer",
        "number" => "a number",
        "string" => "a string",
        "array" => "a list",
        "object" => "an object",
        _ => "a value",
    }
}

/// An argument name as the model sent it, safe to echo.
fn shown(key: &str) -> String {
    let one: String = swarm_core::support::sanitize::one_line(key);
    one.chars().take(64).collect()
}

/// Free text given as argument `name`: control characters removed (line
/// breaks and tabs kept), surrounding space trimmed, not empty.
pub(super) fn text(name: &str, raw: &str) -> Result<String> {
    let clean = swarm_core::support::sanitize::strip_controls(raw)
        .trim()
        .to_owned();
    if clean.is_empty() {
        return Err(Error::Invalid(format!("argument `{name}` is empty")));
    }
    Ok(clean)
}

/// An agent id given as argument `name`.
pub(super) fn agent_id(name: &str, raw: &str) -> Result<String> {
    swarm_core::domain::validate::agent_id(raw)
        .map_err(|e| Error::Invalid(format!("argument `{name}`: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;
    use serde_json::json;

    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Args {
        to: String,
        limit: Option<u32>,
        paths: Option<Vec<String>>,
    }

    fn schema() -> Map<String, Value> {
        json!({
            "type": "object",
            "properties": {
                "to": {"type": "string", "maxLength": 8},
                "limit": {"type": ["integer", "null"], "minimum": 1, "maximum": 100},
                "paths": {"type": ["array", "null"], "items": {"type": "string"}, "maxItems": 2}
            },
            "required": ["to"]
        })
        .as_object()
        .cloned()
        .unwrap_or_default()
    }

    fn err(args: Value) -> String {
        let args = args.as_object().cloned();
        match parse::<Args>(&schema(), args) {
            Ok(a) => panic!("accepted {a:?}"),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn each_problem_names_its_argument() {
        assert_eq!(err(json!({})), "missing argument `to`");
        assert_eq!(err(json!({"to": null})), "missing argument `to`");
        assert_eq!(
            err(json!({"to": 3})),
            "argument `to` must be a string, not an integer"
        );
        assert_eq!(
            err(json!({"to": "a", "limit": "5"})),
            "argument `limit` must be an integer, not a string"
        );
        assert!(
            err(json!({"to": "a", "limit": 0}))
                .starts_with("argument `limit` must be between 1 and 100")
        );
        assert!(
            err(json!({"to": "a", "limit": 1_000_000_000_000u64}))
                .starts_with("argument `limit` must be between")
        );
        assert_eq!(
            err(json!({"to": "a", "paths": ["x", 2]})),
            "argument `paths` must be a list of strings (item 2 is an integer)"
        );
        assert_eq!(
            err(json!({"to": "a", "paths": ["x", "y", "z"]})),
            "argument `paths` has 3 items, at most 2"
        );
        assert_eq!(
            err(json!({"to": "123456789"})),
            "argument `to` is too long (9 characters, at most 8)"
        );
        assert_eq!(
            err(json!({"to": "a", "from": "agent-9"})),
            "unknown argument `from`: this tool takes `to`, `limit`, `paths`"
        );
    }

    #[test]
    fn good_arguments_are_read() {
        let a: Args = parse(
            &schema(),
            json!({"to": "a", "limit": 3}).as_object().cloned(),
        )
        .expect("valid");
        assert_eq!((a.to.as_str(), a.limit), ("a", Some(3)));
    }
}
