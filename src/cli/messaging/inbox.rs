//! `swarm inbox` (alias `check-messages`): the messages addressed to an
//! agent. `--new` shows the oldest unread ones and marks exactly those as
//! read; nothing else marks a message read, whatever `--limit`. `--hook`
//! is the compact form for Claude Code's prompt hook; `--all-history`
//! (with `--search`) looks through every kept segment.

use clap::Args;

use serde::Serialize;
use swarm_core::{
    AgentId, DeliveryStatus, Error, EventKind, ExitCode, InboxView, MessageView, Result,
    SearchRequest, Selection, message_index, search_query,
};

use swarm_core::domain::validate;
use swarm_core::hooks::prompt_inbox;
use swarm_core::support::sanitize::{one_line, strip_controls};
use swarm_core::support::time;

use crate::cli::actor;
use crate::cli::context::Context;

/// Arguments of `swarm inbox`.
#[derive(Debug, Args)]
#[command(after_help = "\
Examples:
  swarm inbox                    your recent messages (outside tmux, the operator's)
  swarm inbox --new              the unread ones, oldest first, marked read once shown")]
pub(crate) struct InboxArgs {
    /// Whose inbox [default: this pane's agent; outside tmux, the operator
    /// `messaging.operator`, "operator", as for `swarm msg`]
    #[arg(long, alias = "agent-id", value_name = "AGENT")]
    agent: Option<String>,
    /// Only unread messages, oldest first; marks the ones shown as read
    #[arg(long, alias = "new-only", conflicts_with = "all_history")]
    pub(crate) new: bool,
    /// At most this many messages [default: 10; all with --all-history]
    #[arg(long, value_name = "N",
          value_parser = clap::value_parser!(u32).range(1..=100_000))]
    limit: Option<u32>,
    /// Every message to the agent still kept, rotated segments included,
    /// oldest first; marks nothing as read
    #[arg(long)]
    all_history: bool,
    /// With --all-history: only messages with the words of TEXT in their
    /// text, sender or type (any case), found by `swarm search`'s index
    #[arg(long, value_name = "TEXT", requires = "all_history")]
    search: Option<String>,
    /// Print the messages as JSON
    #[arg(long)]
    json: bool,
    /// One line per message: `[sender:TYPE] content`
    #[arg(short, long)]
    quiet: bool,
    /// The messages held back from panes (someone typing, a dialog open,
    /// a usage limit), for every agent or --agent's, with reason and age
    /// (as `swarm acks --held`)
    #[arg(long, conflicts_with_all = ["new", "all_history", "quiet"])]
    held: bool,
    /// Compact block for Claude Code's prompt hook: nothing when there is
    /// nothing new, and never a failing exit code
    #[arg(long, hide = true)]
    hook: bool,
}

#[derive(Serialize)]
struct InboxJson<'a> {
    agent: &'a str,
    unread_before: usize,
    held_back: usize,
    more_older: bool,
    messages: Vec<MessageJson<'a>>,
}

#[derive(Serialize)]
struct MessageJson<'a> {
    msg_id: &'a str,
    sender: &'a str,
    msg_type: &'a str,
    timestamp: &'a str,
    content: &'a str,
    recipients: &'a [AgentId],
    /// The message this one answers: it is in that one's thread.
    parent_msg_id: Option<&'a str>,
    delivered_to_pane: Option<bool>,
    queued_reason: Option<&'a str>,
}

/// Shows an inbox.
pub(crate) fn run(ctx: &Context, args: &InboxArgs) -> Result<ExitCode> {
    if args.hook {
        // A hook must never stand in the agent's way: whatever happens,
        // print what we can and exit 0.
        if let Ok(text) = hook_text(ctx, args) {
            let _ = ctx.out.print(&text);
        }
        return Ok(ExitCode::Success);
    }
    if args.held {
        let mut held = ctx.backend()?.held.list()?;
        if let Some(who) = &args.agent {
            held.retain(|h| h.agent.as_str() == who);
        }
        return crate::cli::acks::list::print_held(ctx, &held, args.json);
    }
    let agent = agent(ctx, args)?;
    // The operator has no pane: why a message was not typed into one is
    // no news to it, and the advice that comes with it is wrong.
    let has_pane = agent != ctx.config()?.messaging.operator;
    let (view, notes) = read(ctx, &agent, args)?;
    for n in notes {
        ctx.out.warn(&n);
    }
    if agent == ctx.config()?.messaging.operator {
        seen_by_the_person(ctx);
    }
    if args.json {
        ctx.out.json(&InboxJson {
            agent: &agent,
            unread_before: view.unread,
            held_back: view.held_back,
            more_older: view.more_older,
            messages: view
                .shown
                .iter()
                .map(|v| message_json(v, &agent, has_pane))
                .collect(),
        })?;
    } else if args.quiet {
        let mut s = String::new();
        for v in &view.shown {
            let m = &v.message;
            s.push_str(&format!(
                "[{}:{}] {}\n",
                m.sender,
                one_line(m.msg_type.as_str()),
                one_line(&m.content)
            ));
        }
        if view.held_back > 0 {
            s.push_str(&more_line(&view, args));
        }
        ctx.out.print(&s)?;
    } else {
        ctx.out.print(&render(&agent, &view, args, has_pane))?;
    }
    Ok(ExitCode::Success)
}

