//! What tokens cost: a built-in table per model (US dollars per million
//! tokens of each kind, with the date the prices were taken), which a
//! project's `[prices.MODEL]` tables change and extend. A model is found
//! by its exact name, else by the longest name in the table that it
//! starts with (`claude-sonnet-4-5-20250929` is `claude-sonnet-4-5`). A
//! model found nowhere has no price: its tokens are shown without a cost.

use std::collections::BTreeMap;

use super::tokens::Tokens;
use crate::config::Price;

/// When the built-in prices were last checked against the vendors' price
/// lists (Anthropic's pricing page; OpenAI's API pricing and Codex rate
/// card; the Gemini API pricing page), as published by then.
pub(crate) const PRICES_TAKEN: &str = "2026-07-04";

/// What `tokens` cost at `price`.
pub(crate) fn cost_at(price: &Price, tokens: &Tokens) -> f64 {
    let per = |n: u64, p: f64| n as f64 * p / 1_000_000.0;
    per(tokens.input, price.input)
        + per(tokens.output, price.output)
        + per(tokens.cache_read, price.cache_read.unwrap_or(price.input))
        + per(tokens.cache_write, price.cache_write.unwrap_or(price.input))
}

/// The built-in table: (model, price). Anthropic's cache writes are the
/// five-minute ones; Gemini's prices are those of prompts up to 200k
/// tokens.
const BUILT_IN: [(&str, Price); 27] = [
    // Anthropic: cache writes are the 5-minute ones (1.25x input), cache
    // reads 0.1x input.
    ("claude-opus-4-6", Price::new(5.0, 25.0, 0.5, 6.25)),
    ("claude-opus-4-5", Price::new(5.0, 25.0, 0.5, 6.25)),
    ("claude-opus-4-1", Price::new(15.0, 75.0, 1.5, 18.75)),
    ("claude-opus-4", Price::new(15.0, 75.0, 1.5, 18.75)),
    ("claude-sonnet-4-6", Price::new(3.0, 15.0, 0.3, 3.75)),
    ("claude-sonnet-4-5", Price::new(3.0, 15.0, 0.3, 3.75)),
    ("claude-sonnet-4", Price::new(3.0, 15.0, 0.3, 3.75)),
    ("claude-haiku-4-5", Price::new(1.0, 5.0, 0.1, 1.25)),
    ("claude-3-5-haiku", Price::new(0.8, 4.0, 0.08, 1.0)),
    // OpenAI: cached input is 0.1x input; writing the cache costs nothing
    // extra.
    ("gpt-5.5", Price::new(5.0, 30.0, 0.5, 5.0)),
    ("gpt-5.4", Price::new(2.5, 15.0, 0.25, 2.5)),
    ("gpt-5.3-codex", Price::new(1.75, 14.0, 0.175, 1.75)),
    ("gpt-5.2-codex", Price::new(1.75, 14.0, 0.175, 1.75)),
    ("gpt-5.2", Price::new(1.75, 14.0, 0.175, 1.75)),
    ("gpt-5.1-codex-mini", Price::new(0.25, 2.0, 0.025, 0.25)),
    ("gpt-5.1-codex", Price::new(1.25, 10.0, 0.125, 1.25)),
    ("gpt-5.1", Price::new(1.25, 10.0, 0.125, 1.25)),
    ("gpt-5-codex", Price::new(1.25, 10.0, 0.125, 1.25)),
    ("gpt-5-mini", Price::new(0.25, 2.0, 0.025, 0.25)),
    ("gpt-5", Price::new(1.25, 10.0, 0.125, 1.25)),
    ("gpt-4.1", Price::new(2.0, 8.0, 0.5, 2.0)),
    // Google: prompts up to 200,000 tokens; cached input 0.1x input.
    ("gemini-3.1-pro-preview", Price::new(2.0, 12.0, 0.2, 2.0)),
    ("gemini-3-pro-preview", Price::new(2.0, 12.0, 0.2, 2.0)),
    ("gemini-3-flash-preview", Price::new(0.5, 3.0, 0.05, 0.5)),
    ("gemini-2.5-pro", Price::new(1.25, 10.0, 0.125, 1.25)),
    ("gemini-2.5-flash-lite", Price::new(0.1, 0.4, 0.01, 0.1)),
    ("gemini-2.5-flash", Price::new(0.3, 2.5, 0.03, 0.3)),
];

