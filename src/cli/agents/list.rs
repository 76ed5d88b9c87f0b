//! `swarm agents` (alias `list-agents`): the registry, with what each
//! agent's pane shows (as the watcher's last round saw it while that is
//! fresh, else now: two tmux calls for all agents), and which tmux server
//! was asked when none of their panes is on it.

use std::time::SystemTime;

use clap::Args;

use swarm_core::agents::pane_state;
use swarm_core::hooks::HookSightings;
use swarm_core::hooks::source as status;
use swarm_core::support::sanitize;
use swarm_core::worktrees;
use swarm_core::{AgentRecord, AgentStatus, ExitCode, Result, SeenStates, channel_of, topics_of};

use crate::cli::context::Context;

/// Arguments of `swarm agents`.
#[derive(Debug, Args)]
#[command(after_help = "\
Examples:
  swarm agents                   the active agents and what each pane shows now
  swarm agents --all --json      every registered agent, as JSON")]
pub(crate) struct AgentsArgs {
    /// Print the agents as a JSON array (the registry's agent objects, plus
    /// `state`, `profile`, `deliverable`, `state_from` (`watcher` or
    /// `screen`), `state_age_ms`, and `env` with SWARM_AGENT,
    /// SWARM_SLOT and SWARM_PORT for an agent launched with worktrees)
    #[arg(long)]
    json: bool,
    /// Include agents that are stale (pane alive, agent not seen lately)
    #[arg(long)]
    all: bool,
    /// Read every screen now. Without it, while the project's watcher runs,
    /// the states are those its last round saw (at most 1.5 s old; the
    /// JSON's `state_from` and `state_age_ms` say so)
    #[arg(long)]
    now: bool,
}

