//! `redeliver`: types queued messages into their recipients' panes again
//! (each recipient whose latest outcome is "queued" and who is still
//! registered), at once, as asked for by hand. Unless forced, nothing is
//! typed while a recipient is at its usage limit (it could only answer
//! "limit reached"), nor a message held for a budget while its recipient
//! is still over it (typing it in would spend what the budget keeps).

use crate::agents::registry::Registry;
use crate::backend::Operator;
use crate::error::{Error, Result};
use crate::log::record::{DeliveryStatus, MessageView};

pub use crate::messaging::Redelivery;

/// Which messages: one (by a prefix of its id) or every queued one.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Which {
    Message(String),
    AllQueued,
}

/// Which messages to try again, and whether to force it: checked, ready
/// to run.
#[derive(Clone, Debug)]
pub struct RedeliverPlan {
    which: Which,
    force: bool,
}

impl RedeliverPlan {
    /// The message whose id begins with `prefix` (trimmed; at least 4
    /// characters, else `Error::Invalid`).
    pub fn message(prefix: &str) -> Result<RedeliverPlan> {
        let prefix = prefix.trim();
        if prefix.len() < 4 {
            return Err(Error::Invalid(
                "give at least 4 characters of the message id".into(),
            ));
        }
        Ok(RedeliverPlan {
            which: Which::Message(prefix.to_owned()),
            force: false,
        })
    }

    /// Every message with a copy still queued.
    pub fn all_queued() -> RedeliverPlan {
        RedeliverPlan {
            which: Which::AllQueued,
            force: false,
        }
    }

    /// Types them in even to agents at their usage limit or over their
    /// budget, when `force`.
    pub fn force(mut self, force: bool) -> RedeliverPlan {
        self.force = force;
        self
    }
}

/// What `redeliver` did.
#[derive(Clone, Debug)]
pub enum Redelivered {
    /// The attempts, per message (those with nothing to retry left out).
    Tried(Vec<Redelivery>),
    /// Nothing was typed: `agent` is at its usage limit (`why` says how).
    AtLimit {
        /// The agent.
        agent: String,
        /// Its limit, in words.
        why: String,
    },
    /// Nothing was typed: these copies (message id, agent) were held
    /// because their recipient is over its budget, and it still is.
    OverBudget(Vec<(String, String)>),
}

/// What `redeliver` did, and what reading the usage warned of.
#[derive(Clone, Debug)]
pub struct RedeliverReport {
    /// What happened.
    pub done: Redelivered,
    /// Problems worth telling (usage records that could not be read).
    pub warnings: Vec<String>,
}

/// Tries the plan's messages again for the agents of `registry`. A prefix
/// no message has is `Error::UnknownMessage`; one several have is
/// `Error::Invalid`.
pub fn redeliver(
    op: &Operator,
    registry: &Registry,
    plan: &RedeliverPlan,
) -> Result<RedeliverReport> {
    let chosen = choose(op, &plan.which)?;
    let mut warnings = Vec::new();
    if !plan.force
        && let Some(done) = refusal(op, registry, &chosen, &mut warnings)?
    {
        return Ok(RedeliverReport { done, warnings });
    }
    let tried = op.messenger().redeliver(registry, &chosen)?;
    Ok(RedeliverReport {
        done: Redelivered::Tried(tried),
        warnings,
    })
}

/// The messages the plan names.
fn choose(op: &Operator, which: &Which) -> Result<Vec<MessageView>> {
    let views = op.backend.log.read_all()?.messages();
    Ok(match which {
        Which::Message(prefix) => {
            let hits: Vec<_> = views
                .into_iter()
                .filter(|v| v.message.msg_id.starts_with(prefix))
                .collect();
            match hits.len() {
                0 => return Err(Error::UnknownMessage(prefix.clone())),
                1 => hits,
                n => {
                    return Err(Error::Invalid(format!(
                        "{prefix} matches {n} messages; give more of the id"
                    )));
                }
            }
        }
        Which::AllQueued => views
            .into_iter()
            .filter(|v| {
                v.outcomes
                    .iter()
                    .any(|(_, o)| o.status == DeliveryStatus::Queued)
            })
            .collect(),
    })
}

/// Why nothing may be typed now, unforced: a queued recipient at its
/// usage limit, or copies held for a budget still overrun.
fn refusal(
    op: &Operator,
    registry: &Registry,
    chosen: &[MessageView],
    warnings: &mut Vec<String>,
) -> Result<Option<Redelivered>> {
    let limits = op.backend.limits.read()?;
    let limited = chosen.iter().find_map(|v| {
        v.outcomes
            .iter()
            .filter(|(_, o)| o.status == DeliveryStatus::Queued)
            .find_map(|(agent, _)| {
                limits
                    .of_agent(agent)
                    .map(|r| (agent.clone(), r.describe()))
            })
    });
    if let Some((agent, why)) = limited {
        return Ok(Some(Redelivered::AtLimit { agent, why }));
    }
    let over = over_budget(op, registry, warnings)?;
    let refused: Vec<(String, String)> = chosen
        .iter()
        .flat_map(|v| {
            v.outcomes
                .iter()
                .filter(|(agent, o)| {
                    o.status == DeliveryStatus::Queued
                        && o.reason.as_deref().is_some_and(|r| r.contains("budget"))
                        && over.iter().any(|a| a == agent)
                })
                .map(|(agent, _)| (v.message.msg_id.to_string(), agent.clone()))
        })
        .collect();
    Ok((!refused.is_empty()).then_some(Redelivered::OverBudget(refused)))
}

/// The agents of `registry` over their budget now (none without a
/// `[budget]`).
fn over_budget(
    op: &Operator,
    registry: &Registry,
    warnings: &mut Vec<String>,
) -> Result<Vec<String>> {
    if !op.usage.budget.any() {
        return Ok(Vec::new());
    }
    let (standing, more) = op.budget_round(registry)?;
    warnings.extend(more);
    Ok(registry
        .agents
        .iter()
        .map(|a| a.id.to_string())
        .filter(|id| standing.is_over(id))
        .collect())
}
