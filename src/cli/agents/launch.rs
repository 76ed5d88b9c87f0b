//! `swarm launch N`: a tmux session with N labelled agent panes.

use std::io::IsTerminal;
use std::path::Path;
use std::time::{Duration, Instant};

use clap::{Args, ValueEnum};
use serde::Serialize;

use swarm_core::agents::demo_agent;
use swarm_core::agents::launch;
use swarm_core::agents::pane_state;
use swarm_core::agents::sessions::restart;
use swarm_core::hooks::Vendor;
use swarm_core::hooks::install;
use swarm_core::support::time;
use swarm_core::worktrees::Prepared;
use swarm_core::{
    DEMO_AGENT, Error, ExitCode, LAYOUTS, LaunchPlan, MAX_AGENTS, PaneId, RecordedState, Registry,
    Result, RootSource, Server, SessionAgent, SessionRecord, WorktreesPlan, credential_of,
};

use crate::cli::context::Context;

/// The agent CLIs `--agent` knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum AgentKind {
    /// Claude Code (`claude`)
    Claude,
    /// OpenAI Codex CLI (`codex`)
    Codex,
    /// Gemini CLI (`gemini`)
    Gemini,
    /// aider (`aider`)
    Aider,
    /// swarm's built-in demo agent: shows what it receives, needs nothing installed
    Demo,
}

/// The number of agents of `swarm launch`: 1 to `MAX_AGENTS`, the
/// refusal saying the limit in words (clap's own says `1..=16`).
fn agent_count(raw: &str) -> std::result::Result<u8, String> {
    let limit = format!(
        "at most {MAX_AGENTS} agents per session (more panes get too small to use); \
         launch another session with --session NAME for more"
    );
    match raw.trim().parse::<u64>() {
        Ok(0) => Err("give at least 1 agent".into()),
        Ok(n) if n <= u64::from(MAX_AGENTS) => u8::try_from(n).map_err(|_| limit),
        Ok(_) => Err(limit),
        Err(_) => Err(format!("a number of agents, 1 to {MAX_AGENTS}")),
    }
}

/// Arguments of `swarm launch`.
#[derive(Debug, Args)]
#[command(after_help = format!("\
Examples:
  swarm launch 2 --agent demo --session demo --no-attach   try swarm with nothing installed
  swarm launch 4 --agent claude --worktrees                each agent in a worktree of its own

The demo agent (--agent demo) shows each message it receives and acts on a few
words in it. {}", demo_agent::TRIGGER_WORDS))]
pub(crate) struct LaunchArgs {
    /// How many agent panes to open (1-16)
    #[arg(value_parser = agent_count)]
    count: u8,
    /// Agent CLI to run in every pane [default: claude]
    #[arg(long, value_enum, conflicts_with = "cmd")]
    agent: Option<AgentKind>,
    /// Shell command to run in every pane instead of a known agent
    #[arg(long, value_name = "CMD")]
    cmd: Option<String>,
    /// tmux session name [default: swarm-<project directory name>]
    #[arg(long, value_name = "NAME")]
    session: Option<String>,
    /// Pane layout
    #[arg(long, default_value = "tiled",
          value_parser = clap::builder::PossibleValuesParser::new(LAYOUTS))]
    layout: String,
    /// Do not attach to the session afterwards (never attaches without a terminal)
    #[arg(long)]
    no_attach: bool,
    /// Replace a session of the same name
    #[arg(long)]
    force: bool,
    /// Add a pane running `swarm monitor` beside the agents
    #[arg(long)]
    monitor: bool,
    /// Give each agent a git worktree of its own (.swarm/worktrees/<id>, branch swarm/<id>)
    /// [default: launch.worktrees in the config]
    #[arg(long, conflicts_with = "no_worktrees")]
    worktrees: bool,
    /// Start every agent in the project root even when launch.worktrees is set
    #[arg(long)]
    no_worktrees: bool,
    /// Print what was launched as JSON (implies --no-attach)
    #[arg(long)]
    json: bool,
    /// Without attaching: wait up to this many seconds for every agent to
    /// draw its prompt before returning (0: do not wait)
    #[arg(long, value_name = "SECONDS", default_value_t = 30,
          value_parser = clap::value_parser!(u64).range(0..=600))]
    ready_timeout: u64,
}

