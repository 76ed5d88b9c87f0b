//! `swarm hooks install|uninstall`: swarm's Claude Code hooks in
//! `.claude/settings.json`.

use clap::{Args, Subcommand};

use swarm_core::agents::launch;
use swarm_core::error::Result;
use swarm_core::setup::claude_hooks::{self, Change};
use swarm_core::support::exit_code::ExitCode;

use crate::cli::context::Context;

/// Arguments of `swarm hooks`.
#[derive(Debug, Args)]
pub(crate) struct HooksArgs {
    #[command(subcommand)]
    action: HooksAction,
}

#[derive(Debug, Subcommand)]
enum HooksAction {
    /// Add swarm's hooks (merged into the file, never replacing it): each
    /// prompt submission shows the agent's new messages, and an Edit, Write
    /// or MultiEdit of a file another agent has locked is blocked
    Install,
    /// Remove exactly the hooks `install` adds
    Uninstall,
}

/// Installs or removes the hooks.
pub(crate) fn run(ctx: &Context, args: &HooksArgs) -> Result<ExitCode> {
    let hooks = claude_hooks::swarm_hooks(&launch::swarm_invocation());
    let (change, verb): (Change, &str) = match args.action {
        HooksAction::Install => (claude_hooks::install(&ctx.paths, &hooks)?, "added"),
        HooksAction::Uninstall => (claude_hooks::uninstall(&ctx.paths, &hooks)?, "removed"),
    };
    let mut s = String::new();
    for h in &change.changed {
        s.push_str(&format!("{verb}: {h}\n"));
    }
    for h in &change.unchanged {
        s.push_str(&format!("unchanged: {h}\n"));
    }
    s.push_str(&format!("in {}\n", change.file.display()));
    ctx.out.print(&s)?;
    Ok(ExitCode::Success)
}
