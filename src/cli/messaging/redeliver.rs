//! `swarm redeliver [ID | --all-queued]`: try again to type queued
//! messages into their recipients' panes.

use clap::Args;

use swarm_core::error::{Error, Result};
use swarm_core::log::record::Status;
use swarm_core::support::exit_code::ExitCode;

use crate::cli::context::Context;

/// Arguments of `swarm redeliver`.
#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("which").required(true).args(["id", "all_queued"])))]
pub(crate) struct RedeliverArgs {
    /// The message id, or a unique prefix of it (8 characters are enough)
    #[arg(value_name = "ID")]
    id: Option<String>,
    /// Every message still queued for a registered agent
    #[arg(long)]
    all_queued: bool,
    /// Type it in even to an agent that is over its budget or at its
    /// usage limit (refused while it is, otherwise)
    #[arg(long)]
    force: bool,
}

/// Retries queued deliveries.
pub(crate) fn run(ctx: &Context, args: &RedeliverArgs) -> Result<ExitCode> {
    let views = ctx.backend()?.log.read_all()?.messages();
    let chosen: Vec<_> = match &args.id {
        Some(prefix) => {
            let prefix = prefix.trim();
            if prefix.len() < 4 {
                return Err(Error::Invalid(
                    "give at least 4 characters of the message id".into(),
                ));
            }
            let hits: Vec<_> = views
                .into_iter()
                .filter(|v| v.message.msg_id.starts_with(prefix))
                .collect();
            match hits.len() {
                0 => return Err(Error::UnknownMessage(prefix.to_owned())),
                1 => hits,
                n => {
                    return Err(Error::Invalid(format!(
                        "{prefix} matches {n} messages; give more of the id"
                    )));
                }
            }
        }
        None => views
            .into_iter()
            .filter(|v| v.outcomes.iter().any(|(_, o)| o.status == Status::Queued))
            .collect(),
    };
    let registry = ctx.registry_or_empty()?;
    // A recipient at its usage limit could only answer "limit reached".
    if !args.force {
        let limits = ctx.backend()?.limits.read()?;
        let limited: Vec<(String, String)> = chosen
            .iter()
            .flat_map(|v| {
                v.outcomes
                    .iter()
                    .filter(|(_, o)| o.status == Status::Queued)
                    .filter_map(|(agent, _)| {
                        limits
                            .of_agent(agent)
                            .map(|r| (agent.clone(), r.describe()))
                    })
            })
            .collect();
        if let Some((agent, why)) = limited.first() {
            ctx.out.print(&format!(
                "Nothing redelivered: {agent} is {why} (`swarm limits`; --force types it in all the same)\n"
            ))?;
            return Ok(ExitCode::NotDelivered);
        }
    }
    // A message held because its recipient is over its budget waits for
    // the budget: typing it in now would spend what the budget keeps.
    if !args.force {
        let over = over_budget(ctx, &registry)?;
        let refused: Vec<(String, String)> = chosen
            .iter()
            .flat_map(|v| {
                v.outcomes
                    .iter()
                    .filter(|(agent, o)| {
                        o.status == Status::Queued
                            && o.reason.as_deref().is_some_and(|r| r.contains("budget"))
                            && over.iter().any(|a| a == agent)
                    })
                    .map(|(agent, _)| (v.message.msg_id.to_string(), agent.clone()))
            })
            .collect();
        if !refused.is_empty() {
            let (id, agent) = &refused[0];
            ctx.out.warn(&format!(
                "{} to {agent} was held because {agent} is over its budget, and it still is",
                swarm_core::domain::short(id)
            ));
            ctx.out.print(&format!(
                "Nothing redelivered: {} message{} wait{} for a budget (`swarm budget reset {agent}` starts a new period; --force types {} in all the same)\n",
                refused.len(),
                if refused.len() == 1 { "" } else { "s" },
                if refused.len() == 1 { "s" } else { "" },
                if refused.len() == 1 { "it" } else { "them" },
            ))?;
            return Ok(ExitCode::NotDelivered);
        }
    }
    let done = ctx.messenger()?.redeliver(&registry, &chosen)?;
    if done.is_empty() {
        ctx.out
            .print("Nothing to redeliver: no queued copy for a registered agent.\n")?;
        return Ok(ExitCode::Success);
    }
    let mut s = String::new();
    let mut still_queued = false;
    for r in &done {
        for (agent, o) in &r.outcomes {
            let id = r.view.message.msg_id.as_str();
            if o.is_delivered() {
                s.push_str(&format!(
                    "{} -> {agent}: delivered\n",
                    swarm_core::domain::short(id)
                ));
            } else {
                still_queued = true;
                s.push_str(&format!(
                    "{} -> {agent}: still queued ({})\n",
                    swarm_core::domain::short(id),
                    o.reason.as_deref().unwrap_or("not delivered")
                ));
            }
        }
    }
    ctx.out.print(&s)?;
    Ok(if still_queued {
        ExitCode::NotDelivered
    } else {
        ExitCode::Success
    })
}

/// The agents over their budget now (none without a `[budget]`).
fn over_budget(
    ctx: &Context,
    registry: &swarm_core::agents::registry::Registry,
) -> Result<Vec<String>> {
    let op = ctx.op()?;
    if !op.usage.budget.any() {
        return Ok(Vec::new());
    }
    let (standing, warnings) = op.budget_round(registry)?;
    for w in warnings {
        ctx.out.warn(&w);
    }
    Ok(registry
        .agents
        .iter()
        .map(|a| a.id.to_string())
        .filter(|id| standing.is_over(id))
        .collect())
}
