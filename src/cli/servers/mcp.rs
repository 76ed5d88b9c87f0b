//! `swarm mcp`: the MCP server an agent starts (on stdin and stdout), and
//! `swarm mcp install|uninstall`, which write it into (or remove it from)
//! the agents' project configuration.

use clap::{Args, Subcommand};

use swarm_core::agents::launch::find_on_path;
use swarm_core::setup::mcp_config::{self, Client};
use swarm_core::{Error, ExitCode, Result};

use crate::cli::context::Context;

/// Arguments of `swarm mcp`.
#[derive(Debug, Args)]
#[command(after_help = "\
With no subcommand, serves the Model Context Protocol on stdin and stdout:
agents start it themselves once `swarm mcp install` has told them how. It acts
as the agent of the tmux pane it runs in ($TMUX_PANE), like every swarm command
run there, and can act as no other. Tools: whoami, list_agents, send_message,
broadcast, read_messages, acknowledge, lock, unlock, who_holds, list_locks,
pending_acks, create_task, claim_task, update_task, list_tasks; resource:
swarm://inbox (marked updated when a message arrives).")]
pub(crate) struct McpArgs {
    #[command(subcommand)]
    command: Option<McpCommand>,
}

#[derive(Debug, Subcommand)]
enum McpCommand {
    /// Add swarm's MCP server to the agents' project configuration
    /// (merged: nothing else in the files changes)
    Install(ClientArgs),
    /// Remove swarm's MCP server from the agents' project configuration
    Uninstall(ClientArgs),
}

/// Which agents to configure.
#[derive(Debug, Args)]
struct ClientArgs {
    /// Claude Code: .mcp.json, approved in .claude/settings.local.json
    #[arg(long)]
    claude: bool,
    /// Codex CLI: .codex/config.toml
    #[arg(long)]
    codex: bool,
    /// Gemini CLI: .gemini/settings.json
    #[arg(long)]
    gemini: bool,
    /// Every one of them, installed or not
    #[arg(long, conflicts_with_all = ["claude", "codex", "gemini"])]
    all: bool,
}

/// Runs `swarm mcp`.
pub(crate) fn run(ctx: &Context, args: &McpArgs) -> Result<ExitCode> {
    match &args.command {
        None => serve(ctx),
        Some(McpCommand::Install(a)) => install(ctx, a),
        Some(McpCommand::Uninstall(a)) => uninstall(ctx, a),
    }
}

#[cfg(feature = "mcp")]
fn serve(ctx: &Context) -> Result<ExitCode> {
    use std::sync::Arc;
    use swarm_core::{Backend, Operator};

    let config = ctx.config()?;
    let project = swarm_mcp::Project {
        op: Operator::new(
            ctx.tmux.server().clone(),
            ctx.paths.clone(),
            Arc::new(Backend::open(
                &ctx.paths,
                config,
                crate::cli::features::shared_stores(),
            )?),
            config,
        )?,
        cwd: ctx.cwd.clone(),
        config: config.clone(),
    };
    swarm_mcp::serve(project)?;
    Ok(ExitCode::Success)
}

/// `swarm mcp` in a build without the `mcp` feature (`install` and
/// `uninstall` still work: they only write the agents' config).
#[cfg(not(feature = "mcp"))]
fn serve(_: &Context) -> Result<ExitCode> {
    Err(crate::cli::features::missing("mcp", "mcp"))
}

/// The clients named, else (`found_only`) those whose program is on
/// PATH, or all.
fn chosen(a: &ClientArgs, found_only: bool) -> Vec<Client> {
    let named: Vec<Client> = Client::ALL
        .into_iter()
        .filter(|c| match c {
            Client::Claude => a.claude,
            Client::Codex => a.codex,
            Client::Gemini => a.gemini,
        })
        .collect();
    if !named.is_empty() || a.all {
        return if a.all { Client::ALL.to_vec() } else { named };
    }
    if found_only {
        Client::ALL
            .into_iter()
            .filter(|c| find_on_path(c.program()).is_some())
            .collect()
    } else {
        Client::ALL.to_vec()
    }
}

/// The absolute path of this binary, which the agents will run.
fn this_binary() -> Result<String> {
    let exe = std::env::current_exe().map_err(|source| Error::Io {
        what: "find the swarm executable".into(),
        source,
    })?;
    let exe = exe.canonicalize().unwrap_or(exe);
    exe.to_str().map(str::to_owned).ok_or_else(|| {
        Error::Invalid(format!(
            "the path of the swarm executable is not UTF-8: {}",
            exe.display()
        ))
    })
}

/// Installs for `clients`; the text to print.
fn install_for(root: &std::path::Path, clients: &[Client]) -> Result<String> {
    let exe = this_binary()?;
    let mut s = String::new();
    for &c in clients {
        let change = mcp_config::install(root, c, &exe)?;
        s.push_str(&describe(root, &change));
    }
    Ok(s)
}

fn describe(root: &std::path::Path, change: &mcp_config::Change) -> String {
    let files: Vec<String> = change
        .files
        .iter()
        .map(|(p, d)| {
            format!(
                "{} {}",
                p.strip_prefix(root).unwrap_or(p).display(),
                d.as_str()
            )
        })
        .collect();
    format!("{}: {}\n", change.client.name(), files.join(", "))
}

fn install(ctx: &Context, a: &ClientArgs) -> Result<ExitCode> {
    let clients = chosen(a, true);
    if clients.is_empty() {
        return Err(Error::NotInstalled {
            command: "claude, codex or gemini".into(),
            hint: "name the agents to configure anyway: --claude, --codex, --gemini or --all"
                .into(),
        });
    }
    let root = ctx.paths.root();
    let mut s = install_for(root, &clients)?;
    s.push_str(&format!(
        "The agents start `{} mcp` in this project; restart running agents to pick it up.\n",
        this_binary()?
    ));
    if clients.contains(&Client::Codex) {
        s.push_str("Codex CLI reads .codex/config.toml only in a project it trusts.\n");
    }
    ctx.out.print(&s)?;
    Ok(ExitCode::Success)
}

fn uninstall(ctx: &Context, a: &ClientArgs) -> Result<ExitCode> {
    let root = ctx.paths.root();
    let mut s = String::new();
    for c in chosen(a, false) {
        s.push_str(&describe(root, &mcp_config::uninstall(root, c)?));
    }
    ctx.out.print(&s)?;
    Ok(ExitCode::Success)
}
