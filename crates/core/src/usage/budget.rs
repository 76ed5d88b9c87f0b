//! Budgets (`[budget]`, docs/USAGE.md): what an agent, and the swarm as a
//! whole, spent in the current period, against each limit set. A period
//! is a local calendar day or the agent's session (since its process
//! started), and starts again early at `swarm budget reset`. Tokens count
//! input plus output; money counts only models with a price.

use chrono::{Local, TimeZone};
use serde::Serialize;

use crate::config::{BudgetConfig, BudgetPeriod};

use super::ledger::{AgentPeriod, Ledger, bucket_of};
use super::prices::Prices;
use super::tokens::Tokens;

/// The share of a limit at which an agent is near its budget.
pub(crate) const NEAR_SHARE: f64 = 0.8;

/// How far a budget is used.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum BudgetLevel {
    /// Under 80%.
    Ok,
    /// 80% or more.
    Near,
    /// All of it, or more.
    Over,
}

/// One limit and how much of it is used.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BudgetLine {
    /// Which limit (`agent_tokens`, `agent_cost`, `swarm_tokens`,
    /// `swarm_cost`).
    pub budget: &'static str,
    /// What was spent in the period (tokens, or US dollars).
    pub used: f64,
    /// The limit.
    pub limit: f64,
    /// `used / limit`.
    pub share: f64,
    /// How far it is used.
    pub level: BudgetLevel,
}

impl BudgetLine {
    fn new(budget: &'static str, used: f64, limit: f64) -> BudgetLine {
        let share = if limit > 0.0 {
            used / limit
        } else {
            f64::INFINITY
        };
        let level = if share >= 1.0 {
            BudgetLevel::Over
        } else if share >= NEAR_SHARE {
            BudgetLevel::Near
        } else {
            BudgetLevel::Ok
        };
        BudgetLine {
            budget,
            used,
            limit,
            share,
            level,
        }
    }

    /// Which of two lines is worse: the higher level, then the larger
    /// share used.
    pub fn severity(&self, other: &BudgetLine) -> std::cmp::Ordering {
        (self.level, self.share)
            .partial_cmp(&(other.level, other.share))
            .unwrap_or(std::cmp::Ordering::Equal)
    }

    /// "agent_tokens 85,000 of 100,000 (85%)", for people.
    pub fn describe(&self) -> String {
        let amount = |v: f64| {
            if self.budget.ends_with("_cost") {
                format!("${v:.2}")
            } else {
                format!("{v:.0}")
            }
        };
        format!(
            "{} {} of {} ({:.0}%)",
            self.budget,
            amount(self.used),
            amount(self.limit),
            (self.share * 100.0).min(9999.0)
        )
    }
}

/// What one agent spent in its current period.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Spent {
    /// Tokens by kind.
    pub tokens: Tokens,
    /// US dollars, of the models with a price.
    pub cost: f64,
}

/// When `agent`'s current period started, Unix seconds (`None`: all its
/// records count), and whether a reset started it.
pub(crate) fn period_start(
    config: &BudgetConfig,
    period: Option<&AgentPeriod>,
    now: i64,
) -> (Option<i64>, bool) {
    let base = match config.period {
        BudgetPeriod::Day => local_midnight(now),
        BudgetPeriod::Session => period.and_then(|p| p.session_start),
    };
    match (base, period.and_then(|p| p.reset_at)) {
        (Some(b), Some(r)) if r >= b => (Some(r), true),
        (None, Some(r)) => (Some(r), true),
        (b, _) => (b, false),
    }
}

/// The start of the local day `now` lies in, Unix seconds.
fn local_midnight(now: i64) -> Option<i64> {
    let local = Local.timestamp_opt(now, 0).single()?;
    let midnight = local.date_naive().and_hms_opt(0, 0, 0)?;
    Local
        .from_local_datetime(&midnight)
        .earliest()
        .map(|t| t.timestamp())
}

/// What `agent` spent since `start` (all of it for `None`), less what a
/// reset at `start` had counted already.
pub(crate) fn spent(
    ledger: &Ledger,
    agent: &str,
    start: Option<i64>,
    by_reset: bool,
    prices: &Prices,
) -> Spent {
    let mut out = Spent::default();
    let from = start.map(bucket_of);
    for file in ledger.files_of(agent) {
        for b in &file.buckets {
            if from.is_none_or(|f| b.start >= f) {
                out.tokens += b.tokens;
                out.cost += prices.cost(&b.model, &b.tokens).unwrap_or(0.0);
            }
        }
    }
    if by_reset && let Some(p) = ledger.agents.get(agent) {
        out.tokens = out.tokens.less(&p.reset_base);
        out.cost = (out.cost - p.reset_base_cost).max(0.0);
    }
    out
}

/// The agent's own limits, used as `spent` says.
pub(crate) fn agent_lines(config: &BudgetConfig, spent: &Spent) -> Vec<BudgetLine> {
    lines(
        ("agent_tokens", config.agent_tokens),
        ("agent_cost", config.agent_cost),
        spent,
    )
}