fn agent(ctx: &Context, args: &InboxArgs) -> Result<String> {
    match &args.agent {
        Some(id) => {
            let id = validate::agent_id(id).map_err(|e| Error::Invalid(format!("--agent: {e}")))?;
            // The operator has an inbox too: ACKs to messages it sent.
            if id != ctx.config()?.messaging.operator
                && let Err(unknown) = actor::known_agent(ctx, ctx.registry()?, &id)
            {
                // An agent that left keeps its messages in the log: they
                // can be read, but no read position moves for it.
                if args.new || args.hook || !has_messages(ctx, &id)? {
                    return Err(unknown);
                }
            }
            Ok(id)
        }
        // A prompt hook runs for an agent: outside a pane it has nobody's
        // inbox to show, and must not mark the operator's messages read.
        None if args.hook => Ok(actor::resolve(ctx, None, false, "--agent")?.id),
        // Outside tmux, the person at the terminal, as `msg` sends as.
        None => Ok(actor::resolve_sender(ctx, None, false, "--agent")?.id),
    }
}

/// True when the log holds a message to `agent`.
fn has_messages(ctx: &Context, agent: &str) -> Result<bool> {
    let all = Selection::AllHistory { search: None };
    let view = ctx.backend()?.log.inbox(agent, None, &all, Some(1))?;
    Ok(!view.shown.is_empty())
}

fn read(ctx: &Context, agent: &str, args: &InboxArgs) -> Result<(InboxView, Vec<String>)> {
    let log = &ctx.backend()?.log;
    if args.new && !args.all_history {
        // Read and marked read in one step, so that two readers of one
        // inbox never both get a message.
        let (mut view, note) = log.take_new(agent, Some(args.limit.unwrap_or(10) as usize))?;
        view.new_cursor = None;
        return Ok((view, note.into_iter().collect()));
    }
    let (cursor, note) = log.cursor(agent)?;
    if let (true, Some(text)) = (args.all_history, &args.search) {
        return searched(ctx, agent, text, args.limit.map(|n| n as usize), note);
    }
    let (selection, limit) = if args.all_history {
        (
            Selection::AllHistory { search: None },
            args.limit.map(|n| n as usize),
        )
    } else {
        (Selection::Recent, Some(args.limit.unwrap_or(10) as usize))
    };
    let mut view = log.inbox(agent, cursor.as_ref(), &selection, limit)?;
    // Only `--new` marks messages read: a look at the recent ones, however
    // many `--limit` shows, leaves them unread for `--new` and the hook.
    view.new_cursor = None;
    Ok((view, note.into_iter().collect()))
}

/// `--all-history --search TEXT`: the agent's kept messages that the
/// message index finds for TEXT, oldest first, the newest `limit` of them.
fn searched(
    ctx: &Context,
    agent: &str,
    text: &str,
    limit: Option<usize>,
    note: Option<String>,
) -> Result<(InboxView, Vec<String>)> {
    let log = ctx.backend()?.log.as_ref();
    let index = message_index(&ctx.paths, log)?;
    let mut notes: Vec<String> = note.into_iter().collect();
    notes.extend(index.notes().iter().cloned());
    let mut query = search_query(
        &index,
        &SearchRequest {
            text: text.to_owned(),
            to: Some(agent.to_owned()),
            ..SearchRequest::default()
        },
    )?;
    query.limit = usize::MAX;
    query.oldest_first = true;
    let found: std::collections::HashSet<String> = index
        .search(&query)?
        .into_iter()
        .map(|m| m.msg_id)
        .collect();
    let all = Selection::AllHistory { search: None };
    let mut view = log.inbox(agent, None, &all, None)?;
    view.shown
        .retain(|v| found.contains(v.message.msg_id.as_str()));
    view.held_back = 0;
    if let Some(n) = limit
        && view.shown.len() > n
    {
        view.held_back = view.shown.len() - n;
        view.shown.drain(..view.held_back);
    }
    view.new_cursor = None;
    Ok((view, notes))
}

