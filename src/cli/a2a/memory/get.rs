//! `swarm memory get [--agent-id ID] [--json]`.

use clap::Args;

use swarm_core::a2a::{AgentMemory, MemoryStore};
use swarm_core::{ExitCode, Result};

use crate::cli::a2a::a2a_view::{shown, subject_agent, warn_notes};
use crate::cli::context::Context;

/// Arguments of `swarm memory get`.
#[derive(Debug, Args)]
pub(super) struct GetArgs {
    /// Whose memory [default: this pane's agent]
    #[arg(long = "agent", alias = "agent-id", value_name = "AGENT")]
    agent: Option<String>,
    /// Print the memory as JSON
    #[arg(long)]
    json: bool,
}

/// Shows the memory; an agent without one is shown an empty memory, and
/// no file is created (the original created one).
pub(super) fn run(ctx: &Context, args: &GetArgs) -> Result<ExitCode> {
    let agent = subject_agent(ctx, args.agent.as_deref(), "--agent")?;
    let mut notes = Vec::new();
    let found = MemoryStore::new(ctx.backend()?.a2a.as_ref()).get(&agent, &mut notes);
    warn_notes(ctx, &notes);
    let memory = match found? {
        Some(m) => m,
        None => {
            if !args.json {
                ctx.out
                    .note(&format!("(no memory recorded for {agent} yet)"));
            }
            AgentMemory::empty(&agent)
        }
    };
    if args.json {
        ctx.out.json(&memory)?;
        return Ok(ExitCode::Success);
    }
    let mut s = format!("=== Memory: {} ===\n", shown(&memory.agent_id));
    s.push_str(&format!(
        "  Task history: {} tasks\n",
        memory.task_history.len()
    ));
    s.push_str(&format!(
        "  Patterns learned: {} patterns\n",
        memory.patterns.len()
    ));
    s.push_str(&format!(
        "  Relationships: {} agents\n",
        memory.relationships.len()
    ));
    s.push_str(&format!(
        "  Knowledge items: {} items\n",
        memory.knowledge.len()
    ));
    if !memory.patterns.is_empty() {
        s.push_str("\n  Recent Patterns:\n");
        for p in memory.patterns.iter().take(3) {
            s.push_str(&format!(
                "    - {}: {}\n",
                shown(&p.pattern_type),
                shown(&p.description)
            ));
        }
    }
    if !memory.relationships.is_empty() {
        s.push_str("\n  Agent Relationships:\n");
        for (other, r) in memory.relationships.iter().take(3) {
            s.push_str(&format!(
                "    - {}: trust={:.2}, collaborations={}\n",
                shown(other),
                r.trust_score,
                r.collaboration_count
            ));
        }
    }
    ctx.out.print(&s)?;
    Ok(ExitCode::Success)
}
