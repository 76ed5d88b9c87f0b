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
