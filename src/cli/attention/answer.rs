//! `swarm answer AGENT OPTION`: picks an option of the dialog open in an
//! agent's pane (a number, `yes` / `no` as the dialog's labels say, or the
//! first word of a label), or cancels it with `--escape`; types nothing
//! when no dialog is open or no option matches, and says what there is.

use clap::Args;
use serde::Serialize;

use swarm_core::ops::{self, Answer, AnswerPlan};
use swarm_core::support::sanitize;
use swarm_core::{Choice, Error, ExitCode, Result};

use crate::cli::actor;
use crate::cli::context::Context;

/// Arguments of `swarm answer`.
#[derive(Debug, Args)]
#[command(after_help = "\
Examples:
  swarm answer agent-1 yes        pick the option that says yes (Yes, Allow once, ...)
  swarm answer agent-1 no         pick the option that says no
  swarm answer agent-1 2          pick option 2
  swarm answer agent-1 allow      pick the option whose label begins with `Allow`
  swarm answer agent-1 --escape   cancel the dialog

`yes` and `no` are read from the option labels on screen, never from which
option is highlighted. Nothing is typed unless the agent's pane shows a
dialog; `swarm peek AGENT` shows its screen.")]
pub(crate) struct AnswerArgs {
    /// The agent whose dialog to answer
    #[arg(value_name = "AGENT")]
    agent: String,
    /// The option: its number, `yes`, `no`, or the first word of its label
    #[arg(value_name = "OPTION", required_unless_present = "escape")]
    option: Option<String>,
    /// Cancel the dialog (Escape) instead of picking an option
    #[arg(long, conflicts_with = "option")]
    escape: bool,
    /// Print what was done as JSON
    #[arg(long)]
    json: bool,
}

#[derive(Serialize)]
struct AnsweredJson<'a> {
    agent: &'a str,
    question: &'a str,
    option: Option<&'a swarm_core::DialogOption>,
    cancelled: bool,
    keys: &'a [String],
    closed: bool,
}

/// Answers the dialog.
pub(crate) fn run(ctx: &Context, args: &AnswerArgs) -> Result<ExitCode> {
    let agent = swarm_core::AgentId::parse(&args.agent)
        .map_err(|e| Error::Invalid(format!("agent: {e}")))?;
    let answer = if args.escape {
        Answer::Escape
    } else {
        let raw = args.option.as_deref().unwrap_or_default();
        // Any other word is looked for among the labels on screen; the
        // refusal lists the options when none has it.
        Choice::parse(raw).map_or_else(|| Answer::Label(raw.to_owned()), Answer::Pick)
    };
    let by = actor::detect(ctx)?.unwrap_or_else(|| {
        ctx.config()
            .map(|c| c.messaging.operator.clone())
            .unwrap_or_else(|_| "operator".into())
    });
    let registry = ctx.registry_or_empty()?;
    let report = ops::answer(ctx.op()?, &registry, &AnswerPlan::new(agent, answer, &by))?;
    let done = report.answered;
    for w in &report.warnings {
        ctx.out.warn(w);
    }
    let picked = done.picked();
    if args.json {
        ctx.out.json(&AnsweredJson {
            agent: &done.agent,
            question: &done.question,
            option: done.option.as_ref(),
            cancelled: done.option.is_none(),
            keys: &done.keys,
            closed: done.closed,
        })?;
        return Ok(ExitCode::Success);
    }
    let question = if done.question.is_empty() {
        String::new()
    } else {
        format!(" \"{}\"", sanitize::one_line(&done.question))
    };
    let seen = if done.closed {
        "the dialog closed"
    } else {
        "the dialog is still on screen: check with `swarm peek`"
    };
    ctx.out.print(&format!(
        "Answered {}'s dialog{question}: {picked} ({seen})\n",
        done.agent
    ))?;
    Ok(ExitCode::Success)
}