#[derive(Serialize)]
struct LaunchedAgent<'a> {
    id: &'a str,
    pane: &'a str,
    pane_index: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    worktree: Option<WorktreeReport<'a>>,
    /// Its screen reads as a known state (its prompt is drawn); false:
    /// still starting when launch returned.
    ready: bool,
    /// It showed a dialog when launch returned (an agent in a new
    /// worktree asks whether to trust it), which someone must answer.
    dialog: bool,
}

#[derive(Serialize)]
struct WorktreeReport<'a> {
    path: &'a Path,
    branch: &'a str,
    created: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    setup: Option<SetupReport<'a>>,
    slot: u32,
    port: u16,
    ports: u16,
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    included: &'a [String],
}

#[derive(Serialize)]
struct SetupReport<'a> {
    ok: bool,
    status: &'a str,
    #[serde(skip_serializing_if = "str::is_empty")]
    output: &'a str,
}

impl<'a> WorktreeReport<'a> {
    fn of(p: &'a Prepared) -> WorktreeReport<'a> {
        WorktreeReport {
            path: &p.path,
            branch: &p.branch,
            created: p.created,
            setup: p.setup.as_ref().map(|s| SetupReport {
                ok: s.ok,
                status: &s.status,
                output: &s.output_tail,
            }),
            slot: p.workspace.slot,
            port: p.workspace.port,
            ports: p.workspace.ports,
            included: &p.included,
        }
    }
}

#[derive(Serialize)]
struct LaunchReport<'a> {
    session: &'a str,
    command: &'a str,
    agents: Vec<LaunchedAgent<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    monitor: Option<&'a str>,
    attach: String,
    stop: String,
}

