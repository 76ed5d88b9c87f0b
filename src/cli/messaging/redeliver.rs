//! `swarm redeliver [ID | --all-queued]`: try again to type queued
//! messages into their recipients' panes.

use clap::Args;

use swarm_core::ops::{self, RedeliverPlan, Redelivered};
use swarm_core::{ExitCode, Result};

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
    let plan = match &args.id {
        Some(prefix) => RedeliverPlan::message(prefix)?,
        None => RedeliverPlan::all_queued(),
    }
    .force(args.force);
    let registry = ctx.registry_or_empty()?;
    let report = ops::redeliver(ctx.op()?, &registry, &plan)?;
    for w in &report.warnings {
        ctx.out.warn(w);
    }
    let done = match report.done {
        Redelivered::Tried(done) => done,
        Redelivered::AtLimit { agent, why } => {
            ctx.out.print(&format!(
                "Nothing redelivered: {agent} is {why} (`swarm limits`; --force types it in all the same)\n"
            ))?;
            return Ok(ExitCode::NotDelivered);
        }
        Redelivered::OverBudget(refused) => {
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
    };
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
