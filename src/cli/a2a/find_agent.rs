//! `swarm find-agent --skill S | --objective TEXT [--json]`: the active
//! agents that have a skill, best first, or the agent that fits an
//! objective best. Changes nothing (the original stored a task for every
//! `--objective` query).

use clap::{ArgGroup, Args};
use serde::Serialize;

use swarm_core::a2a::{CardRegistry, NewTask, OrderedMap, Task, find_best};
use swarm_core::{ExitCode, Result};

use crate::cli::a2a::a2a_view::{percent, shown, text, warn_notes};
use crate::cli::context::Context;

/// Who a transient task is made by (the original's name for it).
const COMMAND_LINE: &str = "cli";

/// Arguments of `swarm find-agent`.
#[derive(Debug, Args)]
#[command(group(ArgGroup::new("query").required(true).args(["skill", "objective"])))]
pub(crate) struct FindAgentArgs {
    /// List the active agents whose card has this skill, most proficient
    /// first
    #[arg(long, value_name = "SKILL")]
    skill: Option<String>,
    /// Name the active agent that fits a task with this objective best
    #[arg(long, value_name = "TEXT")]
    objective: Option<String>,
    /// Print the result as JSON
    #[arg(long)]
    json: bool,
}

#[derive(Serialize)]
struct BestJson<'a> {
    agent_id: &'a str,
    score: f64,
    skill_matches: &'a OrderedMap<f64>,
}

/// Answers the query.
pub(crate) fn run(ctx: &Context, args: &FindAgentArgs) -> Result<ExitCode> {
    let mut notes = Vec::new();
    let cards = CardRegistry::new(ctx.backend()?.a2a.as_ref()).list(&mut notes);
    warn_notes(ctx, &notes);
    let cards = cards?;
    if let Some(skill) = &args.skill {
        let skill = text("--skill", skill)?;
        // Only agents that have the skill (the original also listed the
        // others, at 0%).
        let mut found: Vec<_> = cards
            .iter()
            .filter(|c| c.is_available() && c.has_skill(&skill))
            .map(|c| (c, c.proficiency(&skill)))
            .collect();
        found.sort_by(|a, b| b.1.total_cmp(&a.1));
        if args.json {
            ctx.out
                .json(&found.iter().map(|(c, _)| *c).collect::<Vec<_>>())?;
            return Ok(ExitCode::Success);
        }
        if found.is_empty() {
            ctx.out
                .print(&format!("No agents found with skill: {}\n", shown(&skill)))?;
            return Ok(ExitCode::Success);
        }
        let mut s = format!(
            "=== Agents with '{}' skill ({}) ===\n",
            shown(&skill),
            found.len()
        );
        for (card, p) in found {
            s.push_str(&format!(
                "  {:<12} | Proficiency: {}\n",
                shown(&card.agent_id),
                percent(p)
            ));
        }
        ctx.out.print(&s)?;
        return Ok(ExitCode::Success);
    }
    let objective = text("--objective", args.objective.as_deref().unwrap_or_default())?;
    // A task that lives only for this query: nothing is stored.
    let task = Task::new(NewTask {
        objective: objective.clone(),
        created_by: COMMAND_LINE.into(),
        ..NewTask::default()
    });
    let best = find_best(&cards, &task);
    if args.json {
        match &best {
            Some(b) => ctx.out.json(&BestJson {
                agent_id: &b.card.agent_id,
                score: b.fit.score,
                skill_matches: &b.fit.skill_matches,
            })?,
            None => ctx.out.print("{}\n")?,
        }
        return Ok(ExitCode::Success);
    }
    let Some(best) = best else {
        ctx.out.print("No suitable agent found.\n")?;
        return Ok(ExitCode::Success);
    };
    let matched: Vec<String> = best
        .fit
        .skill_matches
        .iter()
        .map(|(k, v)| format!("{}: {}", shown(k), percent(*v)))
        .collect();
    ctx.out.print(&format!(
        "Best agent for: {}\n  Agent: {}\n  Score: {:.2}\n  Matched skills: {}\n",
        shown(&objective),
        shown(&best.card.agent_id),
        best.fit.score,
        if matched.is_empty() {
            "none".to_owned()
        } else {
            matched.join(", ")
        }
    ))?;
    Ok(ExitCode::Success)
}