fn hook_text(ctx: &Context, args: &InboxArgs) -> Result<String> {
    let agent = agent(ctx, args)?;
    // Only what has not reached the agent another way (typed into its
    // pane, or shown before), marked read and delivered as it is shown.
    let pane = ctx
        .registry()?
        .and_then(|r| r.find(&agent))
        .and_then(|a| a.tmux_pane_id.clone());
    let limit = args.limit.unwrap_or(10) as usize;
    let view = prompt_inbox::take(ctx.op()?, &agent, pane.as_ref(), limit)?;
    if view.shown.is_empty() {
        return Ok(String::new());
    }
    let count = view.shown.len() + view.more;
    let mut s = format!(
        "📬 swarm: {count} new message{} for {agent}\n",
        if count == 1 { "" } else { "s" }
    );
    for v in &view.shown {
        let m = &v.message;
        let thread = m
            .parent_msg_id
            .as_ref()
            .map(|p| format!(", reply to {}", one_line(p.short())))
            .unwrap_or_default();
        s.push_str(&format!(
            "{} {} (id {}{thread})\n",
            m.header(),
            strip_controls(&m.content),
            m.msg_id.short()
        ));
    }
    if view.more > 0 {
        s.push_str(&format!("({} more: run `swarm inbox --new`)\n", view.more));
    }
    s.push_str("Reply with: swarm msg <agent-id> <TYPE> --reply-to <id> \"...\"\n");
    Ok(s)
}

/// The block Claude Code's prompt hook adds for `agent`: its new messages
/// (marked read), or nothing.
pub(crate) fn prompt_hook_text(ctx: &Context, agent: &str) -> Result<String> {
    hook_text(
        ctx,
        &InboxArgs {
            agent: Some(agent.to_owned()),
            new: true,
            limit: None,
            all_history: false,
            search: None,
            json: false,
            quiet: false,
            hook: true,
            held: false,
        },
    )
}

fn message_json<'a>(v: &'a MessageView, agent: &str, has_pane: bool) -> MessageJson<'a> {
    let outcome = v.outcome_for(agent);
    let m = &v.message;
    MessageJson {
        msg_id: m.msg_id.as_str(),
        sender: m.sender.as_str(),
        msg_type: m.msg_type.as_str(),
        timestamp: &v.timestamp,
        content: &m.content,
        recipients: &m.recipients,
        parent_msg_id: m.parent_msg_id.as_ref().map(|p| p.as_str()),
        delivered_to_pane: outcome.map(|o| o.is_delivered()),
        queued_reason: outcome
            .filter(|o| has_pane && o.status == DeliveryStatus::Queued)
            .and_then(|o| o.reason.as_deref()),
    }
}

fn more_line(view: &InboxView, args: &InboxArgs) -> String {
    if args.new {
        format!(
            "({} more new message{} not shown: run `swarm inbox --new` again, or raise --limit)\n",
            view.held_back,
            if view.held_back == 1 { "" } else { "s" }
        )
    } else if args.all_history {
        format!(
            "({} older message{} not shown. Use --limit to see more)\n",
            view.held_back,
            if view.held_back == 1 { "" } else { "s" }
        )
    } else {
        "(older messages not shown: raise --limit, or use --all-history)\n".to_owned()
    }
}

fn render(agent: &str, view: &InboxView, args: &InboxArgs, has_pane: bool) -> String {
    if view.shown.is_empty() {
        return if args.new {
            format!("No new messages for {agent}\n")
        } else if args.search.is_some() {
            format!("No kept message for {agent} matches\n")
        } else {
            format!("No messages for {agent}\n")
        };
    }
    let now = time::now();
    let mut s = format!(
        "=== Messages for {agent} ({} {}) ===\n\n",
        view.shown.len(),
        if args.new {
            "new"
        } else if args.all_history {
            "from the whole kept history"
        } else {
            "recent"
        }
    );
    for v in &view.shown {
        let m = &v.message;
        s.push_str(&format!(
            "[{}] From: {} ({})\n",
            // A line edited by hand may carry anything in these two.
            one_line(&time::iso_for_people(&v.timestamp, now)),
            m.sender,
            one_line(m.msg_type.as_str())
        ));
        for line in strip_controls(&m.content).lines() {
            s.push_str(&format!("  {line}\n"));
        }
        s.push_str(&format!("  (ID: {}", m.msg_id.short()));
        if let Some(p) = &m.parent_msg_id {
            s.push_str(&format!(
                ", reply to {}: `swarm thread {}` shows the conversation",
                one_line(p.short()),
                m.msg_id.short()
            ));
        }
        s.push(')');
        if let Some(o) = v
            .outcome_for(agent)
            .filter(|o| has_pane && o.status == DeliveryStatus::Queued)
        {
            s.push_str(&format!(
                "  [not typed into your pane: {}]",
                o.reason.as_deref().unwrap_or("queued")
            ));
        }
        s.push_str("\n\n");
    }
    if view.held_back > 0 {
        s.push_str(&more_line(view, args));
    }
    s
}

/// The person looked at their inbox: the notices of messages to them are
/// done (the status line stops showing them).
fn seen_by_the_person(ctx: &Context) {
    let Ok(backend) = ctx.backend() else {
        return;
    };
    let Ok(open) = backend.episodes.open() else {
        return;
    };
    let now = swarm_core::Timestamp::now();
    for e in open.iter().filter(|e| e.kind == EventKind::Message) {
        if let Err(err) = backend
            .episodes
            .transition(&e.agent, e.kind, false, now, "", "")
        {
            ctx.out.warn(&format!(
                "could not clear the notice of {}'s message: {err}",
                e.agent
            ));
        }
    }
}
