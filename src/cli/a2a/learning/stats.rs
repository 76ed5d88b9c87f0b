//! `swarm learning stats [--agent-id ID] [--json]`.

use clap::Args;

use swarm_core::a2a::{AgentPerformance, LearningStore};
use swarm_core::{ExitCode, Result};

use crate::cli::a2a::a2a_view::{percent, shown, subject_agent, warn_notes};
use crate::cli::context::Context;

/// Skills listed under "Skill Performance".
const TOP_SKILLS: usize = 5;

/// Arguments of `swarm learning stats`.
#[derive(Debug, Args)]
pub(super) struct StatsArgs {
    /// Whose stats [default: this pane's agent]
    #[arg(long = "agent", alias = "agent-id", value_name = "AGENT")]
    agent: Option<String>,
    /// Print the record as JSON
    #[arg(long)]
    json: bool,
}

/// Shows the agent's record; an agent without one is shown an empty
/// record, and nothing is stored (the original stored one).
pub(super) fn run(ctx: &Context, args: &StatsArgs) -> Result<ExitCode> {
    let agent = subject_agent(ctx, args.agent.as_deref(), "--agent")?;
    let mut notes = Vec::new();
    let found = LearningStore::new(ctx.backend()?.a2a.as_ref()).get(&agent, &mut notes);
    warn_notes(ctx, &notes);
    let perf = match found? {
        Some(p) => p,
        None => {
            if !args.json {
                ctx.out
                    .note(&format!("(no learning data recorded for {agent} yet)"));
            }
            AgentPerformance::empty(&agent)
        }
    };
    if args.json {
        ctx.out.json(&perf)?;
        return Ok(ExitCode::Success);
    }
    let mut s = format!("=== Learning Stats: {} ===\n", shown(&perf.agent_id));
    s.push_str(&format!("  Tasks completed: {}\n", perf.tasks_completed));
    s.push_str(&format!("  Tasks failed: {}\n", perf.tasks_failed));
    s.push_str(&format!(
        "  Average response time: {:.1}s\n",
        perf.avg_response_time
    ));
    if !perf.skill_metrics.is_empty() {
        s.push_str("\n  Skill Performance:\n");
        for (skill, m) in perf.skills_by_success().into_iter().take(TOP_SKILLS) {
            s.push_str(&format!(
                "    {}: {} ({}/{})\n",
                shown(skill),
                percent(m.success_rate),
                m.success_count,
                m.total_count
            ));
        }
    }
    ctx.out.print(&s)?;
    Ok(ExitCode::Success)
}
