//! `swarm broadcast TYPE CONTENT...` (alias `broadcast-message`).

use clap::Args;

use swarm_core::ops::{self, BroadcastPlan};
use swarm_core::{DeliveryStatus, ExitCode, MessageType, Result};

use crate::cli::context::Context;
use crate::cli::messaging::message_input::MessageArgs;
use crate::cli::messaging::msg;
use crate::cli::messaging::sent_json;

/// Arguments of `swarm broadcast`.
#[derive(Debug, Args)]
#[command(after_help = "\
Examples:
  swarm broadcast INFO \"schema v2 merged\"              every other active agent
  swarm broadcast --topic deploys INFO \"v2 is out\"     the agents that follow deploys")]
pub(crate) struct BroadcastArgs {
    /// Message type: QUESTION, BLOCKED, INFO, COMPLETED, REVIEW-REQUEST, ...
    #[arg(value_name = "TYPE")]
    msg_type: String,
    #[command(flatten)]
    message: MessageArgs,
    /// Deliver to the sender too
    #[arg(long)]
    include_self: bool,
    /// Type it in at once even into busy agents' panes (their own input
    /// queues take it mid-turn); normally a busy agent gets it when its
    /// turn ends
    #[arg(long)]
    urgent: bool,
    /// Send it only to the agents subscribed to this topic (`swarm
    /// subscribe`)
    #[arg(long, value_name = "TOPIC")]
    topic: Option<String>,
    /// Print the message and every recipient's outcome as JSON
    #[arg(long)]
    json: bool,
    /// List every recipient's outcome
    #[arg(short, long)]
    verbose: bool,
}

/// Sends one message to every active agent.
pub(crate) fn run(ctx: &Context, args: &BroadcastArgs) -> Result<ExitCode> {
    let msg_type = MessageType::parse(&args.msg_type, &ctx.custom_types()?)?;
    let content = args.message.body()?;
    let actor = args.message.sender(ctx)?;
    let registry = ctx.registry_or_empty()?;
    let plan = BroadcastPlan::new(&actor.id, msg_type, content)
        .include_self(args.include_self)
        .sent_by(actor.as_other.then(|| actor.pane_agent.clone()).flatten())
        .urgency(msg::urgency(args.urgent, false))
        .topic(args.topic.as_deref(), "--topic")?;
    let report = ops::broadcast(ctx.op()?, &registry, &plan)?;
    if let Some(code) = sent_json::print_first(ctx, &report, args.json)? {
        return Ok(code);
    }
    let total = report.outcomes.len();
    let ok = report.delivered();
    let mut s = if ok == total {
        format!("✓ Broadcast delivered to {total}/{total} agents (real-time)\n")
    } else if ok > 0 {
        format!(
            "✓ Message broadcast: {ok}/{total} real-time, {}/{total} inbox\n",
            total - ok
        )
    } else {
        format!("✓ Message sent to inbox: {total}/{total} agents\n")
    };
    let mut sorted = report.outcomes.clone();
    sorted.sort_by(|a, b| a.0.cmp(&b.0));
    for (id, o) in &sorted {
        if o.is_delivered() {
            if args.verbose {
                s.push_str(&format!("  ✓ delivered: {id}\n"));
            }
        } else if o.waits_for_turn() {
            s.push_str(&format!("  ⏳ when its turn ends: {id}\n"));
        } else if o.status == DeliveryStatus::Held {
            s.push_str(&format!(
                "  ⏸ held: {id} ({})\n",
                o.reason.as_deref().unwrap_or("not safe to type into")
            ));
        } else {
            s.push_str(&format!(
                "  📬 in inbox: {id} ({})\n",
                o.reason.as_deref().unwrap_or("not delivered")
            ));
        }
    }
    ctx.out.print(&s)?;
    Ok(report.exit_code())
}