/// Lists the agents.
pub(crate) fn run(ctx: &Context, args: &AgentsArgs) -> Result<ExitCode> {
    let registry = ctx.registry()?;
    let agents: Vec<&AgentRecord> = registry
        .iter()
        .flat_map(|r| r.agents.iter())
        .filter(|a| args.all || a.status == AgentStatus::Active)
        .collect();
    let here = ctx.backend()?.shared_host();
    // The watcher's last round, while fresh, spares listing the panes and
    // capturing every screen again.
    let seen = if args.now || agents.is_empty() {
        None
    } else {
        SeenStates::fresh_for(
            &ctx.paths,
            ctx.tmux.server(),
            &agents,
            here,
            SystemTime::now(),
        )
    };
    let (states, seen_age) = match seen {
        Some(fresh) => (fresh.states, Some(fresh.age)),
        None if agents.is_empty() => (Vec::new(), None),
        None => (
            pane_state::observe(&ctx.tmux, &ctx.matcher()?, &ctx.profiles()?, &agents, here),
            None,
        ),
    };
    // A limits file that cannot be read hides nothing else.
    let limits = ctx.backend()?.limits.read().unwrap_or_default();
    if args.json {
        let subscriptions = ctx.backend()?.topics.all()?;
        let spaces = worktrees::workspaces(&ctx.paths);
        let seen = HookSightings::new(&ctx.paths).load();
        let matcher = ctx.matcher()?;
        let profiles = ctx.profiles()?;
        let native_mode = ctx.config()?.delivery.native;
        let rows: Vec<serde_json::Value> = agents
            .iter()
            .zip(&states)
            .map(|(a, st)| {
                let mut v = serde_json::to_value(a).unwrap_or_default();
                if let serde_json::Value::Object(map) = &mut v {
                    map.insert("state".into(), st.state.clone().into());
                    map.insert("profile".into(), st.profile.clone().into());
                    map.insert("deliverable".into(), st.deliverable.into());
                    match seen_age {
                        Some(age) => {
                            map.insert("state_from".into(), "watcher".into());
                            let ms = u64::try_from(age.as_millis()).unwrap_or(u64::MAX);
                            map.insert("state_age_ms".into(), ms.into());
                        }
                        None => {
                            map.insert("state_from".into(), "screen".into());
                        }
                    }
                    // Which source tells swarm about it (its own hooks, or
                    // its screen), and why.
                    let used = status::source_for(
                        &ctx.paths,
                        &status::Agent {
                            id: a.id.as_str(),
                            pane: a.tmux_pane_id.as_ref().map(|p| p.as_str()),
                            profile: st.profile.as_deref().unwrap_or_default(),
                            codex_dir: None,
                        },
                        &seen,
                    );
                    map.insert("attention_source".into(), used.source.as_str().into());
                    map.insert("attention_source_why".into(), used.why.into());
                    // Which way a message goes in: its own channel, or typed.
                    let channel = if a.pid == 0
                        || here.is_some_and(|h| a.host.as_deref().is_some_and(|x| x != h))
                    {
                        None
                    } else {
                        Some(channel_of(
                            &matcher,
                            &profiles,
                            a.id.as_str(),
                            a.pid,
                            native_mode,
                        ))
                    };
                    if let Some(c) = channel {
                        map.insert(
                            "channel".into(),
                            serde_json::json!({"kind": c.channel.as_str(), "why": c.why}),
                        );
                    }
                    map.insert(
                        "topics".into(),
                        topics_of(&subscriptions, a.id.as_str()).into(),
                    );
                    let limit = limits.of_agent(a.id.as_str());
                    map.insert("limited".into(), limit.is_some().into());
                    if let Some(until) = limit.and_then(|r| r.until) {
                        map.insert("limited_until".into(), until.utc_iso().into());
                    }
                    if let Some(w) = spaces.iter().find(|w| w.agent == a.id.as_str()) {
                        let env: serde_json::Map<String, serde_json::Value> =
                            w.env().into_iter().map(|(k, v)| (k, v.into())).collect();
                        map.insert("env".into(), env.into());
                        map.insert("slot".into(), w.slot.into());
                        map.insert("port".into(), w.port.into());
                        map.insert("ports".into(), w.ports.into());
                    }
                }
                v
            })
            .collect();
        ctx.out.json(&rows)?;
        return Ok(ExitCode::Success);
    }
    if agents.is_empty() {
        ctx.out.print("No active agents found.\n")?;
        if registry.is_none() {
            ctx.out
                .note("  (no registry yet: run `swarm discover`, or `swarm launch N`)");
        }
        return Ok(ExitCode::Success);
    }
    let title = if args.all { "Agents" } else { "Active Agents" };
    let mut s = format!("=== {title} ({}) ===\n", agents.len());
    // On a store shared by several hosts, where each agent runs.
    let shared = ctx.backend()?.shared_host().is_some();
    for (a, st) in agents.iter().zip(&states) {
        let status = if a.status == AgentStatus::Active {
            String::new()
        } else {
            format!(" | {}", a.status.as_str())
        };
        let host = if shared {
            format!(
                " | host: {:<12}",
                sanitize::one_line(a.host.as_deref().unwrap_or("?"))
            )
        } else {
            String::new()
        };
        let limit = limits
            .of_agent(a.id.as_str())
            .map(|r| format!(" | {}", r.describe()))
            .unwrap_or_default();
        s.push_str(&format!(
            "  {:<12} | {:<20} | PID: {:<8}{host} | {}{limit}{status}\n",
            a.id,
            sanitize::one_line(&a.pane_index),
            a.pid,
            st.state
        ));
    }
    ctx.out.print(&s)?;
    if states.iter().all(|st| st.state == "gone") {
        ctx.out.warn(&format!(
            "none of the {} agents has a pane on the tmux server swarm asked ({}): they run \
             on another tmux server, or stopped. Name their server with --tmux-socket (or \
             SWARM_TMUX_SOCKET); `swarm discover` drops the agents that stopped",
            agents.len(),
            socket_asked(ctx)
        ));
    }
    Ok(ExitCode::Success)
}

/// The socket of the tmux server this command talks to: its path as the
/// server reports it, else how it was chosen (when no server listens).
fn socket_asked(ctx: &Context) -> String {
    match ctx.tmux.server_info() {
        Ok(info) if !info.socket_path.is_empty() => {
            format!("socket {}", sanitize::one_line(&info.socket_path))
        }
        _ => format!("{}, where no server runs", ctx.tmux.server()),
    }
}
