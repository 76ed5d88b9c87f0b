//! `swarm ack ID` (alias `acknowledge-message`): answer a message that
//! asked for an acknowledgement. The sender gets an `ACK` message naming
//! the acknowledged id. From the terminal (no agent's pane), a message
//! with one recipient is acknowledged for that recipient.

use clap::Args;

use swarm_core::acks::AckResult;
use swarm_core::agents::identity;
use swarm_core::error::{Error, Result};
use swarm_core::messaging::{self, Acknowledgement};
use swarm_core::support::exit_code::ExitCode;

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
    let prefix = args.id.trim().to_lowercase();
    if prefix.len() < 4 || !prefix.bytes().all(|b| b.is_ascii_hexdigit() || b == b'-') {
        return Err(Error::Invalid(format!(
            "{:?} is not a message id: give at least 4 characters of it (hex digits and `-`)",
            args.id
        )));
    }
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
    let registry = ctx.registry_or_empty()?;
    let messenger = ctx.messenger()?;
    let (done, warnings) = messaging::acknowledge(
        &messenger,
        &registry,
        &prefix,
        &actor.id,
        args.note.as_deref(),
    )?;
    for w in &warnings {
        ctx.out.warn(w);
    }
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
        Acknowledgement::Refused(AckResult::NotPending) => not_pending(ctx, &prefix, &actor.id),
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

/// Nothing pending matches: say whether it was already answered (harmless,
/// exit 0) or never existed (exit 4).
fn not_pending(ctx: &Context, prefix: &str, agent: &str) -> Result<ExitCode> {
    let views = ctx.backend()?.log.read_all()?.messages();
    let Some(original) = views.iter().find(|v| v.message.msg_id.starts_with(prefix)) else {
        return Err(Error::UnknownMessage(prefix.to_owned()));
    };
    let id = &original.message.msg_id;
    let answered = views.iter().any(|v| {
        v.message.msg_type.as_str() == "ACK"
            && v.message.parent_msg_id.as_ref() == Some(id)
            && v.message.sender == agent
    });
    let text = if answered {
        format!("Message {id} was already acknowledged; nothing to do.\n")
    } else if original.message.requires_ack {
        format!("No acknowledgement is pending for message {id} (it was answered or escalated).\n")
    } else {
        format!("Message {id} did not ask for an acknowledgement; nothing to do.\n")
    };
    ctx.out.print(&text)?;
    Ok(ExitCode::Success)
}
