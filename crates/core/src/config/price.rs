//! `[prices.MODEL]`: a project's price for a model, in US dollars per
//! million tokens of each kind, over the built-in table (docs/USAGE.md).
//! The tables have free names (model names), so they are checked here as
//! a whole, as profiles are.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::schema::Finding;

/// The most `[prices.MODEL]` tables a config may hold.
const MAX_PRICES: usize = 200;

/// The highest price per million tokens accepted.
const MAX_PRICE: f64 = 1_000_000.0;

/// The price of one model, in US dollars per million tokens.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Price {
    /// Fresh prompt tokens.
    pub input: f64,
    /// Written tokens (reasoning included).
    pub output: f64,
    /// Prompt tokens read from the cache (the input price when not given).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_read: Option<f64>,
    /// Prompt tokens written to the cache (the input price when not
    /// given).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_write: Option<f64>,
}

impl Price {
    /// A price with every kind given.
    pub(crate) const fn new(input: f64, output: f64, cache_read: f64, cache_write: f64) -> Price {
        Price {
            input,
            output,
            cache_read: Some(cache_read),
            cache_write: Some(cache_write),
        }
    }
}

/// Checks the `prices` table of a document: each entry a model name of
/// 1-80 characters (letters, digits, `-._:/@`) holding `input` and
/// `output` and optionally `cache_read` and `cache_write`, each a number
/// from 0 to 1,000,000.
pub(crate) fn check_section(value: &Value) -> Vec<Finding> {
    let mut out = Vec::new();
    let mut add = |key: String, message: String| out.push(Finding { key, message });
    let Value::Object(models) = value else {
        add(
            "prices".into(),
            "must be a table of models ([prices.MODEL])".into(),
        );
        return out;
    };
    if models.len() > MAX_PRICES {
        add(
            "prices".into(),
            format!("too many prices ({}, at most {MAX_PRICES})", models.len()),
        );
    }
    for (model, table) in models {
        let at = format!("prices.{model}");
        if !valid_model(model) {
            add(
                at,
                "a model name is 1-80 letters, digits, `-`, `_`, `.`, `:`, `/` or `@`".into(),
            );
            continue;
        }
        let price: Price = match serde_json::from_value(table.clone()) {
            Ok(p) => p,
            Err(e) => {
                add(at, e.to_string());
                continue;
            }
        };
        let fields = [
            ("input", Some(price.input)),
            ("output", Some(price.output)),
            ("cache_read", price.cache_read),
            ("cache_write", price.cache_write),
        ];
        for (name, v) in fields {
            if let Some(v) = v
                && !(0.0..=MAX_PRICE).contains(&v)
            {
                add(
                    format!("{at}.{name}"),
                    format!("expected dollars per million tokens from 0 to 1000000, got {v}"),
                );
            }
        }
    }
    out
}

fn valid_model(name: &str) -> bool {
    (1..=80).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_.:/@".contains(&b))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn checks_every_table() {
        let ok = json!({"gpt-5.1": {"input": 1.25, "output": 10}, "m": {"input": 0, "output": 0, "cache_read": 0.1, "cache_write": 2}});
        assert!(check_section(&ok).is_empty());
        let bad = json!({
            "a b": {"input": 1, "output": 1},
            "m1": {"input": 1},
            "m2": {"input": -1, "output": 1},
            "m3": {"input": 1, "output": 1, "cache": 1},
            "m4": {"input": "1", "output": 1},
        });
        let found = check_section(&bad);
        let keys: Vec<&str> = found.iter().map(|f| f.key.as_str()).collect();
        assert_eq!(
            keys,
            [
                "prices.a b",
                "prices.m1",
                "prices.m2.input",
                "prices.m3",
                "prices.m4"
            ],
            "{found:?}"
        );
        assert_eq!(check_section(&json!(3)).len(), 1);
    }
}
