//! `swarm acks`: messages waiting for an acknowledgement.

use clap::Args;
use serde::Serialize;

use crate::acks;
use crate::error::Result;
use crate::support::exit_code::ExitCode;
use crate::support::time;

use crate::cli::context::Context;

/// Arguments of `swarm acks`.
#[derive(Debug, Args)]
pub(crate) struct AcksArgs {
    /// Print the pending acknowledgements as JSON
    #[arg(long)]
    json: bool,
}

#[derive(Serialize)]
struct PendingJson<'a> {
    msg_id: &'a str,
    sender: &'a str,
    recipient: &'a str,
    msg_type: &'a str,
    sent_at: &'a str,
    age_seconds: f64,
    retry_count: u32,
    max_retries: u32,
    next_retry_at: &'a str,
    next_step: &'static str,
    due_in_seconds: f64,
}

/// Lists pending acknowledgements.
pub(crate) fn run(ctx: &Context, args: &AcksArgs) -> Result<ExitCode> {
    let settings = ctx.ack_settings()?;
    let (pending, problem) = acks::list(&ctx.paths)?;
    if let Some(p) = problem {
        ctx.out.warn(&format!(
            "{p}; the next change to it moves it aside and starts over"
        ));
    }
    let now = time::now();
    let rows: Vec<PendingJson<'_>> = pending
        .pending_acks
        .iter()
        .map(|e| {
            let age = time::parse_iso(&e.sent_at)
                .map(|t| time::age_seconds(t, now))
                .unwrap_or(0.0);
            let due = time::parse_iso(&e.next_retry_at)
                .map(|t| (t - now).num_milliseconds() as f64 / 1000.0)
                .unwrap_or(0.0);
            PendingJson {
                msg_id: &e.msg_id,
                sender: &e.sender_id,
                recipient: &e.recipient_id,
                msg_type: e
                    .message
                    .get("msg_type")
                    .and_then(|v| v.as_str())
                    .unwrap_or("?"),
                sent_at: &e.sent_at,
                age_seconds: (age * 10.0).round() / 10.0,
                retry_count: e.retry_count,
                max_retries: settings.max_retries,
                next_retry_at: &e.next_retry_at,
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
    if rows.is_empty() {
        ctx.out.print("No pending acknowledgements.\n")?;
        return Ok(ExitCode::Success);
    }
    let mut s = format!("Pending acknowledgements ({}):\n\n", rows.len());
    for r in &rows {
        let due = if r.due_in_seconds <= 0.0 {
            "due now".to_owned()
        } else {
            format!("in {}", acks::format_age(r.due_in_seconds))
        };
        s.push_str(&format!(
            "{}  {} -> {}  [{}]\n  sent {} ago, {} of {} retries sent; next {} {due}\n\n",
            r.msg_id,
            r.sender,
            r.recipient,
            r.msg_type,
            acks::format_age(r.age_seconds),
            r.retry_count,
            r.max_retries,
            r.next_step
        ));
    }
    ctx.out.print(&s)?;
    Ok(ExitCode::Success)
}
