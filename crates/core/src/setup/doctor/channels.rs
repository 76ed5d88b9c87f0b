//! Which way messages go into each active agent of this host: its own
//! channel (Claude Code's socket, found and bound), or typed into its
//! pane, and why; and a warning when Claude Code would hold swarm's
//! messages for the person's approval. swarm never changes the agent's
//! settings: the fix says what to change.

use crate::agents::registry::AgentStatus;
use crate::agents::registry_store::RegistryState;
use crate::config::{self, NativeMode};
use crate::native;

use super::report::{CheckOutcome, Subject};

/// Each active agent's channel.
pub(super) fn channels(s: &Subject<'_>) -> Vec<CheckOutcome> {
    const CHECK: &str = "delivery channels";
    let Ok(RegistryState::Valid(reg, _)) = s.backend.registry.read() else {
        return Vec::new();
    };
    let here = s.backend.shared_host();
    let agents: Vec<_> = reg
        .agents
        .iter()
        .filter(|a| a.status == AgentStatus::Active && a.pid != 0)
        .filter(|a| here.is_none_or(|h| a.host.as_deref().is_none_or(|x| x == h)))
        .collect();
    if agents.is_empty() {
        return Vec::new();
    }
    let mode = config::load(s.paths.root(), s.env)
        .map(|l| l.config.delivery.native)
        .unwrap_or_default();
    let mut native = 0;
    let mut holding = Vec::new();
    let details: Vec<String> = agents
        .iter()
        .map(|a| {
            let choice = native::channel_of(s.matcher, s.profiles, a.id.as_str(), a.pid, mode);
            if choice.is_native() {
                native += 1;
            }
            if choice.holds_for_approval() {
                holding.push(a.id.to_string());
            }
            format!("{}: {}: {}", a.id, choice.channel.as_str(), choice.why)
        })
        .collect();
    let off = if mode == NativeMode::Off {
        " ([delivery] native = \"off\")"
    } else {
        ""
    };
    let summary = format!(
        "{native} of {} agent(s) get messages through their own channel, the others typed{off}",
        agents.len()
    );
    let outcome = if holding.is_empty() {
        CheckOutcome::ok(CHECK, summary)
    } else {
        CheckOutcome::warn(
            CHECK,
            format!(
                "{summary}; Claude Code holds swarm's messages for your approval in {} (it \
                 bypasses permissions)",
                holding.join(", ")
            ),
            "set \"crossSessionInbound\": \"accept\" in that agent's Claude Code settings \
             (~/.claude/settings.json) to let them in, or run it without \
             --dangerously-skip-permissions; swarm never changes it",
        )
    };
    vec![outcome.with_details(details)]
}
