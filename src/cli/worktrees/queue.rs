//! `swarm queue [--json]` and `swarm merge --queue [AGENT...]`: the merge
//! queue. Each queued agent's branch is merged into the base only after
//! `merge.test_command` passed on the merge, built in a scratch worktree;
//! a conflict or a failing test leaves the base as it was, tells the
//! agent once with the conflicting files or the test's last lines, and
//! keeps it queued. Agents whose changes overlap go after the others.

use std::time::Duration;

use clap::Args;
use serde::Serialize;

use swarm_core::domain::message::MessageType;
use swarm_core::domain::validate;
use swarm_core::error::Result;
use swarm_core::locks::LockEntry;
use swarm_core::messaging::{Recipients, SendRequest};
use swarm_core::support::exit_code::ExitCode;
use swarm_core::support::sanitize;
use swarm_core::worktrees::{self, LastTry, Outcome, Planned, QueueRun, Repository, TestPlan};

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
    fn of(p: &'a Planned) -> PlannedJson<'a> {
        PlannedJson {
            position: p.position,
            agent: &p.entry.agent,
            queued_at: &p.entry.queued_at,
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

/// Every lock as (holder, path or directory), for the order.
fn lock_paths(ctx: &Context) -> Vec<(String, String)> {
    let Ok(locks) = ctx.locks() else {
        return Vec::new();
    };
    match locks.list() {
        Ok(entries) => entries
            .into_iter()
            .filter_map(|e| match e {
                LockEntry::Held(h) => {
                    let path = h
                        .key
                        .as_ref()
                        .map_or(h.record.filepath.clone(), |k| k.as_str().to_owned());
                    Some((h.record.agent_id, path))
                }
                _ => None,
            })
            .collect(),
        Err(e) => {
            ctx.out
                .warn(&format!("could not read the locks for the order: {e}"));
            Vec::new()
        }
    }
}

/// Shows the queue in the order the next run takes it.
pub(crate) fn run(ctx: &Context, args: &QueueArgs) -> Result<ExitCode> {
    if let Some(agent) = &args.remove {
        let agent = validate::agent_id(agent)?.to_string();
        let (removed, warnings) = worktrees::dequeue(&ctx.paths, &agent)?;
        for w in &warnings {
            ctx.out.warn(w);
        }
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
    let (plan, note) = worktrees::planned(&repo, &ctx.paths, &lock_paths(ctx))?;
    if let Some(note) = note {
        ctx.out.warn(&note);
    }
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
    for p in &plan {
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
                last.result,
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

/// `swarm merge --queue [AGENT...]`: queues the agents, runs the queue,
/// tells each agent whose try failed, and reports. Exit 1 when any try
/// failed (its agent stays queued).
pub(crate) fn merge_queue(ctx: &Context, agents: &[String], json: bool) -> Result<ExitCode> {
    let repo = Repository::open(ctx.paths.root())?;
    let merge = &ctx.config()?.merge;
    let test = merge.test_command.clone();
    let plan = test.as_ref().map(|command| TestPlan {
        command: command.clone(),
        timeout: Duration::from_secs(u64::from(merge.test_timeout)),
    });
    let locks = lock_paths(ctx);
    let run = worktrees::run_queue(&repo, &ctx.paths, agents, plan.as_ref(), &locks)?;
    for w in &run.warnings {
        ctx.out.warn(w);
    }
    let told = if ctx.config()?.merge.tell_agents {
        tell_failures(ctx, &run, test.as_deref())
    } else {
        vec![false; run.tried.len()]
    };
    let failed = run.tried.iter().any(|t| !t.outcome.done());
    if json {
        ctx.out.json(&RunJson {
            into: &run.into,
            test_command: test.as_deref(),
            order: run.plan.iter().map(PlannedJson::of).collect(),
            tried: run
                .tried
                .iter()
                .zip(&told)
                .map(|(t, told)| tried_json(&t.agent, &t.outcome, *told))
                .collect(),
            still_queued: run
                .tried
                .iter()
                .filter(|t| !t.outcome.done())
                .map(|t| t.agent.as_str())
                .collect(),
        })?;
    } else {
        ctx.out.print(&text(ctx, &run, &told, test.is_some()))?;
    }
    Ok(if failed {
        ExitCode::Failure
    } else {
        ExitCode::Success
    })
}

fn tried_json<'a>(agent: &'a str, outcome: &'a Outcome, told: bool) -> TriedJson<'a> {
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
        Outcome::Merged {
            commit,
            files,
            tested,
            ..
        } => {
            j.commit = Some(commit);
            j.files = files;
            j.tested = Some(*tested);
        }
        Outcome::UpToDate => {}
        Outcome::Conflict(files) => j.files = files,
        Outcome::TestFailed { status, tail } => {
            j.reason = Some(format!("the test command failed ({status})"));
            j.output_tail = Some(tail);
        }
        Outcome::Refused { reason, files } => {
            j.reason = Some(reason.clone());
            j.files = files;
        }
    }
    j
}

/// Tells each agent whose try failed, once per try; whether each was told.
fn tell_failures(ctx: &Context, run: &QueueRun, test: Option<&str>) -> Vec<bool> {
    let registry = match ctx.registry_or_empty() {
        Ok(r) => r,
        Err(e) => {
            ctx.out.warn(&format!("could not tell the agents: {e}"));
            return vec![false; run.tried.len()];
        }
    };
    let from = match ctx.config() {
        Ok(c) => c.messaging.operator.clone(),
        Err(_) => "operator".into(),
    };
    run.tried
        .iter()
        .map(|t| {
            let Some(text) = worktrees::failure_text(&t.agent, &run.into, &t.outcome, test) else {
                return false;
            };
            if !registry.active().any(|r| r.id.as_str() == t.agent) {
                return false;
            }
            let mut req = SendRequest::new(
                from.clone(),
                Recipients::One(t.agent.clone()),
                MessageType::builtin("CONFLICT"),
                text,
            );
            req.system = true;
            match ctx.op().and_then(|op| op.send(&registry, req)) {
                Ok(report) => {
                    for w in &report.warnings {
                        ctx.out.warn(w);
                    }
                    true
                }
                Err(e) => {
                    ctx.out.warn(&format!("could not tell {}: {e}", t.agent));
                    false
                }
            }
        })
        .collect()
}

fn text(ctx: &Context, run: &QueueRun, told: &[bool], tested: bool) -> String {
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
            Outcome::Merged {
                kind,
                commit,
                files,
                tested,
            } => format!(
                "{}: merged into {into} ({kind}, {}), {} file{}{}",
                t.agent,
                commit.get(..12).unwrap_or(commit),
                files.len(),
                if files.len() == 1 { "" } else { "s" },
                if *tested {
                    ", tests passed"
                } else {
                    ", untested"
                }
            ),
            Outcome::UpToDate => format!("{}: {into} has it all already", t.agent),
            Outcome::Conflict(files) => format!(
                "{}: conflicts on {}; {into} unchanged, still queued",
                t.agent,
                files
                    .iter()
                    .map(|f| sanitize::one_line(f))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Outcome::TestFailed { status, tail } => {
                let last = tail.lines().last().unwrap_or_default();
                format!(
                    "{}: the tests failed ({status}; last line: {}); {into} unchanged, still queued",
                    t.agent,
                    sanitize::one_line(last)
                )
            }
            Outcome::Refused { reason, .. } => format!(
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