/// The prices in force: the built-in table with the project's changes.
#[derive(Clone, Debug, PartialEq)]
pub struct Prices {
    table: BTreeMap<String, (Price, &'static str)>,
}

impl Default for Prices {
    fn default() -> Prices {
        Prices::new(&BTreeMap::new())
    }
}

impl Prices {
    /// The built-in table, changed and extended by `configured`
    /// (`[prices.MODEL]`).
    pub(crate) fn new(configured: &BTreeMap<String, Price>) -> Prices {
        let mut table: BTreeMap<String, (Price, &'static str)> = BUILT_IN
            .iter()
            .map(|(m, p)| ((*m).to_owned(), (*p, "built-in")))
            .collect();
        for (model, price) in configured {
            table.insert(model.clone(), (*price, "config"));
        }
        Prices { table }
    }

    /// The price of `model`, and where it comes from (`built-in` or
    /// `config`); `None` when it has none.
    pub(crate) fn of(&self, model: &str) -> Option<(Price, &'static str)> {
        if let Some(found) = self.table.get(model) {
            return Some(*found);
        }
        self.table
            .iter()
            .filter(|(name, _)| {
                model
                    .strip_prefix(name.as_str())
                    .is_some_and(|rest| rest.starts_with(['-', '@', ':']))
            })
            .max_by_key(|(name, _)| name.len())
            .map(|(_, found)| *found)
    }

    /// What `tokens` of `model` cost; `None` when the model has no price.
    pub(crate) fn cost(&self, model: &str, tokens: &Tokens) -> Option<f64> {
        self.of(model).map(|(p, _)| cost_at(&p, tokens))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_models_by_name_or_longest_prefix() {
        let p = Prices::default();
        assert_eq!(p.of("claude-sonnet-4-5").map(|x| x.0.input), Some(3.0));
        assert_eq!(
            p.of("claude-sonnet-4-5-20250929").map(|x| x.0.input),
            Some(3.0)
        );
        assert_eq!(
            p.of("claude-opus-4-5-20251101").map(|x| x.0.input),
            Some(5.0)
        );
        assert_eq!(
            p.of("claude-opus-4-20250514").map(|x| x.0.input),
            Some(15.0)
        );
        assert_eq!(p.of("gpt-5.1-codex-max").map(|x| x.0.input), Some(1.25));
        // A newer model is not priced as the older one its name begins
        // with.
        assert_eq!(p.of("claude-opus-4-6").map(|x| x.0.input), Some(5.0));
        assert_eq!(p.of("gpt-5.3-codex").map(|x| x.0.output), Some(14.0));
        assert_eq!(p.of("gpt-50"), None);
        assert_eq!(p.of("claude-opus-5-5"), None);
        assert_eq!(p.cost("unknown", &Tokens::default()), None);
    }

    #[test]
    fn config_changes_and_extends_the_table() {
        let mut configured = BTreeMap::new();
        configured.insert(
            "claude-opus-5-5".to_owned(),
            Price {
                input: 10.0,
                output: 50.0,
                cache_read: None,
                cache_write: Some(12.5),
            },
        );
        let p = Prices::new(&configured);
        let tokens = Tokens {
            input: 1_000_000,
            output: 100_000,
            cache_read: 1_000_000,
            cache_write: 0,
            reasoning: 0,
        };
        // 10 + 5 + 10 (cache reads at the input price when not given)
        assert_eq!(p.cost("claude-opus-5-5", &tokens), Some(25.0));
        assert_eq!(p.of("claude-opus-5-5").map(|x| x.1), Some("config"));
        assert_eq!(p.of("gpt-5").map(|x| x.1), Some("built-in"));
    }
}
