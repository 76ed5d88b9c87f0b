//! `swarm limits [--json]`: the logins at their vendor's usage limit, the
//! agents that showed it and those held with them; `swarm limits clear
//! AGENT`: ends a limit swarm got wrong (its held messages then go in).

use clap::{Args, Subcommand};
use serde::Serialize;

use swarm_core::support::sanitize;
use swarm_core::{
    AgentId, Error, ExitCode, LimitRecord, Limits, Result, Timestamp, until_for_people,
};

use crate::cli::context::Context;

/// Arguments of `swarm limits`.
#[derive(Debug, Args)]
#[command(
    after_help = "An agent that shows its vendor's usage limit (Claude Code, Codex CLI, \
    Gemini CLI, or the demo agent's DEMOLIMIT60) is limited, with every agent that runs with \
    the same login (the same API key, by fingerprint, or the same configuration directory). \
    Messages to them are held (exit 7) and ACK retries wait; an urgent message from you still \
    goes in. It ends when the agent works again. At the reset, limits.on_reset says what \
    happens: notify (the default), resume (types limits.resume_prompt, then the held \
    messages go in) or off.\n\nExamples:\n  swarm limits\n  swarm limits clear agent-2"
)]
pub(crate) struct LimitsArgs {
    #[command(subcommand)]
    command: Option<LimitsCommand>,
    /// Print them as JSON
    #[arg(long)]
    json: bool,
}

#[derive(Debug, Subcommand)]
enum LimitsCommand {
    /// End AGENT's limit (and its login's) now: swarm got it wrong, or
    /// you know it is over; its held messages then go in
    Clear {
        /// The agent
        #[arg(value_name = "AGENT")]
        agent: String,
        /// Print the result as JSON
        #[arg(long)]
        json: bool,
    },
}

#[derive(Serialize)]
struct LimitJson<'a> {
    credential: &'a str,
    login: &'a str,
    vendor: &'a str,
    since: String,
    /// RFC 3339; absent when the agent printed no reset time.
    #[serde(skip_serializing_if = "Option::is_none")]
    limited_until: Option<String>,
    limited: bool,
    reset_passed: bool,
    shown: &'a str,
    /// The agents that showed it.
    showed_it: Vec<&'a str>,
    /// Every agent held with the login.
    agents: Vec<&'a str>,
}

#[derive(Serialize)]
struct ListJson<'a> {
    limits: Vec<LimitJson<'a>>,
    on_reset: &'a str,
}

#[derive(Serialize)]
struct ClearJson<'a> {
    agent: &'a str,
    cleared: bool,
    /// The other agents of its login, no longer held either.
    also: Vec<String>,
}

/// Runs `swarm limits`.
pub(crate) fn run(ctx: &Context, args: &LimitsArgs) -> Result<ExitCode> {
    match &args.command {
        Some(LimitsCommand::Clear { agent, json }) => clear(ctx, agent, *json),
        None => list(ctx, args.json),
    }
}

fn on_reset_name(ctx: &Context) -> Result<&'static str> {
    Ok(match ctx.op()?.limits.on_reset {
        swarm_core::config::OnReset::Notify => "notify",
        swarm_core::config::OnReset::Resume => "resume",
        swarm_core::config::OnReset::Off => "off",
    })
}

