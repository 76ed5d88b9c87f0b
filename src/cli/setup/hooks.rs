//! `swarm hooks install|uninstall`: swarm's hooks in the agents' own
//! project settings (Claude Code, Codex CLI, Gemini CLI), each running
//! `swarm hook <agent>`.

use clap::{Args, Subcommand};
use serde::Serialize;

use swarm_core::agents::launch;
use swarm_core::hooks::install::{self, Change, Place};
use swarm_core::hooks::{VENDORS, Vendor};
use swarm_core::{Error, ExitCode, Result};

use crate::cli::context::Context;

/// Arguments of `swarm hooks`.
#[derive(Debug, Args)]
#[command(after_help = "\
Examples:
  swarm hooks install            every agent present here (its settings directory or its
                                 program on PATH; Claude Code when none is)
  swarm hooks install --codex    Codex CLI only (.codex/hooks.json); codex then asks to trust them
  swarm hooks uninstall --json   remove them all, and say what changed as JSON

Each hook runs `swarm hook <agent>`: the agent then tells swarm itself when it
needs you (needs_input), ends a turn (finished), fails a turn on an API error
(turn_failed), exits, and takes a message (the delivery is confirmed by its
hook). The screen stays the fallback. Agents read their hooks when they start:
restart a running agent after installing.")]
pub(crate) struct HooksArgs {
    #[command(subcommand)]
    action: HooksAction,
}

/// Which agents, and where.
#[derive(Debug, Args)]
struct Which {
    /// Claude Code (.claude/settings.json)
    #[arg(long)]
    claude: bool,
    /// Codex CLI (.codex/hooks.json)
    #[arg(long)]
    codex: bool,
    /// Gemini CLI (.gemini/settings.json)
    #[arg(long)]
    gemini: bool,
    /// Claude Code: .claude/settings.local.json (kept out of git) instead
    #[arg(long)]
    local: bool,
    /// Say what changed as JSON
    #[arg(long)]
    json: bool,
}

#[derive(Debug, Subcommand)]
enum HooksAction {
    /// Add swarm's hooks to each agent's project settings (merged into the
    /// file, never replacing it); no agent named: each present here
    Install(Which),
    /// Remove exactly the hooks `install` adds; no agent named: all three
    Uninstall(Which),
}

#[derive(Serialize)]
struct ChangeJson {
    agent: &'static str,
    file: String,
    changed: Vec<String>,
    unchanged: Vec<String>,
}

/// Installs or removes the hooks.
pub(crate) fn run(ctx: &Context, args: &HooksArgs) -> Result<ExitCode> {
    let (which, adding) = match &args.action {
        HooksAction::Install(w) => (w, true),
        HooksAction::Uninstall(w) => (w, false),
    };
    let named: Vec<Vendor> = [
        (which.claude, Vendor::Claude),
        (which.codex, Vendor::Codex),
        (which.gemini, Vendor::Gemini),
    ]
    .into_iter()
    .filter_map(|(on, v)| on.then_some(v))
    .collect();
    if which.local && !named.is_empty() && !named.contains(&Vendor::Claude) {
        return Err(Error::Invalid(
            "--local is Claude Code's place (.claude/settings.local.json): add --claude".into(),
        ));
    }
    let vendors = match (named.is_empty(), adding) {
        (false, _) => named,
        (true, true) => install::present(ctx.paths.root()),
        (true, false) => VENDORS.to_vec(),
    };
    let swarm = launch::swarm_invocation();
    let mut changes: Vec<(Vendor, Change)> = Vec::new();
    for vendor in vendors {
        let place = if which.local && vendor == Vendor::Claude {
            Place::Local
        } else {
            Place::Shared
        };
        let hooks = install::swarm_hooks(&swarm, vendor);
        let change = if adding {
            install::install(&ctx.paths, vendor, place, &hooks)?
        } else {
            install::uninstall(&ctx.paths, vendor, place, &hooks)?
        };
        changes.push((vendor, change));
    }
    if which.json {
        let rows: Vec<ChangeJson> = changes
            .into_iter()
            .map(|(vendor, c)| ChangeJson {
                agent: vendor.as_str(),
                file: c.file.display().to_string(),
                changed: c.changed,
                unchanged: c.unchanged,
            })
            .collect();
        ctx.out.json(&rows)?;
        return Ok(ExitCode::Success);
    }
    let verb = if adding { "added" } else { "removed" };
    let mut s = String::new();
    for (vendor, change) in &changes {
        s.push_str(&format!(
            "{} ({}):\n",
            vendor.product(),
            change.file.display()
        ));
        for h in &change.changed {
            s.push_str(&format!("  {verb}: {h}\n"));
        }
        for h in &change.unchanged {
            s.push_str(&format!("  unchanged: {h}\n"));
        }
    }
    ctx.out.print(&s)?;
    if adding && changes.iter().any(|(_, c)| !c.changed.is_empty()) {
        ctx.out.note(
            "Agents read their hooks when they start: restart running agents. Codex CLI asks \
             once to trust new hooks (its \"hooks need review\" screen).",
        );
    }
    Ok(ExitCode::Success)
}
