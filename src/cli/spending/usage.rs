//! `swarm usage`: what each agent has spent, read from its own vendor's
//! usage records since the last look (docs/USAGE.md), with the cost where
//! the model's price is known and how it stands against the budget.

use clap::Args;

use swarm_core::support::{sanitize, time};
use swarm_core::{AgentId, AgentUsage, Error, ExitCode, Result, Tokens, UsageReport, now_secs};

use crate::cli::context::Context;

/// Arguments of `swarm usage`.
#[derive(Debug, Args)]
#[command(after_help = "\
Each agent's records are found from its pane: the agent process, its HOME (or
CLAUDE_CONFIG_DIR / CODEX_HOME), its working directory and its start time. Only
what was appended since the last look is read; .swarm/usage.json remembers how
far. Costs use the built-in prices per model, changed with [prices.MODEL] in
the config; a model without a price shows tokens only.")]
pub(crate) struct UsageArgs {
    /// Only this agent
    #[arg(long, value_name = "ID")]
    agent: Option<String>,
    /// Only usage of the last DURATION (30m, 2h, 1d; counted in quarter hours)
    #[arg(long, value_name = "DURATION")]
    since: Option<String>,
    /// Print the report as JSON (`agents`, `total`, `swarm_budget`, ...)
    #[arg(long)]
    json: bool,
}

/// The checked arguments.
struct Plan {
    agent: Option<AgentId>,
    since: Option<i64>,
}

fn plan(args: &UsageArgs) -> Result<Plan> {
    let agent = args
        .agent
        .as_deref()
        .map(AgentId::parse)
        .transpose()
        .map_err(|e| Error::Invalid(format!("--agent: {e}")))?;
    let since = match &args.since {
        None => None,
        Some(s) => {
            let d = time::parse_duration(s).map_err(|e| Error::Invalid(format!("--since: {e}")))?;
            let secs = i64::try_from(d.as_secs())
                .map_err(|_| Error::Invalid(format!("--since: {s:?} is too long ago")))?;
            Some(now_secs().saturating_sub(secs))
        }
    };
    Ok(Plan { agent, since })
}

/// Reads what is new and prints the report.
pub(crate) fn run(ctx: &Context, args: &UsageArgs) -> Result<ExitCode> {
    let plan = plan(args)?;
    let registry = ctx.registry_or_empty()?;
    let op = ctx.op()?;
    let tally = op.tally();
    let (ledger, notes) = tally.refresh(&registry, ctx.backend()?.shared_host())?;
    if let Some(agent) = &plan.agent
        && registry.find(agent.as_str()).is_none()
        && ledger.files_of(agent.as_str()).next().is_none()
    {
        return Err(Error::UnknownAgent {
            id: agent.to_string(),
            registry: ctx.paths.registry(),
            known: registry.active().map(|a| a.id.to_string()).collect(),
        });
    }
    for n in &notes {
        ctx.out.warn(n);
    }
    let standing = tally.standing(&ledger, &registry, now_secs());
    let mut report = tally.report(
        &ledger,
        &standing,
        plan.agent.as_ref().map(AgentId::as_str),
        plan.since,
    );
    // The limits reached: a feed that cannot be read leaves them out.
    if let Ok(feed) = ctx.backend()?.feed.read_all() {
        report.add_limits(&feed.entries);
    }
    if args.json {
        ctx.out.json(&report)?;
    } else {
        ctx.out.print(&render(&report))?;
    }
    Ok(ExitCode::Success)
}

fn cost(c: Option<f64>) -> String {
    c.map_or_else(|| "-".to_owned(), |c| format!("${c:.2}"))
}

fn row(name: &str, model: &str, t: &Tokens, c: Option<f64>) -> String {
    format!(
        "{name:<10} {model:<26} {:>10} {:>9} {:>11} {:>11} {:>9}\n",
        t.input,
        t.output,
        t.cache_read,
        t.cache_write,
        cost(c)
    )
}

fn render(report: &UsageReport) -> String {
    if report.agents.is_empty() {
        return "no usage recorded yet (the agents' own usage records are read from their panes)\n"
            .into();
    }
    let mut out = format!(
        "{:<10} {:<26} {:>10} {:>9} {:>11} {:>11} {:>9}\n",
        "AGENT", "MODEL", "INPUT", "OUTPUT", "CACHE READ", "CACHE WRITE", "COST"
    );
    for a in &report.agents {
        let model = sanitize::one_line(a.model.as_deref().unwrap_or("-"));
        out.push_str(&row(&a.agent, &model, &a.tokens, a.cost));
    }
    out.push_str(&row("total", "", &report.total.tokens, report.total.cost));
    for a in &report.agents {
        out.push_str(&details(a));
    }
    if !report.swarm_budget.is_empty() {
        let lines: Vec<String> = report.swarm_budget.iter().map(|l| l.describe()).collect();
        out.push_str(&format!("\nswarm budget: {}\n", lines.join(", ")));
    }
    if let Some(p) = report.period {
        out.push_str(&format!("budget period: {p}\n"));
    }
    out
}

fn details(a: &AgentUsage) -> String {
    let mut out = format!("\n{}:", a.agent);
    if !a.budget.is_empty() {
        let lines: Vec<String> = a
            .budget
            .iter()
            .map(|l| format!("{} [{}]", l.describe(), level_word(l.level)))
            .collect();
        out.push_str(&format!(" budget {}", lines.join(", ")));
    }
    out.push('\n');
    for s in &a.sessions {
        out.push_str(&format!(
            "  {} {} {} tokens {} ({} to {})\n",
            s.vendor.unwrap_or("-"),
            sanitize::one_line(&s.session),
            s.tokens.counted(),
            cost(s.cost),
            s.first.as_deref().unwrap_or("?"),
            s.last.as_deref().unwrap_or("?")
        ));
    }
    if !a.unpriced.is_empty() {
        out.push_str(&format!(
            "  no price for {} (add [prices.MODEL] to the config)\n",
            sanitize::one_line(&a.unpriced.join(", "))
        ));
    }
    if a.skipped > 0 {
        out.push_str(&format!(
            "  {} record(s) in a shape swarm does not know were skipped\n",
            a.skipped
        ));
    }
    out
}

fn level_word(level: swarm_core::BudgetLevel) -> &'static str {
    use swarm_core::BudgetLevel;
    match level {
        BudgetLevel::Ok => "ok",
        BudgetLevel::Near => "near",
        BudgetLevel::Over => "OVER",
    }
}