/// Turns the arguments into a plan, launches, records the session,
/// reports and attaches.
pub(crate) fn run(ctx: &Context, args: &LaunchArgs) -> Result<ExitCode> {
    let (plan, agents) = plan(ctx, args)?;
    warn_if_limited(ctx, &agents.kind);
    if ctx.root.source == RootSource::CurrentDir {
        let dir = ctx.paths.root().display();
        ctx.out.warn(&format!(
            "no project marker (.git, .claudeswarm.yaml, pyproject.toml, package.json, ...) \
             in {dir} or its parents, so the current directory is used as the project root: \
             ACTIVE_AGENTS.json and .swarm/ go in {dir}\n  \
             (if the project is elsewhere, run swarm there, pass --root DIR or set CLAUDESWARM_ROOT; to make this \
             directory the root, run `git init` in it)"
        ));
    }
    let matcher = ctx.matcher()?;
    let opts = ctx.discover_options(None)?;
    let launched = launch::launch(
        &ctx.tmux,
        ctx.backend()?.registry.as_ref(),
        &ctx.paths,
        &matcher,
        &opts,
        &plan,
    )?;
    for w in &launched.discovery.warnings {
        ctx.out.warn(w);
    }
    if let Ok(op) = ctx.op() {
        for w in op.record_roster(&launched.discovery, false) {
            ctx.out.warn(&w);
        }
    }
    for p in &launched.worktrees {
        if let Some(setup) = p.setup.as_ref().filter(|s| !s.ok) {
            let mut text = format!(
                "the worktree setup command failed in {} ({}); {} starts there anyway",
                ctx.paths.relative(&p.path).display(),
                setup.status,
                p.agent
            );
            for line in setup.output_tail.lines() {
                text.push_str(&format!("\n  | {line}"));
            }
            ctx.out.warn(&text);
        }
    }
    if let Some(w) = missing_hooks(ctx, &agents.kind, &launched.worktrees) {
        ctx.out.warn(&w);
    }
    for pane in &launched.vanished {
        ctx.out.warn(&format!(
            "pane {pane} closed right away: check that `{}` runs in {}",
            agents.command,
            ctx.paths.root().display()
        ));
    }
    let record = agents.record(ctx, &plan, &launched)?;
    ctx.backend()?.sessions.put(&record)?;
    // The watcher raises attention events and types held messages in
    // while nobody runs a command.
    if let Err(e) = ctx.op().and_then(|op| op.keep_watch()) {
        ctx.out.warn(&format!(
            "could not start the project's watcher: {e} (run `swarm watch` in a terminal of its own)"
        ));
    }
    let interactive = std::io::stdin().is_terminal() && std::io::stdout().is_terminal();
    let attaching = !(args.no_attach || args.json || !interactive);
    // Returning before the agents have drawn their prompts would leave the
    // first message held ("no input box"): wait for them, unless the
    // person is about to watch them start.
    let (starting, asking) = if attaching || args.ready_timeout == 0 {
        (Vec::new(), Vec::new())
    } else {
        wait_until_ready(
            ctx,
            &launched.agents,
            &launched.discovery.registry,
            Duration::from_secs(args.ready_timeout),
        )?
    };
    let attach_cmd = attach_command(ctx.tmux.server(), &launched.session);
    let stop_cmd = stop_command(ctx.tmux.server(), ctx.paths.root(), &launched.session);
    let registry = &launched.discovery.registry;
    let address = |pane: &str| {
        registry
            .find_by_pane(pane)
            .map(|a| a.pane_index.clone())
            .unwrap_or_default()
    };
    let worktree_of = |id: &str| launched.worktrees.iter().find(|p| p.agent == id);
    if args.json {
        ctx.out.json(&LaunchReport {
            session: &launched.session,
            command: &agents.command,
            agents: launched
                .agents
                .iter()
                .map(|(pane, id)| LaunchedAgent {
                    id,
                    pane: pane.as_str(),
                    pane_index: address(pane.as_str()),
                    worktree: worktree_of(id).map(WorktreeReport::of),
                    ready: !starting.contains(id),
                    dialog: asking.contains(id),
                })
                .collect(),
            monitor: launched.monitor.as_ref().map(|p| p.as_str()),
            attach: attach_cmd,
            stop: stop_cmd,
        })?;
        return Ok(ExitCode::Success);
    }
    let mut s = format!(
        "Launched tmux session {} with {} agent{}:\n",
        ctx.out.bold(&launched.session),
        launched.agents.len(),
        if launched.agents.len() == 1 { "" } else { "s" }
    );
    for (pane, id) in &launched.agents {
        let mut line = format!("  {id:<10} {:<5} {}", pane.as_str(), address(pane.as_str()));
        if let Some(p) = worktree_of(id) {
            line.push_str(&format!(
                "  {} ({}{})",
                ctx.paths.relative(&p.path).display(),
                p.branch,
                if p.created { "" } else { ", reused" }
            ));
        }
        if starting.contains(id) {
            line.push_str("  (still starting)");
        } else if asking.contains(id) {
            line.push_str("  (asks something)");
        }
        s.push_str(&line);
        s.push('\n');
    }
    if !starting.is_empty() {
        s.push_str(&format!(
            "{} still starting after {}s: `swarm agents` shows when each is ready; a message sent meanwhile is held and goes in by itself once its prompt is drawn.\n",
            starting.join(", "),
            args.ready_timeout
        ));
    }
    if !asking.is_empty() {
        s.push_str(&format!(
            "{} {} a dialog{}: answer with `swarm answer ID yes` (or no), in the monitor or the dashboard, \
             or in the pane; `swarm peek ID` shows it. Messages to {} wait until it is answered.\n",
            asking.join(", "),
            if asking.len() == 1 { "shows" } else { "show" },
            if launched.worktrees.is_empty() {
                ""
            } else {
                " (an agent in a new worktree asks whether to trust the directory)"
            },
            if asking.len() == 1 { "it" } else { "them" },
        ));
    }
    if let Some(pane) = &launched.monitor {
        s.push_str(&format!("  {:<10} {}\n", "monitor", pane.as_str()));
    }
    if !attaching {
        s.push_str(&format!(
            "\nAttach with: {attach_cmd}\nStop with:   {stop_cmd}\n"
        ));
        ctx.out.print(&s)?;
        return Ok(ExitCode::Success);
    }
    ctx.out.print(&s)?;
    ctx.tmux.attach(&launched.session)?;
    Ok(ExitCode::Success)
}

