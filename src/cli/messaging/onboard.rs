//! `swarm onboard`: discover the agents and tell each of them, once, how
//! to work in this swarm (one broadcast, counted once against the rate
//! limit, so any number of agents can be onboarded).

use clap::Args;

use swarm_core::ops::{self, OnboardPlan, OnboardReport};
use swarm_core::{ExitCode, Result};

use crate::cli::context::Context;

/// Arguments of `swarm onboard`.
#[derive(Debug, Args)]
pub(crate) struct OnboardArgs {
    /// Print the onboarding text instead of sending it
    #[arg(long)]
    dry_run: bool,
}

/// Onboards every agent.
pub(crate) fn run(ctx: &Context, args: &OnboardArgs) -> Result<ExitCode> {
    let extra = ctx
        .config()?
        .onboarding
        .custom_messages
        .clone()
        .unwrap_or_default();
    let plan = OnboardPlan::new(ctx.discover_options(None)?, extra).dry_run(args.dry_run);
    let done = ops::onboard(ctx.op()?, &plan)?;
    for w in &done.warnings {
        ctx.out.warn(w);
    }
    let agents = &done.agents;
    if agents.is_empty() {
        return Err(OnboardReport::no_agents());
    }
    let Some(report) = &done.sent else {
        ctx.out.print(&format!("{}\n", done.text))?;
        return Ok(ExitCode::Success);
    };
    ctx.out.rate_limit_note(report);
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
