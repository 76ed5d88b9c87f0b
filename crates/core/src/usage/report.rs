//! What `swarm usage` shows (docs/USAGE.md): per agent, its tokens by
//! kind and model, per session and in total, the cost where the models
//! have a price, and how it stands against each budget; then the swarm's
//! totals and budget. The `--json` shape is this module's types.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::domain::Timestamp;

use super::budget::BudgetLine;
use super::ledger::{FileCursor, Ledger};
use super::prices::{PRICES_TAKEN, Prices};
use super::tally::{Standing, Tally};
use super::tokens::Tokens;

/// The whole report.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct UsageReport {
    /// Each agent with records, by id.
    pub agents: Vec<AgentUsage>,
    /// Every agent shown, together.
    pub total: UsageTotal,
    /// The swarm's budget lines (empty when none is set).
    pub swarm_budget: Vec<BudgetLine>,
    /// The budget period (`day` or `session`), when a budget is set.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub period: Option<&'static str>,
    /// Only usage since then is shown (`--since`), RFC 3339.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub since: Option<String>,
    /// When the built-in prices were taken.
    pub prices_taken: &'static str,
}

/// The usage of one agent.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct AgentUsage {
    /// Its id.
    pub agent: String,
    /// The model it used most (by input plus output).
    pub model: Option<String>,
    /// Its tokens by kind.
    pub tokens: Tokens,
    /// What they cost in US dollars, for the models with a price; `None`
    /// when none has one.
    pub cost: Option<f64>,
    /// Models without a price (their tokens count, their cost does not).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unpriced: Vec<String>,
    /// By model.
    pub models: Vec<ModelUsage>,
    /// By session (one record file each).
    pub sessions: Vec<SessionUsage>,
    /// Records in a shape swarm does not know, skipped.
    pub skipped: u64,
    /// How it stands against its own budget lines.
    pub budget: Vec<BudgetLine>,
    /// Each time it reached its vendor's usage limit (from the activity
    /// feed's `limited` lines), oldest first.
    pub limited: Vec<LimitSpell>,
}

/// One time an agent reached its usage limit.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LimitSpell {
    /// When it was seen, RFC 3339.
    pub at: String,
    /// When the agent said it resets, RFC 3339 (`None`: it did not say).
    pub until: Option<String>,
}

impl UsageReport {
    /// Adds each agent's `limited` spells from the activity feed's lines.
    pub fn add_limits(&mut self, feed: &[crate::attention::event::FeedEntry]) {
        for a in &mut self.agents {
            a.limited = feed
                .iter()
                .filter(|e| {
                    e.event == crate::attention::event::EventKind::Limited
                        && e.agent.as_deref() == Some(a.agent.as_str())
                })
                .map(|e| LimitSpell {
                    at: e.time.utc_iso(),
                    until: e.until.map(Timestamp::utc_iso),
                })
                .collect();
        }
    }
}

/// The tokens of one model.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ModelUsage {
    /// The model.
    pub model: String,
    /// Its tokens.
    pub tokens: Tokens,
    /// Their cost, when the model has a price.
    pub cost: Option<f64>,
}

/// The usage of one session.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SessionUsage {
    /// The session (its file's name).
    pub session: String,
    /// Whose records (`claude`, `codex`, `gemini`).
    pub vendor: Option<&'static str>,
    /// The record file.
    pub file: String,
    /// Its models, most used first.
    pub models: Vec<String>,
    /// Its tokens.
    pub tokens: Tokens,
    /// Their cost, for the models with a price.
    pub cost: Option<f64>,
    /// Its first and last usage, RFC 3339.
    pub first: Option<String>,
    /// See `first`.
    pub last: Option<String>,
}

/// Every agent shown, together.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct UsageTotal {
    /// Tokens by kind.
    pub tokens: Tokens,
    /// US dollars, for the models with a price.
    pub cost: Option<f64>,
}

