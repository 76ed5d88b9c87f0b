//! The JSON view of a sent message and its outcomes, printed by
//! `swarm msg --json` and `swarm broadcast --json`.

use serde::Serialize;

use swarm_core::{AgentId, ExitCode, Result, SendReport};

use crate::cli::context::Context;

/// What `msg` and `broadcast` print first: the send's warnings and its
/// rate-limit refusal, then, with `json`, its JSON view, returning the
/// exit code to end with (`None`: the text is theirs to print).
pub(crate) fn print_first(
    ctx: &Context,
    report: &SendReport,
    json: bool,
) -> Result<Option<ExitCode>> {
    for w in &report.warnings {
        ctx.out.warn(w);
    }
    ctx.out.rate_limit_note(report);
    if !json {
        return Ok(None);
    }
    ctx.out.json(&SentJson::new(report))?;
    Ok(Some(report.exit_code()))
}

/// The JSON shape of a sent message (`msg --json`, `broadcast --json`).
#[derive(Serialize)]
pub(crate) struct SentJson<'a> {
    msg_id: &'a str,
    sender: &'a str,
    recipients: &'a [AgentId],
    msg_type: &'a str,
    content: &'a str,
    timestamp: String,
    /// The message it answers (`--reply-to`).
    #[serde(skip_serializing_if = "Option::is_none")]
    parent_msg_id: Option<&'a str>,
    outcomes: serde_json::Map<String, serde_json::Value>,
    delivered: usize,
    /// Copies the agents have through their own channels, not taken yet.
    accepted: usize,
    queued: usize,
    rate_limited_for_seconds: Option<u64>,
    body_file: Option<String>,
}

impl<'a> SentJson<'a> {
    /// The JSON view of a report.
    pub(crate) fn new(report: &'a SendReport) -> SentJson<'a> {
        let m = &report.message;
        let outcomes = report
            .outcomes
            .iter()
            .map(|(r, o)| (r.clone(), serde_json::to_value(o).unwrap_or_default()))
            .collect();
        SentJson {
            msg_id: m.msg_id.as_str(),
            sender: m.sender.as_str(),
            recipients: &m.recipients,
            msg_type: m.msg_type.as_str(),
            content: &m.content,
            timestamp: m.created.utc_iso(),
            parent_msg_id: m.parent_msg_id.as_ref().map(|p| p.as_str()),
            outcomes,
            delivered: report.delivered(),
            accepted: report.accepted(),
            queued: report.outcomes.len() - report.delivered() - report.accepted(),
            rate_limited_for_seconds: report.rate_limited.map(|d| d.as_secs_f64().ceil() as u64),
            body_file: report.body_file.as_ref().map(|p| p.display().to_string()),
        }
    }
}
