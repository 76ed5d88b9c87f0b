//! `swarm msg AGENT TYPE CONTENT...` (alias `send-message`).

use clap::Args;

use swarm_core::domain::validate;
use swarm_core::ops::{self, ReplyTarget, SendPlan};
use swarm_core::{
    ConfirmedBy, DeliveryOutcome, DeliveryStatus, Error, ExitCode, MessageType, Result, Urgency,
};

use crate::cli::context::Context;
use crate::cli::messaging::message_input::MessageArgs;
use crate::cli::messaging::sent_json;

/// Arguments of `swarm msg`.
#[derive(Debug, Args)]
#[command(after_help = "\
Examples:
  swarm msg agent-1 QUESTION \"which schema?\"           ask; the reply lands in `swarm inbox`
  swarm msg agent-1 INFO done --reply-to 9c2c68bd       answer a message, in its thread")]
pub(crate) struct MsgArgs {
    /// Recipient agent id
    #[arg(value_name = "AGENT")]
    agent: String,
    /// Message type: QUESTION, BLOCKED, INFO, COMPLETED, REVIEW-REQUEST, ...
    /// (case-insensitive, `-` or `_`)
    #[arg(value_name = "TYPE")]
    msg_type: String,
    #[command(flatten)]
    message: MessageArgs,
    /// Require an acknowledgement (`swarm ack ID`): retried with the same
    /// id until answered, then escalated to every agent
    #[arg(long)]
    ack: bool,
    /// Seconds before the first retry when not acknowledged [default:
    /// acks.timeout_seconds, 30]
    #[arg(long, value_name = "SECONDS", requires = "ack",
          value_parser = clap::value_parser!(u64).range(1..=3600))]
    ack_timeout: Option<u64>,
    /// Answer this message (its id, or a unique beginning of it): the new
    /// one joins its thread (`swarm thread`)
    #[arg(long, value_name = "ID")]
    reply_to: Option<String>,
    /// Type it in at once even when the agent is busy (its own input
    /// queue takes it mid-turn); normally a busy agent gets it when its
    /// turn ends
    #[arg(long)]
    urgent: bool,
    /// Stop the agent's current turn first, where its profile says how
    /// (Escape for Codex and Gemini CLI; elsewhere it goes in as
    /// --urgent), then type it in
    #[arg(long)]
    interrupt: bool,
    /// Print the message and its delivery outcome as JSON
    #[arg(long)]
    json: bool,
}

/// How urgently a message goes into a busy agent's pane, from the flags.
pub(crate) fn urgency(urgent: bool, interrupt: bool) -> Urgency {
    if interrupt {
        Urgency::Interrupt
    } else if urgent {
        Urgency::Urgent
    } else {
        Urgency::Normal
    }
}

/// Sends one message.
pub(crate) fn run(ctx: &Context, args: &MsgArgs) -> Result<ExitCode> {
    let recipient =
        validate::agent_id(&args.agent).map_err(|e| Error::Invalid(format!("recipient: {e}")))?;
    let msg_type = MessageType::parse(&args.msg_type, &ctx.custom_types()?)?;
    let content = args.message.body()?;
    let actor = args.message.sender(ctx)?;
    let registry = ctx.registry_or_empty()?;
    let operator = ctx.op()?;
    let parent = args
        .reply_to
        .as_deref()
        .map(|raw| ReplyTarget::find(operator, raw, "--reply-to"))
        .transpose()?;
    let plan = SendPlan::new(&actor.id, &recipient, msg_type, content)
        .sent_by(actor.as_other.then(|| actor.pane_agent.clone()).flatten())
        .ack(
            args.ack,
            args.ack_timeout.map(std::time::Duration::from_secs),
        )
        .reply_to(parent.as_ref())
        .urgency(urgency(args.urgent, args.interrupt));
    let ack_timeout = plan.ack_timeout(operator);
    let report = ops::send(operator, &registry, &plan)?;
    if let Some(code) = sent_json::print_first(ctx, &report, args.json)? {
        return Ok(code);
    }
    let outcome = report
        .outcomes
        .first()
        .map(|(_, o)| o.clone())
        .unwrap_or_else(|| DeliveryOutcome::queued("no recipient"));
    let id = &report.message.msg_id;
    let mut text = if outcome.is_delivered() {
        let how = match outcome.confirmed {
            Some(true) if outcome.confirmed_by == Some(ConfirmedBy::Hook) => {
                ", confirmed by the agent's prompt hook"
            }
            Some(true) if outcome.confirmed_by == Some(ConfirmedBy::Transcript) => {
                ", through the agent's socket, confirmed by its transcript"
            }
            Some(true) if outcome.confirmed_by == Some(ConfirmedBy::AppServer) => {
                ", through the agent's app server, confirmed by it"
            }
            Some(true) => ", confirmed on screen",
            Some(false) => ", not confirmed on screen",
            None => "",
        };
        let mut text = format!("[DELIVERED] Message sent to {recipient} (id {id}{how})\n");
        if let Some(note) = &outcome.reason {
            text.push_str(&format!("  note: {note}\n"));
        }
        text
    } else if outcome.is_with_agent() {
        let label = match outcome.status {
            DeliveryStatus::AwaitingApproval => "AWAITING-APPROVAL",
            DeliveryStatus::Unconfirmed => "UNCONFIRMED",
            _ => "ACCEPTED",
        };
        format!(
            "[{label}] Message for {recipient} {} (id {id})\n  {}\n  (it went through the agent's own channel and is never typed in as well; `swarm feed` says when it is taken)\n",
            outcome.describe(),
            outcome.reason.as_deref().unwrap_or(""),
        )
    } else if outcome.waits_for_turn() {
        format!(
            "[ACCEPTED] Message for {recipient} accepted (id {id})\n  {}: it is typed in by itself when the turn ends (`swarm msg --urgent` types it in at once)\n",
            outcome.reason.as_deref().unwrap_or("the agent is working"),
        )
    } else if outcome.status == DeliveryStatus::Held {
        let limited = ctx
            .backend()?
            .limits
            .read()
            .is_ok_and(|l| l.of_agent(recipient.as_str()).is_some());
        let when = if limited {
            "once its usage limit is over (`swarm limits`; `--urgent` from you goes in now)"
        } else {
            "within about 2 s of the pane becoming safe"
        };
        format!(
            "[HELD] Message for {recipient} held (id {id})\n  reason: {}\n  (the project's watcher types it in by itself {when}; `swarm acks --held` lists what waits)\n",
            outcome
                .reason
                .as_deref()
                .unwrap_or("the pane is not safe to type into"),
        )
    } else {
        format!(
            "[QUEUED] Message saved to {recipient}'s inbox (id {id})\n  reason: {}\n  (they see it with `swarm inbox`; retry with `swarm redeliver {}`)\n",
            outcome.reason.as_deref().unwrap_or("not delivered"),
            id.short()
        )
    };
    if let Some(wait) = ack_timeout {
        text.push_str(&format!(
            "[ACK-REQUIRED] {recipient} answers with `swarm ack {}`; retried after {}s if not, then escalated\n",
            id.short(),
            wait.as_secs()
        ));
    }
    ctx.out.print(&text)?;
    Ok(report.exit_code())
}
