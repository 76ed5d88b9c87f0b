//! `swarm changes [--json]`: what each agent's branch holds against the
//! base (the branch checked out in the main worktree): commits ahead and
//! behind, files changed (committed, and uncommitted in its worktree), and
//! the files two or more agents changed. Each overlap that appears is told
//! to its agents once, unless `launch.tell_overlaps` is off. With
//! `--since TIME`, who committed what since then instead: the commits
//! whose `Swarm-Agent` trailer names an agent, merged or not.

use clap::Args;
use serde::Serialize;

use swarm_core::ops::{self, OverlapPlan};
use swarm_core::support::sanitize;
use swarm_core::support::time;
use swarm_core::worktrees::{self, AgentChanges, AgentHistory, Changes, Overlap, Repository};
use swarm_core::{Error, ExitCode, Result, ToldOverlap};

use crate::cli::context::Context;

/// Arguments of `swarm changes`.
#[derive(Debug, Args)]
#[command(
    after_help = "Agents launched with --worktrees work on branches swarm/<agent id>. An overlap is a \
    file changed by two or more of them; when one first appears, its agents get a CONFLICT \
    message, once (launch.tell_overlaps = false turns that off).

Commits made in an agent's worktree carry a `Swarm-Agent: <agent id>` trailer; --since \
groups them by agent, those already merged included.

Examples:
  swarm changes
  swarm changes --since 2h
  swarm changes --since 2026-05-01T09:00:00Z --json"
)]
pub(crate) struct ChangesArgs {
    /// Print the changes as JSON
    #[arg(long)]
    json: bool,
    /// What each agent committed and changed since TIME: RFC 3339 or a duration back from now (2h, 30m, 1d)
    #[arg(long, value_name = "TIME")]
    since: Option<String>,
}

impl ChangesArgs {
    /// True with `--since`, which only reads.
    pub(crate) fn only_reads(&self) -> bool {
        self.since.is_some()
    }
}

#[derive(Serialize)]
struct ChangesJson<'a> {
    base: String,
    base_commit: &'a str,
    agents: Vec<AgentJson<'a>>,
    overlaps: &'a [Overlap],
    told: Vec<ToldJson<'a>>,
}

#[derive(Serialize)]
struct ToldJson<'a> {
    path: &'a str,
    agents: &'a [String],
}

#[derive(Serialize)]
struct AgentJson<'a> {
    agent: &'a str,
    branch: &'a str,
    worktree: Option<&'a std::path::Path>,
    ahead: u64,
    behind: u64,
    files: Vec<&'a str>,
    committed: &'a [String],
    uncommitted: &'a [String],
}

/// Looks at every agent's branch, tells new overlaps, and reports.
pub(crate) fn run(ctx: &Context, args: &ChangesArgs) -> Result<ExitCode> {
    if let Some(since) = &args.since {
        return since_run(ctx, since, args.json);
    }
    let (changes, told) = look(ctx)?;
    if args.json {
        ctx.out.json(&ChangesJson {
            base: changes.base.name(),
            base_commit: &changes.base.commit,
            agents: changes.agents.iter().map(agent_json).collect(),
            overlaps: &changes.overlaps,
            told: told
                .iter()
                .map(|t| ToldJson {
                    path: &t.overlap.path,
                    agents: &t.told,
                })
                .collect(),
        })?;
        return Ok(ExitCode::Success);
    }
    ctx.out.print(&text(ctx, &changes, &told))?;
    Ok(ExitCode::Success)
}

/// The changes, and the overlaps told now: the overlaps are recorded for
/// the monitor and the dashboard, and each new one is told to its agents
/// when the config says so.
fn look(ctx: &Context) -> Result<(Changes, Vec<ToldOverlap>)> {
    let config = ctx.config()?;
    let registry = ctx.registry_or_empty()?;
    let from = config
        .launch
        .tell_overlaps
        .then_some(config.messaging.operator.as_str());
    let report = ops::notice_overlaps(ctx.op()?, &registry, &OverlapPlan::new(from))?;
    for w in &report.warnings {
        ctx.out.warn(w);
    }
    Ok((report.changes, report.told))
}

fn agent_json(a: &AgentChanges) -> AgentJson<'_> {
    AgentJson {
        agent: &a.agent,
        branch: &a.branch,
        worktree: a.worktree.as_deref(),
        ahead: a.ahead,
        behind: a.behind,
        files: a.files().into_iter().collect(),
        committed: &a.committed,
        uncommitted: &a.uncommitted,
    }
}

fn commits(n: u64) -> String {
    format!("{n} commit{}", if n == 1 { "" } else { "s" })
}

