//! `swarm ack ID` (alias `acknowledge-message`): answer a message that
//! asked for an acknowledgement. The sender gets an `ACK` message naming
//! the acknowledged id. From the terminal (no agent's pane), a message
//! with one recipient is acknowledged for that recipient.

use clap::Args;

use swarm_core::agents::identity;
use swarm_core::ops::{self, AckPlan, Acknowledgement, Settled};
use swarm_core::{AckResult, Error, ExitCode, Result};

use crate::cli::actor;
use crate::cli::context::Context;

/// Arguments of `swarm ack`.
#[derive(Debug, Args)]
#[command(after_help = "\
Examples:
  swarm ack 9c2c68bd                  in the recipient's pane, or at the terminal for its one recipient
  swarm ack 9c2c68bd --note \"on it\"   with a short answer")]
pub(crate) struct AckArgs {
    /// The message id, or a unique prefix of it (8 characters are enough)
    #[arg(value_name = "ID")]
    id: String,
    /// Who acknowledges [default: this pane's agent; outside tmux, the
    /// message's recipient when it has only one]; must be the recipient
    #[arg(long, alias = "agent-id", value_name = "AGENT")]
    agent: Option<String>,
    /// Allow --agent to name another agent than this pane's own (recorded)
    #[arg(long)]
    as_other: bool,
    /// A short answer sent along with the ACK
    #[arg(long, value_name = "TEXT")]
    note: Option<String>,
}

/// Acknowledges a message.
pub(crate) fn run(ctx: &Context, args: &AckArgs) -> Result<ExitCode> {
    let prefix = ops::message_prefix(&args.id)?;
    // At the terminal, with no pane to say who acknowledges, the
    // message's only recipient does (the person answers for it).
    let sole = match &args.agent {
        None if identity::current_pane()?.is_none() => sole_recipient(ctx, &prefix)?,
        _ => None,
    };
    let actor = actor::resolve(
        ctx,
        args.agent.as_deref().or(sole.as_deref()),
        args.as_other,
        "--agent",
    )?;
    let plan = AckPlan::new(&args.id, &actor.id)?.note(args.note.as_deref());
    let registry = ctx.registry_or_empty()?;
    let report = ops::ack(ctx.op()?, &registry, &plan)?;
    for w in &report.warnings {
        ctx.out.warn(w);
    }
    let done = report.done;
    match done {
        Acknowledgement::Sent { entry, report } => {
            // The person has no pane: an ACK to them is kept in their
            // inbox, which is its delivery.
            let to_person = entry.sender_id.as_str() == ctx.config()?.messaging.operator;
            let how = if to_person {
                "kept in their inbox, where the person reads it"
            } else if report.delivered() > 0 {
                "delivered to their pane"
            } else {
                "saved to their inbox"
            };
            ctx.out.print(&format!(
                "ACK sent for message {} to {} ({how})\n",
                entry.msg_id, entry.sender_id
            ))?;
            Ok(ExitCode::Success)
        }
        Acknowledgement::Refused(AckResult::Acknowledged(_)) => Ok(ExitCode::Success),
        Acknowledgement::NotPending(settled) => not_pending(ctx, &settled),
        Acknowledgement::Refused(AckResult::NotRecipient { msg_id, recipient }) => {
            Err(Error::Refused {
                message: format!(
                    "only {recipient} can acknowledge message {msg_id} (you are {})",
                    actor.id
                ),
                hint: format!(
                    "{recipient} acknowledges it from its own pane with `swarm ack {}`; \
                     from outside tmux, `swarm ack {} --agent {recipient}`",
                    args.id, args.id
                ),
            })
        }
        Acknowledgement::Refused(AckResult::Ambiguous(ids)) => Err(Error::Invalid(format!(
            "{prefix} matches {} pending messages ({}); give more of the id",
            ids.len(),
            ids.join(", ")
        ))),
        Acknowledgement::Refused(AckResult::NotPending) => {
            Err(Error::UnknownMessage(plan.prefix().to_owned()))
        }
    }
}

/// The one recipient of the one message whose id begins with `prefix`;
/// `None` when no message or several match, or it had several recipients.
fn sole_recipient(ctx: &Context, prefix: &str) -> Result<Option<String>> {
    let views = ctx.backend()?.log.read_all()?.messages();
    let mut matching = views
        .iter()
        .filter(|v| v.message.msg_id.starts_with(prefix) && v.message.requires_ack);
    Ok(match (matching.next(), matching.next()) {
        (Some(v), None) => match v.message.recipients.as_slice() {
            [one] => Some(one.to_string()),
            _ => None,
        },
        _ => None,
    })
}

/// Nothing pending matches a logged message: say whether it was already
/// answered (harmless, exit 0).
fn not_pending(ctx: &Context, settled: &Settled) -> Result<ExitCode> {
    let id = &settled.msg_id;
    let text = if settled.answered {
        format!("Message {id} was already acknowledged; nothing to do.\n")
    } else if settled.asked {
        format!("No acknowledgement is pending for message {id} (it was answered or escalated).\n")
    } else {
        format!("Message {id} did not ask for an acknowledgement; nothing to do.\n")
    };
    ctx.out.print(&text)?;
    Ok(ExitCode::Success)
}