/// What `launch` starts in each pane, as the session record keeps it.
/// A warning when the agents just launched are of a program whose hooks
/// swarm installs but their project settings (the project's, or each
/// worktree's) hold none: swarm then learns of them from their screens
/// alone, later.
fn missing_hooks(ctx: &Context, kind: &str, worktrees: &[Prepared]) -> Option<String> {
    let vendor = Vendor::parse(kind)?;
    let roots: Vec<&Path> = if worktrees.is_empty() {
        vec![ctx.paths.root()]
    } else {
        worktrees.iter().map(|p| p.path.as_path()).collect()
    };
    let lacking = roots
        .iter()
        .any(|root| install::installed_events(&swarm_core::Paths::new(*root), vendor).is_empty());
    lacking.then(|| {
        format!(
            "{} here has no swarm hooks: swarm learns that an agent needs you or finished from \
             its screen alone, later. Run `swarm hooks install --{vendor}`, then restart the \
             agents (`swarm launch --force`)",
            vendor.product()
        )
    })
}

struct Starting {
    /// The profile of the agents' program (`custom` for `--cmd`).
    kind: String,
    /// The command that starts one afresh.
    command: String,
    /// The conversation id chosen for each pane, in pane order.
    conversations: Vec<Option<String>>,
}

impl Starting {
    /// The record of the session `launched` opened.
    fn record(
        &self,
        ctx: &Context,
        plan: &LaunchPlan,
        launched: &launch::Launched,
    ) -> Result<SessionRecord> {
        let cwd = ctx.paths.root().to_string_lossy().into_owned();
        let agents = launched
            .opened
            .iter()
            .zip(&self.conversations)
            .filter_map(|(pane, conversation)| {
                let (_, id) = launched.agents.iter().find(|(p, _)| p == pane)?;
                // An agent in a worktree of its own comes back there.
                let cwd = launched
                    .worktrees
                    .iter()
                    .find(|w| w.agent.as_str() == id.as_str())
                    .map_or(cwd.clone(), |w| w.path.to_string_lossy().into_owned());
                Some(SessionAgent {
                    id: id.clone(),
                    kind: self.kind.clone(),
                    command: self.command.clone(),
                    cwd,
                    conversation: conversation.clone(),
                })
            })
            .collect();
        Ok(SessionRecord {
            name: launched.session.clone(),
            state: RecordedState::Running,
            layout: plan.layout.clone(),
            cwd,
            host: ctx.backend()?.shared_host().map(str::to_owned),
            monitor: plan.monitor.is_some(),
            launched_at: time::utc_iso(time::now()),
            resumed_at: None,
            stopped_at: None,
            agents,
        })
    }
}

/// The demo agent's command: this very binary, its conversations kept in
/// the project.
pub(super) fn demo_command(ctx: &Context) -> Result<String> {
    let exe = std::env::current_exe().map_err(|source| Error::Io {
        what: "find the swarm executable for the demo agent".into(),
        source,
    })?;
    Ok(format!(
        "{} demo-agent --name-from-label --conversations {}",
        launch::shell_quote(&exe.to_string_lossy()),
        launch::shell_quote(&ctx.paths.demo_conversations().to_string_lossy())
    ))
}

