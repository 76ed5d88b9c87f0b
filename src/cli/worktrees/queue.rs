//! `swarm queue [--json]` and `swarm merge --queue [AGENT...]`: the merge
//! queue, through `ops::merge_queue_order`, `ops::leave_merge_queue` and
//! `ops::merge_queue`. Each waiting agent's branch is merged into the base
//! only after `merge.test_command` passed on the merge, built in a scratch
//! worktree; a conflict or a failing test leaves the base as it was, tells
//! the agent once with the conflicting files or the test's last lines, and
//! keeps it in the merge queue. Agents whose changes overlap go after the
//! others.

use std::time::Duration;

use clap::Args;
use serde::Serialize;

use swarm_core::ops::{self, MergeQueuePlan};
use swarm_core::support::sanitize;
use swarm_core::worktrees::Repository;
use swarm_core::{ExitCode, LastTry, MergeOutcome, MergeQueueRun, PlannedMerge, Result, TestPlan};

use crate::cli::context::Context;

/// Arguments of `swarm queue`.
#[derive(Debug, Args)]
#[command(after_help = "\
Examples:
  swarm merge --queue agent-0 agent-2    queue them and merge each whose merge passes the tests
  swarm queue                            who waits, in the order the next run takes them, and why
  swarm queue --json
  swarm queue --remove agent-2           take an agent out of the queue

The order: agents whose changed files overlap no other queued agent's (and who hold no lock \
on a file another changed) first, the rest after, each naming the files. The test is \
merge.test_command in the config (e.g. \"cargo test\"), run in a scratch worktree under \
.swarm/merge-scratch/.")]
pub(crate) struct QueueArgs {
    /// Print the queue as JSON
    #[arg(long)]
    json: bool,
    /// Take this agent out of the queue
    #[arg(long, value_name = "AGENT")]
    remove: Option<String>,
}

impl QueueArgs {
    /// True with `--remove`, which changes the queue.
    pub(crate) fn changes(&self) -> bool {
        self.remove.is_some()
    }
}

#[derive(Serialize)]
struct PlannedJson<'a> {
    position: usize,
    agent: &'a str,
    queued_at: &'a str,
    attempts: u32,
    files: &'a [String],
    waits_because: Option<&'a str>,
    last: Option<&'a LastTry>,
}

impl<'a> PlannedJson<'a> {
    fn of(p: &'a PlannedMerge) -> PlannedJson<'a> {
        PlannedJson {
            position: p.position,
            agent: &p.entry.agent,
            queued_at: &p.entry.joined_at,
            attempts: p.entry.attempts,
            files: &p.files,
            waits_because: p.waits_because.as_deref(),
            last: p.entry.last.as_ref(),
        }
    }
}

#[derive(Serialize)]
struct QueueJson<'a> {
    test_command: Option<&'a str>,
    queue: Vec<PlannedJson<'a>>,
}

/// Shows the queue in the order the next run takes it.
pub(crate) fn run(ctx: &Context, args: &QueueArgs) -> Result<ExitCode> {
    if let Some(agent) = &args.remove {
        let report = ops::leave_merge_queue(ctx.op()?, agent)?;
        for w in &report.warnings {
            ctx.out.warn(w);
        }
        let (agent, removed) = (&report.agent, report.removed);
        if args.json {
            ctx.out
                .json(&serde_json::json!({"agent": agent, "removed": removed}))?;
        } else if removed {
            ctx.out
                .print(&format!("Took {agent} out of the merge queue.\n"))?;
        } else {
            ctx.out.print(&format!(
                "{agent} is not in the merge queue: nothing to do.\n"
            ))?;
        }
        return Ok(ExitCode::Success);
    }
    let repo = Repository::open(ctx.paths.root())?;
    let shown = ops::merge_queue_order(ctx.op()?, &repo)?;
    for w in &shown.warnings {
        ctx.out.warn(w);
    }
    let plan = &shown.order;
    let test = ctx.config()?.merge.test_command.clone();
    if args.json {
        ctx.out.json(&QueueJson {
            test_command: test.as_deref(),
            queue: plan.iter().map(PlannedJson::of).collect(),
        })?;
        return Ok(ExitCode::Success);
    }
    if plan.is_empty() {
        ctx.out
            .print("The merge queue is empty (`swarm merge --queue AGENT...` adds to it).\n")?;
        return Ok(ExitCode::Success);
    }
    let mut s = String::new();
    for p in plan {
        s.push_str(&format!(
            "{}. {}  {} file{}",
            p.position,
            ctx.out.bold(&p.entry.agent),
            p.files.len(),
            if p.files.len() == 1 { "" } else { "s" }
        ));
        if let Some(last) = &p.entry.last {
            s.push_str(&format!(
                "  last try: {} ({})",
                last.result.as_str(),
                sanitize::one_line(&last.reason)
            ));
        }
        s.push('\n');
        if let Some(why) = &p.waits_because {
            s.push_str(&format!(
                "   after the others: {}\n",
                sanitize::one_line(why)
            ));
        }
    }
    if test.is_none() {
        s.push_str("merge.test_command is not set: the queue merges without testing.\n");
    }
    ctx.out.print(&s)?;
    Ok(ExitCode::Success)
}

