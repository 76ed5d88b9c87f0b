//! What `swarm msg` and `swarm broadcast` print before their text: the
//! send's warnings, its rate-limit refusal, and with `--json` the core's
//! one JSON view of a send (`SendReport::view`, which the MCP server and
//! the dashboard answer with too).

use swarm_core::{ExitCode, Result, SendReport};

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
    ctx.out.json(&report.view())?;
    Ok(Some(report.exit_code()))
}
