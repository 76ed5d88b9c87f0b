//! `swarm whoami`: which agent this pane is (at most one tmux call).

use clap::Args;
use serde::Serialize;

use swarm_core::agents::identity::{self, Source};
use swarm_core::support::{sanitize, time};
use swarm_core::{AgentRecord, Error, ExitCode, Result};

use crate::cli::context::Context;

/// Arguments of `swarm whoami`.
#[derive(Debug, Args)]
pub(crate) struct WhoamiArgs {
    /// Print the identity as JSON
    #[arg(long)]
    json: bool,
}

#[derive(Serialize)]
struct Identity<'a> {
    pane: &'a str,
    agent: Option<&'a str>,
    source: Option<&'static str>,
    project_root: String,
    project_root_source: String,
    record: Option<&'a AgentRecord>,
}

/// Prints who this pane is.
pub(crate) fn run(ctx: &Context, args: &WhoamiArgs) -> Result<ExitCode> {
    let Some(pane) = identity::current_pane()? else {
        return Err(Error::Refused {
            message: "not running inside a tmux pane ($TMUX_PANE is not set)".into(),
            hint: "run `swarm whoami` in an agent's pane; `swarm agents` lists every agent and its pane"
                .into(),
        });
    };
    let registry = ctx.registry()?;
    let me = identity::identify(
        &ctx.tmux,
        ctx.backend()?.registry.as_ref(),
        &ctx.paths,
        registry,
        pane,
    );
    if args.json {
        ctx.out.json(&Identity {
            pane: me.pane.as_str(),
            agent: me.agent.as_deref(),
            source: me.source.map(|s| match s {
                Source::Registry => "registry",
                Source::PaneLabel => "pane-label",
            }),
            project_root: ctx.paths.root().display().to_string(),
            project_root_source: ctx.root.source.to_string(),
            record: me.record.as_ref(),
        })?;
        return Ok(ExitCode::Success);
    }
    let mut s = String::new();
    match (&me.agent, &me.record) {
        (Some(id), record) => {
            s.push_str("=== Agent Identity ===\n\n");
            s.push_str(&format!("  Agent ID: {id}\n"));
            if let Some(r) = record {
                s.push_str(&format!(
                    "  Pane: {} ({})\n",
                    sanitize::one_line(&r.pane_index),
                    me.pane
                ));
                s.push_str(&format!("  PID: {}\n", r.pid));
                s.push_str(&format!("  Status: {}\n", r.status.as_str()));
                s.push_str(&format!(
                    "  Session: {}\n",
                    sanitize::one_line(&r.session_name)
                ));
                s.push_str(&format!("  Last Seen: {}\n", last_seen(&r.last_seen)));
            } else {
                s.push_str(&format!("  Pane: {}\n", me.pane));
                s.push_str("  Status: labelled, not in the registry (run `swarm discover`)\n");
            }
            s.push_str(&format!("  Project: {}\n", ctx.paths.root().display()));
            s.push_str("\nYou ARE registered as an agent.\n\n");
            s.push_str("Commands available (agent ID auto-detected):\n");
            s.push_str("  swarm agents                      # who else is here\n");
            s.push_str("  swarm discover                    # refresh the registry\n");
        }
        (None, _) => {
            s.push_str("=== Current Pane ===\n\n");
            s.push_str(&format!("  Pane: {}\n", me.pane));
            s.push_str(&format!("  Project: {}\n", ctx.paths.root().display()));
            s.push_str("\nYou are NOT registered as an agent.\n\nRegistered agents:\n");
            let agents = registry.map(|r| r.agents.as_slice()).unwrap_or(&[]);
            if agents.is_empty() {
                s.push_str("  (none)\n");
            }
            for a in agents {
                s.push_str(&format!(
                    "  - {} (pane: {} {}, PID: {})\n",
                    a.id,
                    sanitize::one_line(&a.pane_index),
                    sanitize::one_line(a.tmux_pane_id.as_ref().map_or("?", |p| p.as_str())),
                    a.pid
                ));
            }
            s.push_str("\nTo discover and register agents, run:\n  swarm discover\n");
        }
    }
    ctx.out.print(&s)?;
    Ok(ExitCode::Success)
}

/// `12:42:48 (3 min ago)`: when the registry last saw the agent, for
/// people (the stored text as it is when it is no time).
fn last_seen(stored: &str) -> String {
    let now = time::now();
    match time::parse_iso(stored) {
        Some(t) => format!("{} ({})", time::for_people(t, now), time::ago(t, now)),
        None => sanitize::one_line(stored),
    }
}