/// A Codex pane's command: this very binary starts Codex's app server
/// and the TUI against it (`swarm codex-pane`), so that messages reach it
/// as turns of their own rather than typed keys.
pub(super) fn codex_command(program: &str) -> Result<String> {
    let exe = std::env::current_exe().map_err(|source| Error::Io {
        what: "find the swarm executable for the Codex pane".into(),
        source,
    })?;
    Ok(format!(
        "{} {} -- {}",
        launch::shell_quote(&exe.to_string_lossy()),
        swarm_core::CODEX_PANE_COMMAND,
        launch::shell_quote(program)
    ))
}

/// The monitor pane's command.
pub(super) fn monitor_command(ctx: &Context) -> Result<String> {
    let exe = std::env::current_exe().map_err(|source| Error::Io {
        what: "find the swarm executable for the monitor pane".into(),
        source,
    })?;
    // `exec`: the pane is the monitor, and closes when it quits. The root
    // is passed on so that the pane shows this project even when it was
    // given with --root.
    Ok(format!(
        "exec {} monitor --root {}",
        launch::shell_quote(&exe.to_string_lossy()),
        launch::shell_quote(&ctx.paths.root().to_string_lossy())
    ))
}

/// Warns, before anything starts, when the new agents would run with a
/// login that is at its usage limit (they start in this environment).
fn warn_if_limited(ctx: &Context, profile: &str) {
    let env: Vec<(String, String)> = std::env::vars().collect();
    let Some(login) = credential_of(profile, &env) else {
        return;
    };
    let Ok(limits) = ctx.backend().and_then(|b| Ok(b.limits.read()?)) else {
        return;
    };
    if let Some(r) = limits.credentials.get(&login.id) {
        let showed: Vec<&str> = r.limited.iter().map(String::as_str).collect();
        ctx.out.warn(&format!(
            "the new agents log in as {} ({}), which is {} ({} showed it): messages to them are \
             held until it resets (`swarm limits`)",
            r.vendor,
            login.label,
            r.describe(),
            showed.join(", ")
        ));
    }
}

fn plan(ctx: &Context, args: &LaunchArgs) -> Result<(LaunchPlan, Starting)> {
    let session = match &args.session {
        Some(name) => launch::session_name(name)?,
        None => launch::default_session_name(ctx.paths.root()),
    };
    let command = match (&args.cmd, args.agent) {
        (Some(cmd), _) if cmd.trim().is_empty() => {
            return Err(Error::Invalid("--cmd cannot be empty".into()));
        }
        (Some(cmd), _) => cmd.clone(),
        (None, Some(AgentKind::Demo)) => demo_command(ctx)?,
        (None, kind) => {
            let program = match kind.unwrap_or(AgentKind::Claude) {
                AgentKind::Claude | AgentKind::Demo => "claude",
                AgentKind::Codex => "codex",
                AgentKind::Gemini => "gemini",
                AgentKind::Aider => "aider",
            };
            if launch::find_on_path(program).is_none() {
                return Err(Error::NotInstalled {
                    command: program.into(),
                    hint: format!(
                        "install it, choose another agent with --agent, run any command with --cmd, \
                         or try the built-in demo agent: `swarm launch {} --agent demo`",
                        args.count
                    ),
                });
            }
            match kind.unwrap_or(AgentKind::Claude) {
                AgentKind::Codex => codex_command(program)?,
                _ => program.to_owned(),
            }
        }
    };
    let monitor = if args.monitor {
        Some(monitor_command(ctx)?)
    } else {
        None
    };
    let profiles = ctx.profiles()?;
    let kind = match (&args.cmd, args.agent) {
        (Some(_), _) => restart::CUSTOM.to_owned(),
        (None, Some(AgentKind::Demo)) => profiles.name_for(DEMO_AGENT).to_owned(),
        (None, kind) => profiles
            .name_for(match kind.unwrap_or(AgentKind::Claude) {
                AgentKind::Claude | AgentKind::Demo => "claude",
                AgentKind::Codex => "codex",
                AgentKind::Gemini => "gemini",
                AgentKind::Aider => "aider",
            })
            .to_owned(),
    };
    let (commands, conversations): (Vec<String>, Vec<Option<String>>) = (0..args.count)
        .map(|_| restart::fresh(&profiles, &kind, &command))
        .unzip();
    let starting = Starting {
        kind,
        command,
        conversations,
    };
    let launch = &ctx.config()?.launch;
    let worktrees =
        (args.worktrees || (launch.worktrees && !args.no_worktrees)).then(|| WorktreesPlan {
            setup: launch.worktree_setup.clone(),
            ports_per_agent: launch.ports_per_agent,
            settings: Some(install::copy_to_worktree),
        });
    let plan = LaunchPlan {
        commands,
        session,
        layout: args.layout.clone(),
        force: args.force,
        monitor,
        worktrees,
    };
    Ok((plan, starting))
}