impl Tally<'_> {
    /// The report of `ledger`, for `only` (one agent) or every agent with
    /// records, counting usage since `since` (Unix seconds); budget lines
    /// as `standing` says.
    pub fn report(
        &self,
        ledger: &Ledger,
        standing: &Standing,
        only: Option<&str>,
        since: Option<i64>,
    ) -> UsageReport {
        let prices = &self.settings.prices;
        let mut agents = Vec::new();
        let mut total = UsageTotal::default();
        let names: Vec<String> = match only {
            Some(a) => vec![a.to_owned()],
            None => ledger.agents_with_records(),
        };
        for agent in names {
            let files: Vec<&FileCursor> = ledger.files_of(&agent).collect();
            let usage = agent_usage(&agent, &files, since, prices, standing);
            total.tokens += usage.tokens;
            total.cost = add_cost(total.cost, usage.cost);
            agents.push(usage);
        }
        let config = &self.settings.budget;
        UsageReport {
            agents,
            total,
            swarm_budget: standing.swarm.clone(),
            period: config.any().then_some(match config.period {
                crate::config::BudgetPeriod::Day => "day",
                crate::config::BudgetPeriod::Session => "session",
            }),
            since: since
                .and_then(|s| Timestamp::from_unix_seconds(s as f64))
                .map(Timestamp::utc_iso),
            prices_taken: PRICES_TAKEN,
        }
    }
}

fn add_cost(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    match (a, b) {
        (None, None) => None,
        (a, b) => Some(a.unwrap_or(0.0) + b.unwrap_or(0.0)),
    }
}

/// Costs of `by_model` where priced, and the models without a price.
fn priced(by_model: &BTreeMap<String, Tokens>, prices: &Prices) -> (Vec<ModelUsage>, Vec<String>) {
    let mut models: Vec<ModelUsage> = by_model
        .iter()
        .map(|(m, t)| ModelUsage {
            model: m.clone(),
            tokens: *t,
            cost: prices.cost(m, t),
        })
        .collect();
    models.sort_by(|a, b| {
        b.tokens
            .counted()
            .cmp(&a.tokens.counted())
            .then(a.model.cmp(&b.model))
    });
    let unpriced = models
        .iter()
        .filter(|m| m.cost.is_none())
        .map(|m| m.model.clone())
        .collect();
    (models, unpriced)
}

fn agent_usage(
    agent: &str,
    files: &[&FileCursor],
    since: Option<i64>,
    prices: &Prices,
    standing: &Standing,
) -> AgentUsage {
    let mut by_model: BTreeMap<String, Tokens> = BTreeMap::new();
    let mut sessions = Vec::new();
    for f in files {
        let mine = f.by_model(since);
        if mine.is_empty() {
            continue;
        }
        let (models, _) = priced(&mine, prices);
        let tokens = mine.values().fold(Tokens::default(), |a, t| a + *t);
        let cost = models.iter().fold(None, |a, m| add_cost(a, m.cost));
        let iso = |t: Option<i64>| {
            t.and_then(|t| Timestamp::from_unix_seconds(t as f64))
                .map(Timestamp::utc_iso)
        };
        sessions.push(SessionUsage {
            session: f.session.clone(),
            vendor: f.vendor.map(|v| v.as_str()),
            file: f.path.clone(),
            models: models.iter().map(|m| m.model.clone()).collect(),
            tokens,
            cost,
            first: iso(f.first),
            last: iso(f.last),
        });
        for (m, t) in mine {
            *by_model.entry(m).or_default() += t;
        }
    }
    sessions.sort_by(|a, b| (&a.first, &a.session).cmp(&(&b.first, &b.session)));
    let (models, unpriced) = priced(&by_model, prices);
    AgentUsage {
        agent: agent.to_owned(),
        model: models.first().map(|m| m.model.clone()),
        tokens: by_model.values().fold(Tokens::default(), |a, t| a + *t),
        cost: models.iter().fold(None, |a, m| add_cost(a, m.cost)),
        unpriced,
        models,
        sessions,
        skipped: files.iter().map(|f| f.skipped).sum(),
        budget: standing.agents.get(agent).cloned().unwrap_or_default(),
        limited: Vec::new(),
    }
}
