//! `swarm subscribe TOPIC`, `swarm unsubscribe TOPIC` and `swarm topics`:
//! which agents follow which topics, so that `swarm broadcast --topic`
//! reaches exactly them.

use clap::Args;
use serde::Serialize;

use swarm_core::ops::{self, SubscribePlan};
use swarm_core::{Error, ExitCode, Result, Topic};

use crate::cli::actor;
use crate::cli::context::Context;

/// Arguments of `swarm subscribe` and `swarm unsubscribe`.
#[derive(Debug, Args)]
pub(crate) struct SubscribeArgs {
    /// The topic (1-64 of a-z, 0-9, `.`, `_`, `-`; any case)
    #[arg(value_name = "TOPIC")]
    topic: String,
    /// The agent [default: this pane's agent]
    #[arg(long, value_name = "ID")]
    agent: Option<String>,
    /// Act for another agent than this pane's (recorded in the audit log)
    #[arg(long, requires = "agent")]
    as_other: bool,
}

/// Arguments of `swarm topics`.
#[derive(Debug, Args)]
pub(crate) struct TopicsArgs {
    /// Print `{"topics": {"<topic>": ["agent-1", ...]}}`
    #[arg(long)]
    json: bool,
}

/// A checked topic name.
fn topic(raw: &str) -> Result<Topic> {
    Topic::parse(raw).map_err(|e| Error::Invalid(format!("TOPIC: {e}")))
}

/// Subscribes an agent to a topic.
pub(crate) fn subscribe(ctx: &Context, args: &SubscribeArgs) -> Result<ExitCode> {
    change(ctx, args, true)
}

/// Unsubscribes an agent from a topic.
pub(crate) fn unsubscribe(ctx: &Context, args: &SubscribeArgs) -> Result<ExitCode> {
    change(ctx, args, false)
}

fn change(ctx: &Context, args: &SubscribeArgs, on: bool) -> Result<ExitCode> {
    let topic = topic(&args.topic)?;
    let actor = actor::resolve(ctx, args.agent.as_deref(), args.as_other, "--agent")?;
    let verb = if on { "subscribe" } else { "unsubscribe" };
    actor::record_as_other(ctx, &actor, &format!("{verb} {}", topic.as_str()))?;
    let agent = swarm_core::AgentId::parse(&actor.id)?;
    let plan = if on {
        SubscribePlan::follow(topic, agent)
    } else {
        SubscribePlan::leave(topic, agent)
    };
    let changed = ops::subscribe(ctx.op()?, &plan)?.changed;
    let (agent, t) = (plan.agent(), plan.topic().as_str());
    let text = match (on, changed) {
        (true, true) => format!("{agent} follows topic {t}\n"),
        (true, false) => format!("{agent} already follows topic {t}\n"),
        (false, true) => format!("{agent} no longer follows topic {t}\n"),
        (false, false) => format!("{agent} did not follow topic {t}\n"),
    };
    ctx.out.print(&text)?;
    Ok(ExitCode::Success)
}

#[derive(Serialize)]
struct TopicsJson<'a> {
    topics: &'a swarm_core::Subscriptions,
}

/// Lists the topics and their subscribers.
pub(crate) fn list(ctx: &Context, args: &TopicsArgs) -> Result<ExitCode> {
    let all = ctx.backend()?.topics.all()?;
    if args.json {
        ctx.out.json(&TopicsJson { topics: &all })?;
        return Ok(ExitCode::Success);
    }
    if all.is_empty() {
        ctx.out.print(
            "No topics: agents follow one with `swarm subscribe TOPIC`, and `swarm broadcast --topic TOPIC` reaches them\n",
        )?;
        return Ok(ExitCode::Success);
    }
    let width = all.keys().map(|t| t.len()).max().unwrap_or(5).max(5);
    let mut s = format!("{:<width$}  SUBSCRIBERS\n", "TOPIC");
    for (t, agents) in &all {
        s.push_str(&format!(
            "{t:<width$}  {}\n",
            agents.iter().cloned().collect::<Vec<_>>().join(", ")
        ));
    }
    ctx.out.print(&s)?;
    Ok(ExitCode::Success)
}
