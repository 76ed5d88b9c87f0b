//! `swarm search TEXT`: every kept message (rotated segments included)
//! that has the words of TEXT, best match first, through the message
//! index (docs/PERFORMANCE.md: warm answers within 50 ms for 200,000
//! messages).

use clap::Args;

use swarm_core::domain::validate;
use swarm_core::support::sanitize::one_line;
use swarm_core::support::time;
use swarm_core::{Error, ExitCode, Result, SearchRequest, message_index, search_query};

use crate::cli::context::Context;
use crate::cli::messaging::thread::{MessagesJson, describe};

/// Arguments of `swarm search`.
#[derive(Debug, Args)]
pub(crate) struct SearchArgs {
    /// Words to find in the text, sender or type (whole words, any case;
    /// `deploy*` also finds `deployment`)
    #[arg(value_name = "TEXT")]
    text: String,
    /// Only messages from this agent
    #[arg(long, value_name = "ID")]
    from: Option<String>,
    /// Only messages to this agent
    #[arg(long, value_name = "ID")]
    to: Option<String>,
    /// Only messages of this type
    #[arg(long = "type", value_name = "TYPE")]
    msg_type: Option<String>,
    /// Only messages sent within this long (30m, 2h, 7d)
    #[arg(long, value_name = "DURATION")]
    since: Option<String>,
    /// Only messages of the conversation this message belongs to
    #[arg(long, value_name = "ID")]
    thread: Option<String>,
    /// At most this many messages [default: 20]
    #[arg(long, value_name = "N",
          value_parser = clap::value_parser!(u32).range(1..=1000))]
    limit: Option<u32>,
    /// Print `{"messages": [...]}`, best first
    #[arg(long)]
    json: bool,
}

/// Searches the kept messages.
pub(crate) fn run(ctx: &Context, args: &SearchArgs) -> Result<ExitCode> {
    let agent = |flag: &str, raw: &Option<String>| -> Result<Option<String>> {
        raw.as_deref()
            .map(|id| validate::agent_id(id).map_err(|e| Error::Invalid(format!("{flag}: {e}"))))
            .transpose()
    };
    let req = SearchRequest {
        text: args.text.clone(),
        from: agent("--from", &args.from)?,
        to: agent("--to", &args.to)?,
        msg_type: args.msg_type.clone(),
        since: args
            .since
            .as_deref()
            .map(|s| time::parse_duration(s).map_err(|e| Error::Invalid(format!("--since: {e}"))))
            .transpose()?,
        thread: args.thread.clone(),
        limit: args.limit.map(|n| n as usize),
    };
    let backend = ctx.backend()?;
    let index = message_index(&ctx.paths, backend.log.as_ref())?;
    for n in index.notes() {
        ctx.out.warn(n);
    }
    let query = search_query(&index, &req)?;
    let found = index.search(&query)?;
    if args.json {
        ctx.out.json(&MessagesJson { messages: &found })?;
        return Ok(ExitCode::Success);
    }
    if found.is_empty() {
        ctx.out.print(&format!(
            "No kept message matches {:?}\n",
            one_line(&args.text)
        ))?;
        return Ok(ExitCode::Success);
    }
    let mut s = format!(
        "{} message{} (best match first):\n\n",
        found.len(),
        if found.len() == 1 { "" } else { "s" }
    );
    for m in &found {
        s.push_str(&describe(m));
        if let Some(r) = m.relevance {
            s.push_str(&format!(", relevance {r}%"));
        }
        s.push('\n');
        let text: String = one_line(&m.content).chars().take(200).collect();
        s.push_str(&format!("  {text}\n\n"));
    }
    ctx.out.print(&s)?;
    Ok(ExitCode::Success)
}