#[derive(Serialize)]
struct TriedJson<'a> {
    agent: &'a str,
    result: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    commit: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tested: Option<bool>,
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    files: &'a [String],
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    output_tail: Option<&'a str>,
    told: bool,
}

#[derive(Serialize)]
struct RunJson<'a> {
    into: &'a str,
    test_command: Option<&'a str>,
    order: Vec<PlannedJson<'a>>,
    tried: Vec<TriedJson<'a>>,
    still_queued: Vec<&'a str>,
}

/// `swarm merge --queue [AGENT...]`: the agents join the merge queue, it
/// runs, each agent whose try failed is told, and it reports. Exit 1 when
/// any try failed (its agent stays in the merge queue).
pub(crate) fn merge_queue(ctx: &Context, agents: &[String], json: bool) -> Result<ExitCode> {
    let repo = Repository::open(ctx.paths.root())?;
    let merge = &ctx.config()?.merge;
    let test = merge.test_command.clone();
    let plan = MergeQueuePlan::new(agents)?
        .tested(test.as_ref().map(|command| TestPlan {
            command: command.clone(),
            timeout: Duration::from_secs(u64::from(merge.test_timeout)),
        }))
        .telling(merge.tell_agents);
    let report = ops::merge_queue(ctx.op()?, &repo, &plan)?;
    for w in &report.warnings {
        ctx.out.warn(w);
    }
    let (run, told) = (&report.run, &report.told);
    if json {
        ctx.out.json(&RunJson {
            into: &run.into,
            test_command: test.as_deref(),
            order: run.plan.iter().map(PlannedJson::of).collect(),
            tried: run
                .tried
                .iter()
                .zip(told)
                .map(|(t, told)| tried_json(&t.agent, &t.outcome, *told))
                .collect(),
            still_queued: report.still_waiting(),
        })?;
    } else {
        ctx.out.print(&text(ctx, run, told, test.is_some()))?;
    }
    Ok(if report.failed() {
        ExitCode::Failure
    } else {
        ExitCode::Success
    })
}

fn tried_json<'a>(agent: &'a str, outcome: &'a MergeOutcome, told: bool) -> TriedJson<'a> {
    let mut j = TriedJson {
        agent,
        result: outcome.as_str(),
        commit: None,
        tested: None,
        files: &[],
        reason: None,
        output_tail: None,
        told,
    };
    match outcome {
        MergeOutcome::Merged {
            commit,
            files,
            tested,
            ..
        } => {
            j.commit = Some(commit);
            j.files = files;
            j.tested = Some(*tested);
        }
        MergeOutcome::UpToDate => {}
        MergeOutcome::Conflict(files) => j.files = files,
        MergeOutcome::TestFailed { status, tail } => {
            j.reason = Some(format!("the test command failed ({status})"));
            j.output_tail = Some(tail);
        }
        MergeOutcome::Refused { reason, files } => {
            j.reason = Some(reason.clone());
            j.files = files;
        }
    }
    j
}

fn text(ctx: &Context, run: &MergeQueueRun, told: &[bool], tested: bool) -> String {
    let into = ctx.out.bold(&sanitize::one_line(&run.into));
    if run.tried.is_empty() {
        return "The merge queue is empty: nothing to merge.\n".into();
    }
    let mut s = String::new();
    for p in run.plan.iter().filter(|p| p.waits_because.is_some()) {
        s.push_str(&format!(
            "{} goes after the others: {}\n",
            p.entry.agent,
            sanitize::one_line(p.waits_because.as_deref().unwrap_or_default())
        ));
    }
    for (t, told) in run.tried.iter().zip(told) {
        let line = match &t.outcome {
            MergeOutcome::Merged {
                kind,
                commit,
                files,
                tested,
            } => format!(
                "{}: merged into {into} ({}, {}), {} file{}{}",
                t.agent,
                kind.as_str(),
                commit.get(..12).unwrap_or(commit),
                files.len(),
                if files.len() == 1 { "" } else { "s" },
                if *tested {
                    ", tests passed"
                } else {
                    ", untested"
                }
            ),
            MergeOutcome::UpToDate => format!("{}: {into} has it all already", t.agent),
            MergeOutcome::Conflict(files) => format!(
                "{}: conflicts on {}; {into} unchanged, still queued",
                t.agent,
                files
                    .iter()
                    .map(|f| sanitize::one_line(f))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            MergeOutcome::TestFailed { status, tail } => {
                let last = tail.lines().last().unwrap_or_default();
                format!(
                    "{}: the tests failed ({status}; last line: {}); {into} unchanged, still queued",
                    t.agent,
                    sanitize::one_line(last)
                )
            }
            MergeOutcome::Refused { reason, .. } => format!(
                "{}: not merged: {}; still queued",
                t.agent,
                sanitize::one_line(reason)
            ),
        };
        s.push_str(&line);
        if *told {
            s.push_str(" (told)");
        }
        s.push('\n');
    }
    if !tested {
        s.push_str("merge.test_command is not set: merges were not tested.\n");
    }
    s
}
