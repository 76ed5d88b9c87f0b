//! `swarm thread ID`: the whole conversation a message belongs to, oldest
//! first, whichever of its messages is named (a unique beginning of its id
//! is enough).

use clap::Args;
use serde::Serialize;

use swarm_core::support::sanitize::{one_line, strip_controls};
use swarm_core::support::time;
use swarm_core::{ExitCode, IndexedMessage, Result, message_index, thread_of};

use crate::cli::context::Context;

/// Arguments of `swarm thread`.
#[derive(Debug, Args)]
pub(crate) struct ThreadArgs {
    /// Any message of the conversation: its id, or a unique beginning of
    /// it (at least 4 characters)
    #[arg(value_name = "ID")]
    id: String,
    /// Print `{"messages": [...]}`, oldest first
    #[arg(long)]
    json: bool,
}

/// The JSON of a list of messages.
#[derive(Serialize)]
pub(crate) struct MessagesJson<'a> {
    /// The messages.
    pub messages: &'a [IndexedMessage],
}

/// Shows a thread.
pub(crate) fn run(ctx: &Context, args: &ThreadArgs) -> Result<ExitCode> {
    let backend = ctx.backend()?;
    let index = message_index(&ctx.paths, backend.log.as_ref())?;
    for n in index.notes() {
        ctx.out.warn(n);
    }
    let messages = thread_of(&index, &args.id)?;
    if args.json {
        ctx.out.json(&MessagesJson {
            messages: &messages,
        })?;
        return Ok(ExitCode::Success);
    }
    let first = messages.first().map(|m| short(&m.msg_id)).unwrap_or("");
    let mut s = format!(
        "=== Thread {first} ({} message{}) ===\n\n",
        messages.len(),
        if messages.len() == 1 { "" } else { "s" }
    );
    for m in &messages {
        let depth = depth(&messages, m).min(8);
        let pad = "  ".repeat(depth);
        s.push_str(&pad);
        s.push_str(&describe(m));
        s.push('\n');
        for line in strip_controls(&m.content).lines() {
            s.push_str(&format!("{pad}  {line}\n"));
        }
        s.push('\n');
    }
    s.push_str("Reply with: swarm msg <agent> <TYPE> --reply-to <id> \"...\"\n");
    ctx.out.print(&s)?;
    Ok(ExitCode::Success)
}

/// `[time] sender -> recipients (TYPE) #id, reply to #parent`, every part
/// read back from the log made safe to print.
pub(crate) fn describe(m: &IndexedMessage) -> String {
    let mut s = format!(
        "[{}] {} -> {} ({}) #{}",
        one_line(&time::iso_for_people(&m.timestamp, time::now())),
        m.sender,
        m.recipients.join(", "),
        one_line(&m.msg_type),
        one_line(short(&m.msg_id)),
    );
    if let Some(p) = &m.parent_msg_id {
        s.push_str(&format!(", reply to #{}", one_line(short(p))));
    }
    if let Some(t) = &m.topic {
        s.push_str(&format!(", topic {}", one_line(t)));
    }
    s
}

/// The first 8 characters of an id (the whole of a shorter one).
pub(crate) fn short(id: &str) -> &str {
    swarm_core::domain::short(id)
}

/// How many of `m`'s ancestors are in `all`.
fn depth(all: &[IndexedMessage], m: &IndexedMessage) -> usize {
    let mut depth = 0;
    let mut parent = m.parent_msg_id.as_deref();
    while let Some(p) = parent {
        match all.iter().find(|x| x.msg_id == p) {
            Some(x) if depth < all.len() => {
                depth += 1;
                parent = x.parent_msg_id.as_deref();
            }
            _ => break,
        }
    }
    depth
}