/// The swarm's limits, used as the sum of every agent's `spent` says.
pub(crate) fn swarm_lines(config: &BudgetConfig, total: &Spent) -> Vec<BudgetLine> {
    lines(
        ("swarm_tokens", config.swarm_tokens),
        ("swarm_cost", config.swarm_cost),
        total,
    )
}

fn lines(
    tokens: (&'static str, Option<u64>),
    cost: (&'static str, Option<f64>),
    spent: &Spent,
) -> Vec<BudgetLine> {
    let mut out = Vec::new();
    if let (name, Some(limit)) = tokens {
        out.push(BudgetLine::new(
            name,
            spent.tokens.counted() as f64,
            limit as f64,
        ));
    }
    if let (name, Some(limit)) = cost {
        out.push(BudgetLine::new(name, spent.cost, limit));
    }
    out
}

/// Starts a new period for `agent` now: what the current quarter hour
/// counted so far is taken off from then on.
pub(crate) fn reset(ledger: &mut Ledger, agent: &str, now: i64, prices: &Prices) {
    let bucket = bucket_of(now);
    let mut base = Tokens::default();
    let mut cost = 0.0;
    for file in ledger.files_of(agent) {
        for b in file.buckets.iter().filter(|b| b.start == bucket) {
            base += b.tokens;
            cost += prices.cost(&b.model, &b.tokens).unwrap_or(0.0);
        }
    }
    let period = ledger.agents.entry(agent.to_owned()).or_default();
    period.reset_at = Some(now);
    period.reset_base = base;
    period.reset_base_cost = cost;
    period.told_for = None;
}

#[cfg(test)]
mod tests {
    use super::super::ledger::{Bucket, FileCursor};
    use super::*;

    fn ledger_with(agent: &str, buckets: &[(i64, u64)]) -> Ledger {
        let mut l = Ledger::default();
        let f = FileCursor {
            agent: agent.to_owned(),
            buckets: buckets
                .iter()
                .map(|(start, n)| Bucket {
                    start: *start,
                    model: "claude-sonnet-4-5".into(),
                    tokens: Tokens {
                        input: *n,
                        output: *n,
                        cache_read: 1000,
                        ..Tokens::default()
                    },
                })
                .collect(),
            ..FileCursor::default()
        };
        l.files.insert("f".into(), f);
        l
    }

    #[test]
    fn lines_say_how_far_each_limit_is_used() {
        let config = BudgetConfig {
            agent_tokens: Some(100),
            agent_cost: Some(1.0),
            ..BudgetConfig::default()
        };
        let spent = Spent {
            tokens: Tokens {
                input: 40,
                output: 40,
                cache_read: 1_000_000,
                ..Tokens::default()
            },
            cost: 1.5,
        };
        let lines = agent_lines(&config, &spent);
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[0].level, BudgetLevel::Near);
        assert_eq!(lines[0].used, 80.0);
        assert_eq!(lines[1].level, BudgetLevel::Over);
        assert_eq!(lines[0].describe(), "agent_tokens 80 of 100 (80%)");
        assert_eq!(lines[1].describe(), "agent_cost $1.50 of $1.00 (150%)");
        assert!(swarm_lines(&config, &spent).is_empty());
    }

    #[test]
    fn a_reset_counts_from_its_moment() {
        let prices = Prices::default();
        let mut l = ledger_with("agent-1", &[(0, 10), (900, 20)]);
        let config = BudgetConfig {
            period: BudgetPeriod::Session,
            ..BudgetConfig::default()
        };
        let (start, by_reset) = period_start(&config, l.agents.get("agent-1"), 1000);
        assert_eq!((start, by_reset), (None, false));
        assert_eq!(
            spent(&l, "agent-1", start, by_reset, &prices)
                .tokens
                .counted(),
            60
        );
        reset(&mut l, "agent-1", 1000, &prices);
        let (start, by_reset) = period_start(&config, l.agents.get("agent-1"), 1000);
        assert_eq!((start, by_reset), (Some(1000), true));
        let s = spent(&l, "agent-1", start, by_reset, &prices);
        assert_eq!(s.tokens.counted(), 0);
        assert_eq!(s.cost, 0.0);
        // More in the same quarter hour after the reset counts.
        if let Some(f) = l.files.get_mut("f") {
            f.buckets[1].tokens.input += 5;
        }
        let s = spent(&l, "agent-1", start, by_reset, &prices);
        assert_eq!(s.tokens.counted(), 5);
        assert!(s.cost > 0.0);
    }

    #[test]
    fn a_day_starts_at_local_midnight() {
        let now = 1_795_690_769;
        let start = local_midnight(now).expect("midnight");
        assert!(start <= now && now - start < 86_400 + 3600);
        let config = BudgetConfig::default();
        assert_eq!(period_start(&config, None, now), (Some(start), false));
    }
}
