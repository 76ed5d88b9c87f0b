//! `swarm acks`: messages waiting for an acknowledgement, and messages
//! held back from a pane until it is safe to type into.

use clap::Args;
use serde::Serialize;

use swarm_core::support::sanitize;
use swarm_core::support::time;
use swarm_core::{ExitCode, HeldMessage, Result, Timestamp, format_age};

use crate::cli::context::Context;

/// Arguments of `swarm acks`.
#[derive(Debug, Args)]
pub(crate) struct AcksArgs {
    /// Print the pending acknowledgements as JSON
    #[arg(long)]
    json: bool,
    /// List only the messages held back from a pane (someone typing in the
    /// agent's input box, a dialog open), with reason and age
    #[arg(long)]
    held: bool,
}

#[derive(Serialize)]
struct HeldJson<'a> {
    msg_id: &'a str,
    recipient: &'a str,
    header: String,
    reason: &'a str,
    held_since: String,
    age_seconds: f64,
}

/// Messages held back from panes, as rows.
fn held_rows(held: &[HeldMessage]) -> Vec<HeldJson<'_>> {
    let now = Timestamp::now();
    held.iter()
        .map(|h| HeldJson {
            msg_id: h.msg_id.as_str(),
            recipient: h.agent.as_str(),
            header: sanitize::one_line(&h.marker),
            reason: &h.reason,
            held_since: h.since.utc_iso(),
            age_seconds: (h.age(now).as_secs_f64() * 10.0).round() / 10.0,
        })
        .collect()
}

/// The held messages as text (empty when none).
fn held_text(rows: &[HeldJson<'_>]) -> String {
    if rows.is_empty() {
        return String::new();
    }
    let mut s = format!(
        "Held messages ({}), typed in by swarm once the pane is safe:\n\n",
        rows.len()
    );
    for r in rows {
        s.push_str(&format!(
            "{}  {} -> {}\n  held {}: {}\n\n",
            r.msg_id,
            r.header,
            r.recipient,
            format_age(r.age_seconds),
            sanitize::one_line(r.reason)
        ));
    }
    s
}

/// Prints the messages held back from panes (`swarm acks --held`,
/// `swarm inbox --held`).
pub(crate) fn print_held(ctx: &Context, held: &[HeldMessage], json: bool) -> Result<ExitCode> {
    let rows = held_rows(held);
    if json {
        ctx.out.json(&rows)?;
    } else if rows.is_empty() {
        ctx.out.print("No held messages.\n")?;
    } else {
        ctx.out.print(&held_text(&rows))?;
    }
    Ok(ExitCode::Success)
}

#[derive(Serialize)]
struct PendingJson<'a> {
    msg_id: &'a str,
    sender: &'a str,
    recipient: &'a str,
    msg_type: &'a str,
    sent_at: String,
    age_seconds: f64,
    retry_count: u32,
    max_retries: u32,
    next_retry_at: String,
    next_step: &'static str,
    due_in_seconds: f64,
}

/// Lists pending acknowledgements.
pub(crate) fn run(ctx: &Context, args: &AcksArgs) -> Result<ExitCode> {
    let backend = ctx.backend()?;
    let held = backend.held.list()?;
    if args.held {
        return print_held(ctx, &held, args.json);
    }
    let settings = ctx.ack_settings()?;
    let pending = backend.acks.list()?;
    if let Some(p) = pending.problem {
        ctx.out.warn(&format!(
            "{p}; the next change to it moves it aside and starts over"
        ));
    }
    let now = time::now();
    let rows: Vec<PendingJson<'_>> = pending
        .entries
        .iter()
        .map(|e| {
            let age = time::age_seconds(e.sent_at.utc(), now);
            let due = (e.next_retry_at.utc() - now).num_milliseconds() as f64 / 1000.0;
            PendingJson {
                msg_id: e.msg_id.as_str(),
                sender: e.sender_id.as_str(),
                recipient: e.recipient_id.as_str(),
                msg_type: e.message().msg_type.as_str(),
                sent_at: e.sent_at.local_naive_iso(),
                age_seconds: (age * 10.0).round() / 10.0,
                retry_count: e.retry_count,
                max_retries: settings.max_retries,
                next_retry_at: e.next_retry_at.local_naive_iso(),
                next_step: if e.retry_count >= settings.max_retries {
                    "escalation"
                } else {
                    "retry"
                },
                due_in_seconds: (due * 10.0).round() / 10.0,
            }
        })
        .collect();
    if args.json {
        ctx.out.json(&rows)?;
        return Ok(ExitCode::Success);
    }
    let held_section = held_text(&held_rows(&held));
    if rows.is_empty() {
        ctx.out.print(&format!(
            "No pending acknowledgements.\n{}",
            prefixed(&held_section)
        ))?;
        return Ok(ExitCode::Success);
    }
    let mut s = format!("Pending acknowledgements ({}):\n\n", rows.len());
    for r in &rows {
        let due = if r.due_in_seconds <= 0.0 {
            "due now".to_owned()
        } else {
            format!("in {}", format_age(r.due_in_seconds))
        };
        s.push_str(&format!(
            "{}  {} -> {}  [{}]\n  sent {} ago, {} of {} retries sent; next {} {due}\n\n",
            r.msg_id,
            r.sender,
            r.recipient,
            r.msg_type,
            format_age(r.age_seconds),
            r.retry_count,
            r.max_retries,
            r.next_step
        ));
    }
    s.push_str(&held_section);
    ctx.out.print(&s)?;
    Ok(ExitCode::Success)
}

fn prefixed(section: &str) -> String {
    if section.is_empty() {
        String::new()
    } else {
        format!("\n{section}")
    }
}
