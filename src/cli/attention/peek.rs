//! `swarm peek AGENT`: an agent's screen as plain text, with every escape
//! sequence and control character removed.

use clap::Args;
use serde::Serialize;

use swarm_core::agents::pane_state;
use swarm_core::{Error, ExitCode, Result};

use crate::cli::context::Context;

/// Arguments of `swarm peek`.
#[derive(Debug, Args)]
pub(crate) struct PeekArgs {
    /// The agent whose screen to show
    #[arg(value_name = "AGENT")]
    agent: String,
    /// Only the last N non-blank rows
    #[arg(long, short = 'n', value_name = "N",
          value_parser = clap::value_parser!(u32).range(1..=10_000))]
    lines: Option<u32>,
    /// Print the screen as JSON (`agent`, `pane`, `state`, `rows`)
    #[arg(long)]
    json: bool,
}

#[derive(Serialize)]
struct PeekJson<'a> {
    agent: &'a str,
    pane: &'a str,
    state: &'a str,
    rows: &'a [String],
}

/// Prints the screen.
pub(crate) fn run(ctx: &Context, args: &PeekArgs) -> Result<ExitCode> {
    let agent = swarm_core::AgentId::parse(&args.agent)
        .map_err(|e| Error::Invalid(format!("agent: {e}")))?;
    let registry = ctx.registry_or_empty()?;
    let record = registry
        .find(agent.as_str())
        .ok_or_else(|| Error::UnknownAgent {
            id: agent.to_string(),
            registry: ctx.paths.registry(),
            known: registry.active().map(|a| a.id.to_string()).collect(),
        })?;
    let backend = ctx.backend()?;
    if let Some(there) = record.elsewhere(backend.shared_host()) {
        return Err(Error::Refused {
            message: format!("{agent}'s pane is on host {there}"),
            hint: format!("run `swarm peek {agent}` on {there}"),
        });
    }
    let Some(pane) = record.tmux_pane_id.clone() else {
        return Err(Error::Refused {
            message: format!("the registry has no tmux pane for {agent}"),
            hint: "run `swarm discover`".into(),
        });
    };
    let state = pane_state::observe(
        &ctx.tmux,
        &ctx.matcher()?,
        &ctx.profiles()?,
        &[record],
        backend.shared_host(),
    )
    .into_iter()
    .next()
    .map(|s| s.state)
    .unwrap_or_else(|| "unknown".into());
    let mut rows = pane_state::screen_rows(&ctx.tmux.capture_pane(&pane)?);
    if let Some(n) = args.lines {
        let keep: Vec<usize> = rows
            .iter()
            .enumerate()
            .filter(|(_, r)| !r.trim().is_empty())
            .map(|(i, _)| i)
            .collect();
        let from = keep
            .len()
            .checked_sub(n as usize)
            .and_then(|k| keep.get(k).copied())
            .unwrap_or(0);
        rows.drain(..from);
    }
    if args.json {
        ctx.out.json(&PeekJson {
            agent: agent.as_str(),
            pane: pane.as_str(),
            state: &state,
            rows: &rows,
        })?;
        return Ok(ExitCode::Success);
    }
    let mut text = format!("── {agent} ({pane}, {state}) ──\n");
    for r in &rows {
        text.push_str(r);
        text.push('\n');
    }
    ctx.out.print(&text)?;
    Ok(ExitCode::Success)
}
