//! What the monitor shows of each agent's usage: its tokens (input plus
//! output, what a budget counts), their cost when the models have a
//! price, and how it stands against the budget, made from the same report
//! `swarm usage` prints. The worker reads it on a slow cadence
//! (`session::USAGE_TICKS`); this module only shapes and words it.

use std::collections::HashMap;

use swarm_core::{BudgetLevel, UsageReport};

/// How one agent stands against the worst of its budget lines (its own
/// or the swarm's).
#[derive(Clone, Debug, PartialEq)]
pub struct BudgetMark {
    /// Used share of the limit (1.0 is all of it).
    pub share: f64,
    /// Under 80%, from 80%, or over.
    pub level: BudgetLevel,
    /// Whether the line is the swarm's rather than the agent's own.
    pub swarm: bool,
    /// `day` or `session`.
    pub period: &'static str,
}

/// One agent's usage, as the monitor shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct AgentSpend {
    /// Input plus output tokens, every record read.
    pub tokens: u64,
    /// US dollars, for the models with a price.
    pub cost: Option<f64>,
    /// How it stands against the budget, when one is set.
    pub budget: Option<BudgetMark>,
}

/// Each agent's usage, by agent id.
pub(crate) type Spending = HashMap<String, AgentSpend>;

/// Each agent's usage in `report`.
pub(crate) fn from_report(report: &UsageReport) -> Spending {
    let period = report.period.unwrap_or("day");
    report
        .agents
        .iter()
        .map(|a| {
            let own = a.budget.iter().map(|l| (l, false));
            let swarm = report.swarm_budget.iter().map(|l| (l, true));
            let worst = own.chain(swarm).max_by(|(a, _), (b, _)| a.severity(b));
            let spend = AgentSpend {
                tokens: a.tokens.counted(),
                cost: a.cost,
                budget: worst.map(|(l, swarm)| BudgetMark {
                    share: l.share,
                    level: l.level,
                    swarm,
                    period,
                }),
            };
            (a.agent.clone(), spend)
        })
        .collect()
}

/// `950`, `12.3k`, `4.5M`.
pub(crate) fn short_count(n: u64) -> String {
    match n {
        0..1_000 => n.to_string(),
        1_000..1_000_000 => format!("{:.1}k", n as f64 / 1e3),
        1_000_000..1_000_000_000 => format!("{:.1}M", n as f64 / 1e6),
        _ => format!("{:.1}G", n as f64 / 1e9),
    }
}

impl AgentSpend {
    /// `12.3k tok $0.42`: the tokens and, when known, the cost.
    pub(crate) fn amount(&self) -> String {
        let mut out = format!("{} tok", short_count(self.tokens));
        if let Some(c) = self.cost {
            out.push_str(&format!(" ${c:.2}"));
        }
        out
    }
}

impl BudgetMark {
    /// `72% of day budget`, `over swarm budget`.
    pub(crate) fn words(&self) -> String {
        let whose = if self.swarm { "swarm " } else { "" };
        if self.level == BudgetLevel::Over {
            format!("over {whose}budget")
        } else {
            format!(
                "{:.0}% of {whose}{} budget",
                (self.share * 100.0).floor(),
                self.period
            )
        }
    }
}

/// The plain stream's line for an agent whose usage changed:
/// `agent-1 usage: 30 tokens (input+output), $0.01, 72% of day budget`.
pub(crate) fn plain_words(agent: &str, spend: &AgentSpend) -> String {
    let mut out = format!("{agent} usage: {} tokens (input+output)", spend.tokens);
    if let Some(c) = spend.cost {
        out.push_str(&format!(", ${c:.2}"));
    }
    if let Some(b) = &spend.budget {
        out.push_str(&format!(", {}", b.words()));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use swarm_core::AgentUsage;
    use swarm_core::BudgetLine;
    use swarm_core::Tokens;
    use swarm_core::UsageTotal;

    fn line(budget: &'static str, used: f64, limit: f64, level: BudgetLevel) -> BudgetLine {
        BudgetLine {
            budget,
            used,
            limit,
            share: used / limit,
            level,
        }
    }

    fn agent(id: &str, input: u64, output: u64, cost: Option<f64>) -> AgentUsage {
        AgentUsage {
            agent: id.into(),
            model: None,
            tokens: Tokens {
                input,
                output,
                cache_read: 1_000_000,
                ..Tokens::default()
            },
            cost,
            unpriced: Vec::new(),
            models: Vec::new(),
            sessions: Vec::new(),
            skipped: 0,
            budget: Vec::new(),
            limited: Vec::new(),
        }
    }

    #[test]
    fn tokens_count_input_and_output_and_the_worst_budget_line_wins() {
        let mut a = agent("agent-1", 700, 20, Some(0.5));
        a.budget = vec![line("agent_tokens", 720.0, 1000.0, BudgetLevel::Ok)];
        let b = agent("agent-2", 10, 5, None);
        let report = UsageReport {
            agents: vec![a, b],
            total: UsageTotal::default(),
            swarm_budget: vec![line("swarm_tokens", 735.0, 900.0, BudgetLevel::Near)],
            period: Some("session"),
            since: None,
            prices_taken: "",
        };
        let spend = from_report(&report);
        let one = &spend["agent-1"];
        assert_eq!(one.tokens, 720);
        assert_eq!(one.amount(), "720 tok $0.50");
        let mark = one.budget.as_ref().expect("a budget");
        assert!(mark.swarm);
        assert_eq!(mark.words(), "81% of swarm session budget");
        assert_eq!(spend["agent-2"].amount(), "15 tok");
        assert_eq!(
            plain_words("agent-1", one),
            "agent-1 usage: 720 tokens (input+output), $0.50, 81% of swarm session budget"
        );
    }

    #[test]
    fn over_budget_and_large_counts_read_short() {
        let mark = BudgetMark {
            share: 1.4,
            level: BudgetLevel::Over,
            swarm: false,
            period: "day",
        };
        assert_eq!(mark.words(), "over budget");
        assert_eq!(short_count(999), "999");
        assert_eq!(short_count(12_345), "12.3k");
        assert_eq!(short_count(4_500_000), "4.5M");
        assert_eq!(short_count(u64::MAX), "18446744073.7G");
    }
}
