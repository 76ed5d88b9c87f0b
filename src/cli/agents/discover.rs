//! `swarm discover` (alias `discover-agents`).

use std::sync::mpsc::RecvTimeoutError;
use std::time::Duration;

use clap::Args;

use swarm_core::agents::discovery;
use swarm_core::support::{sanitize, sys, time};
use swarm_core::{AgentStatus, Discovery, Error, ExitCode, Registry, Result};

use crate::cli::context::Context;
use crate::cli::output::Output;

/// Arguments of `swarm discover`.
#[derive(Debug, Args)]
#[command(after_long_help = "\
A pane is an agent when its process or a descendant runs a known agent \
command and its directory (tmux's #{pane_current_path}) is inside the \
project. Processes are read through the backend SWARM_PROCESS_BACKEND names: \
auto (default: proc on Linux, portable elsewhere), proc (Linux only: reads \
the kernel's process files) or portable (one `ps` call; what macOS and the \
BSDs use). Any other value is an error.")]
pub(crate) struct DiscoverArgs {
    /// Print the registry (the ACTIVE_AGENTS.json object) as JSON
    #[arg(long)]
    json: bool,
    /// Keep rediscovering every --interval seconds until Ctrl-C
    #[arg(long)]
    watch: bool,
    /// Seconds between scans with --watch
    #[arg(long, value_name = "SECONDS", default_value_t = 30,
          value_parser = clap::value_parser!(u64).range(1..=3600))]
    interval: u64,
    /// Seconds an agent that vanished while its pane lives on stays listed
    /// as stale [default: discovery.stale_threshold, 60]
    #[arg(long, value_name = "SECONDS", value_parser = clap::value_parser!(u64).range(1..=3600))]
    stale_threshold: Option<u64>,
}

/// Runs one discovery, or keeps running them with `--watch`.
pub(crate) fn run(ctx: &Context, args: &DiscoverArgs) -> Result<ExitCode> {
    let matcher = ctx.matcher()?;
    let opts = ctx.discover_options(args.stale_threshold)?;
    if !args.watch {
        let found = discovery::refresh(
            &ctx.tmux,
            ctx.backend()?.registry.as_ref(),
            &ctx.paths,
            &matcher,
            &opts,
        )?;
        report_warnings(&ctx.out, &found);
        for w in ctx.op()?.record_roster(&found, false) {
            ctx.out.warn(&w);
        }
        if args.json {
            ctx.out.json(&found.registry)?;
        } else {
            ctx.out
                .print(&render(&ctx.out, &found.registry, true, &saved_to(ctx)?))?;
        }
        return Ok(ExitCode::Success);
    }
    let stop = sys::stop_signals().map_err(|source| Error::Io {
        what: "install the Ctrl-C handler".into(),
        source,
    })?;
    if !args.json {
        ctx.out.print("Watching for agents (Ctrl+C to stop)...\n")?;
    }
    loop {
        let found = discovery::refresh(
            &ctx.tmux,
            ctx.backend()?.registry.as_ref(),
            &ctx.paths,
            &matcher,
            &opts,
        )?;
        report_warnings(&ctx.out, &found);
        for w in ctx.op()?.record_roster(&found, false) {
            ctx.out.warn(&w);
        }
        if args.json {
            ctx.out.json(&found.registry)?;
        } else {
            ctx.out.print(&format!(
                "\n{}",
                render(&ctx.out, &found.registry, false, "")
            ))?;
        }
        match stop.recv_timeout(Duration::from_secs(args.interval)) {
            Err(RecvTimeoutError::Timeout) => continue,
            Ok(_) | Err(RecvTimeoutError::Disconnected) => {
                if !args.json {
                    ctx.out.print("\nStopped watching.\n")?;
                }
                return Ok(ExitCode::Success);
            }
        }
    }
}

fn report_warnings(out: &Output, found: &Discovery) {
    for w in &found.warnings {
        out.warn(w);
    }
}

/// Where the registry went, for the closing line: the file's name (as the
/// Python tool says it), or where the shared store keeps it.
fn saved_to(ctx: &Context) -> Result<String> {
    let backend = ctx.backend()?;
    Ok(if backend.shared_host().is_some() {
        backend.registry.location()
    } else {
        ctx.paths
            .relative(&ctx.paths.registry())
            .display()
            .to_string()
    })
}

/// The Python tool's discovery block; `single` adds the closing lines of a
/// one-off run.
fn render(out: &Output, registry: &Registry, single: bool, saved_to: &str) -> String {
    let mut s = format!(
        "=== Agent Discovery [{}] ===\nSession: {}\nTotal agents: {}\n\n",
        sanitize::one_line(&time::iso_for_people(&registry.updated_at, time::now())),
        registry.session_name,
        registry.agents.len()
    );
    for a in &registry.agents {
        let sym = match a.status {
            AgentStatus::Active => out.good("✓"),
            AgentStatus::Stale => out.caution("⚠"),
            AgentStatus::Dead => out.bad("✗"),
        };
        s.push_str(&format!(
            "  {sym} {:<12} | {:<20} | PID: {:<8} | {}\n",
            a.id,
            a.pane_index,
            a.pid,
            a.status.as_str()
        ));
    }
    if single {
        if registry.agents.is_empty() {
            s.push_str("  No agents discovered.\n");
        }
        s.push_str(&format!("\nRegistry saved to: {saved_to}\n"));
    }
    s
}