/// The shell command that attaches to the session on our server.
/// `swarm down` for this session, runnable as printed from any directory:
/// it names the project root and (unless it comes from `$TMUX`) the
/// server, since the person typing it may be elsewhere.
pub(super) fn stop_command(server: &Server, root: &Path, session: &str) -> String {
    let mut parts = vec![
        launch::swarm_invocation(),
        "--root".into(),
        launch::shell_quote(&root.to_string_lossy()),
    ];
    match server {
        Server::Named(name) => {
            parts.extend(["--tmux-socket".into(), launch::shell_quote(name)]);
        }
        Server::Socket(path) => {
            parts.extend([
                "--tmux-socket".into(),
                launch::shell_quote(&path.to_string_lossy()),
            ]);
        }
        Server::Default | Server::Inherited(_) => {}
    }
    parts.extend([
        "down".into(),
        "--session".into(),
        launch::shell_quote(session),
    ]);
    parts.join(" ")
}

pub(super) fn attach_command(server: &Server, session: &str) -> String {
    let mut parts = vec!["tmux".to_owned()];
    if !matches!(server, Server::Inherited(_)) {
        parts.extend(
            server
                .args()
                .iter()
                .map(|a| launch::shell_quote(&a.to_string_lossy())),
        );
    }
    parts.push("attach".into());
    parts.push("-t".into());
    parts.push(launch::shell_quote(session));
    parts.join(" ")
}

/// How often readiness is looked at.
const READY_POLL: Duration = Duration::from_millis(100);

/// How long a pane may show its shell before its agent starts.
const SHELL_GRACE: Duration = Duration::from_secs(3);

/// Waits until every launched agent's screen reads as a known state (its
/// prompt drawn, or a dialog it opened at start), at most `timeout`;
/// returns the ids of those still starting, and of those showing a dialog
/// (as the real agents ask whether to trust a directory they have not
/// seen). Agents whose profile does not read screens are ready once their
/// program runs; a pane that runs no agent at all (`--cmd` with some other
/// program) is not waited for, nor one whose shell is still in front after
/// a few seconds.
pub(super) fn wait_until_ready(
    ctx: &Context,
    agents: &[(PaneId, String)],
    registry: &Registry,
    timeout: Duration,
) -> Result<(Vec<String>, Vec<String>)> {
    let matcher = ctx.matcher()?;
    let profiles = ctx.profiles()?;
    let started = Instant::now();
    let deadline = started + timeout;
    loop {
        let records: Vec<_> = agents
            .iter()
            .filter_map(|(pane, _)| registry.find_by_pane(pane.as_str()))
            .collect();
        let states = pane_state::observe(&ctx.tmux, &matcher, &profiles, &records, None);
        let starting: Vec<String> = records
            .iter()
            .zip(&states)
            .filter(|(_, s)| match s.state.as_str() {
                "unknown" => true,
                // The pane's shell before it execs the agent.
                "shell" => started.elapsed() < SHELL_GRACE,
                _ => false,
            })
            .map(|(a, _)| a.id.to_string())
            .collect();
        if starting.is_empty() || Instant::now() >= deadline {
            let asking = records
                .iter()
                .zip(&states)
                .filter(|(_, s)| s.state == "dialog")
                .map(|(a, _)| a.id.to_string())
                .collect();
            return Ok((starting, asking));
        }
        std::thread::sleep(READY_POLL);
    }
}