fn text(ctx: &Context, changes: &Changes, told: &[ToldOverlap]) -> String {
    let mut s = format!(
        "Base: {} ({})\n",
        ctx.out.bold(&sanitize::one_line(&changes.base.name())),
        changes
            .base
            .commit
            .get(..12)
            .unwrap_or(&changes.base.commit)
    );
    if changes.agents.is_empty() {
        s.push_str(
            "No agent branches (swarm/<agent id>): start agents with `swarm launch N --worktrees`.\n",
        );
        return s;
    }
    for a in &changes.agents {
        let place = match &a.worktree {
            Some(path) => ctx.paths.relative(path).display().to_string(),
            None => "no worktree".into(),
        };
        s.push_str(&format!(
            "\n{} {}  {} ahead, {} behind  {}\n",
            ctx.out.bold(&a.agent),
            sanitize::one_line(&a.branch),
            a.ahead,
            a.behind,
            sanitize::one_line(&place)
        ));
        let files = a.files();
        if files.is_empty() {
            s.push_str("  (no changes)\n");
        }
        for file in files {
            let committed = a.committed.iter().any(|f| f == file);
            let uncommitted = a.uncommitted.iter().any(|f| f == file);
            let mark = match (committed, uncommitted) {
                (true, true) => " (committed, and changed again since)",
                (false, true) => " (uncommitted)",
                _ => "",
            };
            s.push_str(&format!("  {}{mark}\n", sanitize::one_line(file)));
        }
    }
    let behind: Vec<String> = changes
        .agents
        .iter()
        .filter(|a| a.behind > 0)
        .map(|a| format!("{} by {}", a.agent, commits(a.behind)))
        .collect();
    if !behind.is_empty() {
        s.push_str(&format!(
            "\nBehind {}: {} (they can merge it into their branch to catch up).\n",
            sanitize::one_line(&changes.base.name()),
            behind.join(", ")
        ));
    }
    if changes.overlaps.is_empty() {
        s.push_str("\nNo overlaps: no file is changed by two agents.\n");
        return s;
    }
    s.push_str("\nOverlaps (files changed by two or more agents):\n");
    for o in &changes.overlaps {
        s.push_str(&format!(
            "  {}  {}\n",
            ctx.out.caution(&sanitize::one_line(&o.path)),
            o.agents.join(", ")
        ));
    }
    for t in told {
        s.push_str(&format!(
            "Told {} about {} (once).\n",
            t.told.join(", "),
            sanitize::one_line(&t.overlap.path)
        ));
    }
    s
}

#[derive(Serialize)]
struct SinceJson<'a> {
    since: String,
    base: String,
    agents: Vec<SinceAgentJson<'a>>,
}

#[derive(Serialize)]
struct SinceAgentJson<'a> {
    #[serde(flatten)]
    history: &'a AgentHistory,
    uncommitted: &'a [String],
}

/// `--since`: each agent's commits since then, and what it has not
/// committed yet.
fn since_run(ctx: &Context, since: &str, json: bool) -> Result<ExitCode> {
    let at = worktrees::parse_since(since, time::now()).map_err(Error::Invalid)?;
    let repo = Repository::open(ctx.paths.root())?;
    let history = worktrees::history_since(&repo, at)?;
    let now = worktrees::changes(&repo)?;
    let uncommitted = |agent: &str| -> &[String] {
        now.agents
            .iter()
            .find(|a| a.agent == agent)
            .map_or(&[], |a| a.uncommitted.as_slice())
    };
    if json {
        ctx.out.json(&SinceJson {
            since: time::utc_iso(at),
            base: now.base.name(),
            agents: history
                .iter()
                .map(|h| SinceAgentJson {
                    history: h,
                    uncommitted: uncommitted(&h.agent),
                })
                .collect(),
        })?;
        return Ok(ExitCode::Success);
    }
    let mut s = format!(
        "Since {} ({}):\n",
        time::utc_iso(at),
        time::ago(at, time::now())
    );
    if history.is_empty() {
        s.push_str("No agent committed anything (commits carry a Swarm-Agent trailer when made in an agent's worktree).\n");
    }
    for h in &history {
        let merged = h.commits.iter().filter(|c| c.merged).count();
        s.push_str(&format!(
            "\n{}  {} commit{} ({merged} merged into {}), {} file{}\n",
            ctx.out.bold(&h.agent),
            h.commits.len(),
            if h.commits.len() == 1 { "" } else { "s" },
            sanitize::one_line(&now.base.name()),
            h.files.len(),
            if h.files.len() == 1 { "" } else { "s" }
        ));
        for c in &h.commits {
            s.push_str(&format!(
                "  {} {}{}\n",
                c.commit.get(..10).unwrap_or(&c.commit),
                sanitize::one_line(&c.subject),
                if c.merged { "  (merged)" } else { "" }
            ));
        }
        for f in &h.files {
            s.push_str(&format!("    {}\n", sanitize::one_line(f)));
        }
        let open = uncommitted(&h.agent);
        if !open.is_empty() {
            s.push_str(&format!(
                "  not committed yet: {}\n",
                open.iter()
                    .map(|f| sanitize::one_line(f))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
    }
    ctx.out.print(&s)?;
    Ok(ExitCode::Success)
}
