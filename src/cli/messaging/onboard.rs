//! `swarm onboard`: discover the agents and tell each of them, once, how
//! to work in this swarm (one broadcast, counted once against the rate
//! limit, so any number of agents can be onboarded).

use clap::Args;

use swarm_core::agents::discovery;
use swarm_core::domain::message::MessageType;
use swarm_core::error::{Error, Result};
use swarm_core::messaging::onboarding;
use swarm_core::messaging::{Recipients, SendRequest};
use swarm_core::support::exit_code::ExitCode;

use crate::cli::context::Context;

/// The sender id of onboarding messages (the original's).
const SENDER: &str = "system";

/// Arguments of `swarm onboard`.
#[derive(Debug, Args)]
pub(crate) struct OnboardArgs {
    /// Print the onboarding text instead of sending it
    #[arg(long)]
    dry_run: bool,
}

/// Onboards every agent.
pub(crate) fn run(ctx: &Context, args: &OnboardArgs) -> Result<ExitCode> {
    let matcher = ctx.matcher()?;
    let found = discovery::refresh(
        &ctx.tmux,
        ctx.backend()?.registry.as_ref(),
        &ctx.paths,
        &matcher,
        &ctx.discover_options(None)?,
    )?;
    for w in &found.warnings {
        ctx.out.warn(w);
    }
    if let Ok(op) = ctx.op() {
        for w in op.record_roster(&found, false) {
            ctx.out.warn(&w);
        }
    }
    let agents: Vec<String> = found.registry.active().map(|a| a.id.to_string()).collect();
    if agents.is_empty() {
        return Err(Error::NoRecipients(
            "no agents discovered in this project: start agents in tmux panes (or `swarm launch N`)"
                .into(),
        ));
    }
    let extra = ctx
        .config()?
        .onboarding
        .custom_messages
        .clone()
        .unwrap_or_default();
    let text = onboarding::message(&agents, &extra);
    if args.dry_run {
        ctx.out.print(&format!("{text}\n"))?;
        return Ok(ExitCode::Success);
    }
    let content = swarm_core::domain::message::clean_content(&text)?;
    let report = ctx.messenger()?.send(
        &found.registry,
        SendRequest::new(
            SENDER.into(),
            Recipients::All { include_self: true },
            MessageType::builtin("INFO"),
            content,
        ),
    )?;
    for w in &report.warnings {
        ctx.out.warn(w);
    }
    ctx.out.rate_limit_note(&report);
    let mut s = format!(
        "Onboarded {} agent{}: {} delivered in real time",
        agents.len(),
        if agents.len() == 1 { "" } else { "s" },
        report.delivered()
    );
    let queued: Vec<String> = report
        .outcomes
        .iter()
        .filter(|(_, o)| !o.is_delivered())
        .map(|(a, o)| format!("{a} ({})", o.reason.as_deref().unwrap_or("queued")))
        .collect();
    if queued.is_empty() {
        s.push_str(".\n");
    } else {
        s.push_str(&format!(
            ", {} waiting in their inbox: {}\n",
            queued.len(),
            queued.join(", ")
        ));
    }
    ctx.out.print(&s)?;
    Ok(report.exit_code())
}
