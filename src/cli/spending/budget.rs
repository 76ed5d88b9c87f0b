//! `swarm budget reset AGENT`: starts a new budget period for an agent
//! now (docs/USAGE.md), recorded in the audit log. Messages held while it
//! was over its budget wait in its inbox; `swarm redeliver --all-queued`
//! types them in.

use clap::{Args, Subcommand};
use serde::Serialize;

use swarm_core::{AgentId, AuditEvent, AuditKind, AuditLog, Error, ExitCode, Result};

use crate::cli::actor;
use crate::cli::context::Context;

/// Arguments of `swarm budget`.
#[derive(Debug, Args)]
pub(crate) struct BudgetArgs {
    /// What to do.
    #[command(subcommand)]
    command: BudgetCommand,
}

/// The subcommands of `swarm budget`.
#[derive(Debug, Subcommand)]
enum BudgetCommand {
    /// Start a new budget period for AGENT now (recorded in the audit log)
    Reset {
        /// The agent
        #[arg(value_name = "AGENT")]
        agent: String,
        /// Print the result as JSON
        #[arg(long)]
        json: bool,
    },
}

#[derive(Serialize)]
struct ResetJson<'a> {
    agent: &'a str,
    reset: bool,
    by: &'a str,
}

/// Runs the subcommand.
pub(crate) fn run(ctx: &Context, args: &BudgetArgs) -> Result<ExitCode> {
    let BudgetCommand::Reset { agent, json } = &args.command;
    let agent = AgentId::parse(agent).map_err(|e| Error::Invalid(format!("agent: {e}")))?;
    let registry = ctx.registry_or_empty()?;
    let op = ctx.op()?;
    let tally = op.tally();
    let (ledger, _) = tally.refresh(&registry, ctx.backend()?.shared_host())?;
    if registry.find(agent.as_str()).is_none() && ledger.files_of(agent.as_str()).next().is_none() {
        return Err(Error::UnknownAgent {
            id: agent.to_string(),
            registry: ctx.paths.registry(),
            known: registry.active().map(|a| a.id.to_string()).collect(),
        });
    }
    let by = actor::detect(ctx)?.unwrap_or_else(|| op.messaging.person_id.clone());
    let mut event = AuditEvent::new(AuditKind::BudgetReset, Some(&by));
    event.holder = Some(agent.to_string());
    // Recorded first: a reset that is not in the audit log does not happen.
    AuditLog::new(&ctx.paths).record(&[event])?;
    if let Some(note) = tally.reset(agent.as_str())? {
        ctx.out.warn(&note);
    }
    // The budget episode follows the budget at once: closed now that the
    // period starts afresh, not at the watcher's next look.
    if op.usage.budget.any() {
        match op.budget_round(&registry) {
            Ok((_, warnings)) => {
                for w in warnings {
                    ctx.out.warn(&w);
                }
            }
            Err(e) => ctx
                .out
                .warn(&format!("could not close the budget's episode: {e}")),
        }
    }
    if *json {
        ctx.out.json(&ResetJson {
            agent: agent.as_str(),
            reset: true,
            by: &by,
        })?;
    } else {
        ctx.out.print(&format!(
            "{agent}: a new budget period starts now (messages held while it was over wait in its inbox: `swarm redeliver --all-queued`)\n"
        ))?;
    }
    Ok(ExitCode::Success)
}
