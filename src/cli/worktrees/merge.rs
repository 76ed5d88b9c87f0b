//! `swarm merge AGENT [--into BRANCH] [--json]`: the agent's branch into
//! the base, only when it merges cleanly (decided before anything is
//! touched); otherwise refused with exit 1 and every conflicting file
//! named, every tree and branch left as it was. `--queue AGENT...` puts
//! agents in the merge queue and runs it (`queue.rs`).

use clap::Args;
use serde::Serialize;

use swarm_core::domain::validate;
use swarm_core::ops::{self, MergePlan};
use swarm_core::support::sanitize;
use swarm_core::worktrees::{MergeKind, Merged, Repository, WorktreeError};
use swarm_core::{Error, ExitCode, Result};

use crate::cli::context::Context;

/// Arguments of `swarm merge`.
#[derive(Debug, Args)]
#[command(
    after_help = "Needs git 2.38 or newer (git merge-tree --write-tree). A clean merge fast-forwards \
    when it can, else makes a merge commit by your git identity, and updates the main worktree's \
    files. A merge that would conflict, or overwrite uncommitted changes or untracked files in the \
    main worktree, is refused with exit code 1 and changes nothing. Uncommitted work in the \
    agent's worktree is not part of the merge and is never committed for it.

With --queue, the agents join the merge queue and the queue runs: each merge is built and \
tested (merge.test_command) in a scratch worktree before the base moves to it; one that \
conflicts or fails its test leaves the base untouched, tells the agent, stays queued, and the \
command exits 1. `swarm queue` shows the queue.

Examples:
  swarm merge agent-0
  swarm merge --queue agent-0 agent-1 agent-2
  swarm merge --queue                          try the queued agents again"
)]
pub(crate) struct MergeArgs {
    /// The agent whose branch (swarm/AGENT) to merge; with --queue, any number
    #[arg(value_name = "AGENT", required_unless_present = "queue")]
    agents: Vec<String>,
    /// Queue the agents and merge each whose merge passes merge.test_command, in order
    #[arg(long, conflicts_with = "into")]
    queue: bool,
    /// Merge into this branch instead of the one checked out in the main worktree
    #[arg(long, value_name = "BRANCH")]
    into: Option<String>,
    /// Print what was done (or why not) as JSON
    #[arg(long)]
    json: bool,
}

impl MergeArgs {
    /// True with `--queue`, which tells agents of failed tries.
    pub(crate) fn queues(&self) -> bool {
        self.queue
    }
}

#[derive(Serialize)]
struct MergeJson<'a> {
    agent: &'a str,
    branch: &'a str,
    into: &'a str,
    result: &'static str,
    commit: &'a str,
    files: &'a [String],
    updated_worktree: Option<&'a std::path::Path>,
    uncommitted_in_worktree: &'a [String],
    behind: Vec<BehindJson>,
}

#[derive(Serialize)]
struct BehindJson {
    agent: String,
    behind: u64,
}

#[derive(Serialize)]
struct RefusedJson<'a> {
    agent: &'a str,
    result: &'static str,
    reason: String,
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    files: &'a [String],
}

/// Checks the agent id, merges, and reports.
pub(crate) fn run(ctx: &Context, args: &MergeArgs) -> Result<ExitCode> {
    let agents = args
        .agents
        .iter()
        .map(|a| validate::agent_id(a).map(|id| id.to_string()))
        .collect::<std::result::Result<Vec<_>, _>>()?;
    if args.queue {
        return super::queue::merge_queue(ctx, &agents, args.json);
    }
    let [agent] = agents.as_slice() else {
        return Err(Error::Usage(
            "swarm merge takes one agent; to merge several in turn, use --queue".into(),
        ));
    };
    let plan = MergePlan::new(agent, args.into.as_deref())?;
    let agent = plan.agent();
    let repo = Repository::open(ctx.paths.root())?;
    let report = match ops::merge(&repo, &plan) {
        Ok(r) => r,
        Err(e) => {
            if args.json {
                let files: &[String] = match &e {
                    WorktreeError::Conflicts { files, .. }
                    | WorktreeError::DirtyFiles { files }
                    | WorktreeError::UntrackedInTheWay { files } => files,
                    _ => &[],
                };
                ctx.out.json(&RefusedJson {
                    agent,
                    result: "refused",
                    reason: e.to_string(),
                    files,
                })?;
            }
            return Err(e.into());
        }
    };
    for w in &report.warnings {
        ctx.out.warn(w);
    }
    let (merged, behind) = (&report.merged, &report.behind);
    if !merged.uncommitted.is_empty() {
        ctx.out.warn(&format!(
            "{agent} has {} uncommitted file{} in its worktree, not part of this merge and left \
             there: {}",
            merged.uncommitted.len(),
            if merged.uncommitted.len() == 1 {
                ""
            } else {
                "s"
            },
            shown(&merged.uncommitted)
        ));
    }
    if args.json {
        ctx.out.json(&MergeJson {
            agent: &merged.agent,
            branch: &merged.branch,
            into: &merged.into,
            result: merged.kind.as_str(),
            commit: &merged.commit,
            files: &merged.files,
            updated_worktree: merged.updated.as_deref(),
            uncommitted_in_worktree: &merged.uncommitted,
            behind: behind
                .iter()
                .map(|(agent, behind)| BehindJson {
                    agent: agent.clone(),
                    behind: *behind,
                })
                .collect(),
        })?;
        return Ok(ExitCode::Success);
    }
    ctx.out.print(&text(ctx, merged, behind))?;
    Ok(ExitCode::Success)
}

fn shown(files: &[String]) -> String {
    files
        .iter()
        .map(|f| sanitize::one_line(f))
        .collect::<Vec<_>>()
        .join(", ")
}

fn text(ctx: &Context, m: &Merged, behind: &[(String, u64)]) -> String {
    let branch = sanitize::one_line(&m.branch);
    let into = ctx.out.bold(&sanitize::one_line(&m.into));
    let short = m.commit.get(..12).unwrap_or(&m.commit);
    let files = format!(
        "{} file{} changed",
        m.files.len(),
        if m.files.len() == 1 { "" } else { "s" }
    );
    let mut s = match m.kind {
        MergeKind::UpToDate => {
            format!("{into} already has everything on {branch}; nothing to merge.\n")
        }
        MergeKind::FastForward => {
            format!("Fast-forwarded {into} to {branch} ({short}): {files}.\n")
        }
        MergeKind::MergeCommit => {
            format!("Merged {branch} into {into} with merge commit {short}: {files}.\n")
        }
    };
    if let Some(path) = &m.updated {
        s.push_str(&format!(
            "Updated the files of the main worktree ({}).\n",
            path.display()
        ));
    } else if m.kind != MergeKind::UpToDate {
        s.push_str(&format!(
            "{into} is checked out nowhere: only the branch moved.\n"
        ));
    }
    if !behind.is_empty() {
        let list: Vec<String> = behind
            .iter()
            .map(|(a, n)| format!("{a} by {n} commit{}", if *n == 1 { "" } else { "s" }))
            .collect();
        s.push_str(&format!(
            "Now behind {into}: {} (`swarm changes` shows them).\n",
            list.join(", ")
        ));
    }
    s
}