fn list(ctx: &Context, json: bool) -> Result<ExitCode> {
    let limits = ctx.backend()?.limits.read()?;
    let on_reset = on_reset_name(ctx)?;
    let now = Timestamp::now();
    if json {
        let items = limits
            .credentials
            .values()
            .map(|r| LimitJson {
                credential: &r.credential,
                login: &r.label,
                vendor: &r.vendor,
                since: r.since.utc_iso(),
                limited_until: r.until.map(Timestamp::utc_iso),
                limited: true,
                reset_passed: r.until.is_some_and(|u| u <= now),
                shown: &r.shown,
                showed_it: r.limited.iter().map(String::as_str).collect(),
                agents: r.agents.iter().map(String::as_str).collect(),
            })
            .collect();
        ctx.out.json(&ListJson {
            limits: items,
            on_reset,
        })?;
        return Ok(ExitCode::Success);
    }
    if limits.credentials.is_empty() {
        ctx.out.print("No agent is at its usage limit.\n")?;
        return Ok(ExitCode::Success);
    }
    let mut s = String::new();
    for r in limits.credentials.values() {
        s.push_str(&describe(r, now));
    }
    s.push_str(&format!(
        "At the reset: {on_reset} (limits.on_reset). `swarm limits clear AGENT` ends one now.\n"
    ));
    ctx.out.print(&s)?;
    Ok(ExitCode::Success)
}

fn describe(r: &LimitRecord, now: Timestamp) -> String {
    let state = match r.until {
        Some(u) if u <= now => format!("its limit reset at {}", until_for_people(u)),
        _ => r.describe(),
    };
    let mut s = format!(
        "{} login {}: {state} (since {})\n",
        r.vendor,
        sanitize::one_line(&r.label),
        until_for_people(r.since)
    );
    let showed: Vec<&str> = r.limited.iter().map(String::as_str).collect();
    s.push_str(&format!(
        "  showed it: {} (\"{}\")\n",
        showed.join(", "),
        sanitize::one_line(&r.shown)
    ));
    let held: Vec<&str> = r
        .agents
        .iter()
        .filter(|a| !r.limited.contains(*a))
        .map(String::as_str)
        .collect();
    if !held.is_empty() {
        s.push_str(&format!("  held with it: {}\n", held.join(", ")));
    }
    s
}

fn clear(ctx: &Context, agent: &str, json: bool) -> Result<ExitCode> {
    let agent = AgentId::parse(agent).map_err(|e| Error::Invalid(format!("agent: {e}")))?;
    let registry = ctx.registry_or_empty()?;
    let backend = ctx.backend()?;
    let was = backend.limits.read()?;
    if registry.find(agent.as_str()).is_none() && was.of_agent(agent.as_str()).is_none() {
        return Err(Error::UnknownAgent {
            id: agent.to_string(),
            registry: ctx.paths.registry(),
            known: registry.active().map(|a| a.id.to_string()).collect(),
        });
    }
    let mut also = Vec::new();
    let mut cleared = false;
    backend.limits.update(&mut |limits: &mut Limits| {
        also.clear();
        cleared = false;
        let id = limits
            .of_agent(agent.as_str())
            .map(|r| r.credential.clone());
        if let Some(id) = id
            && let Some(r) = limits.credentials.remove(&id)
        {
            cleared = true;
            also = r
                .agents
                .iter()
                .chain(&r.limited)
                .filter(|a| a.as_str() != agent.as_str())
                .cloned()
                .collect();
            also.sort();
            also.dedup();
            for a in r.limited {
                limits.cleared.insert(a, Timestamp::now());
            }
        }
        limits.cleared.insert(agent.to_string(), Timestamp::now());
        true
    })?;
    // Its held messages go in from the watcher.
    if cleared && let Err(e) = ctx.op()?.keep_watch() {
        ctx.out.warn(&format!(
            "could not start the watcher that types held messages in: {e} (run `swarm watcher start`)"
        ));
    }
    if json {
        ctx.out.json(&ClearJson {
            agent: agent.as_str(),
            cleared,
            also,
        })?;
    } else if cleared {
        let others = if also.is_empty() {
            String::new()
        } else {
            format!(" (and {}, which share its login)", also.join(", "))
        };
        ctx.out.print(&format!(
            "{agent}'s usage limit is cleared{others}: its held messages go in once its pane is safe.\n"
        ))?;
    } else {
        ctx.out.print(&format!(
            "{agent} is not at a usage limit swarm knows of: nothing to clear (what its screen shows now is not taken for one until it has worked).\n"
        ))?;
    }
    Ok(ExitCode::Success)
}
