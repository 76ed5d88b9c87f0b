//! `swarm demo-agent` (hidden): the stand-in agent. Started by `swarm
//! launch`, it knows its agent id and replies to questions with `swarm msg`.

use std::path::PathBuf;

use std::time::{Duration, Instant};

use clap::Args;

use swarm_core::agents::demo_agent;
use swarm_core::{Error, ExitCode, PaneId, Result, Server, Tmux};

/// Arguments of `swarm demo-agent`.
#[derive(Debug, Args)]
pub(crate) struct DemoAgentArgs {
    /// Append each submission to this file as a JSON line
    #[arg(long, value_name = "FILE")]
    record: Option<PathBuf>,
    /// Name shown in the banner [default: the pane id, $TMUX_PANE]
    #[arg(long)]
    name: Option<String>,
    /// Show the agent id swarm writes into the pane (`@swarm_agent`) as the
    /// name, waiting briefly for it (`swarm launch` labels its panes just
    /// after starting them)
    #[arg(long, hide = true, conflicts_with = "name")]
    name_from_label: bool,
    /// Ignore the first N Enter presses after each paste, like an agent
    /// that drops an Enter arriving too soon after a paste (for tests)
    #[arg(long, value_name = "N", default_value_t = 0, hide = true)]
    drop_enters: u32,
    /// Show the first N pastes, then lose each in a redraw before Enter,
    /// like an agent that redraws its whole screen just after it starts
    /// (for tests)
    #[arg(long, value_name = "N", default_value_t = 0, hide = true)]
    lose_pastes: u32,
    /// Take the first N submissions but leave each drawn in a stale input
    /// row for a moment, under which a question it asks already stands,
    /// like an agent whose redraw lags behind its input (for tests)
    #[arg(long, value_name = "N", default_value_t = 0, hide = true)]
    stale_box: u32,
    /// Wait this many milliseconds before drawing the prompt, like an agent
    /// that takes a while to start (for tests)
    #[arg(long, value_name = "MS", default_value_t = 0, hide = true,
          value_parser = clap::value_parser!(u64).range(0..=60_000))]
    slow_start: u64,
    /// Keep conversations in this directory, one file per conversation id
    /// (`swarm launch` passes the project's)
    #[arg(long, value_name = "DIR")]
    conversations: Option<PathBuf>,
    /// Start a new conversation with this id (refused when it exists)
    #[arg(long, value_name = "ID", requires = "conversations")]
    session_id: Option<String>,
    /// Continue the conversation with this id (refused when there is none)
    #[arg(
        long,
        value_name = "ID",
        requires = "conversations",
        conflicts_with = "session_id"
    )]
    resume: Option<String>,
    /// Listen on a messaging socket as Claude Code does: a session file
    /// under $CLAUDE_CONFIG_DIR (else ~/.claude), a socket, a transcript
    #[arg(long)]
    native: bool,
    /// With --native: write the session file but never bind the socket
    /// (for tests)
    #[arg(long, requires = "native", hide = true)]
    native_unbound: bool,
    /// With --native: drop the first N messages, removed from the queue
    /// without being taken (for tests)
    #[arg(
        long,
        value_name = "N",
        default_value_t = 0,
        requires = "native",
        hide = true
    )]
    native_drop: u32,
    /// With --native: hold every message for the person's approval, as
    /// Claude Code bypassing permissions does, and never take it (for
    /// tests)
    #[arg(long, requires = "native", hide = true)]
    native_hold: bool,
    /// With --native: take a message that comes while busy into the
    /// running turn, as Claude Code may (for tests)
    #[arg(long, requires = "native", hide = true)]
    native_absorb: bool,
    /// First ask whether to trust the directory, as the real agents do in
    /// one they have not seen (for tests)
    #[arg(long, hide = true)]
    ask_trust: bool,
}

/// This pane's `@swarm_agent` label, once it is there (at most a few
/// seconds: `launch` writes it right after it registers the panes).
fn agent_label() -> Option<String> {
    let pane: PaneId = std::env::var("TMUX_PANE").ok()?.parse().ok()?;
    let tmux = Tmux::new(Server::select(None, std::env::var_os("TMUX").as_deref()));
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        if let Ok((Some(agent), _)) = tmux.pane_labels(&pane) {
            return Some(agent);
        }
        if Instant::now() >= deadline {
            return None;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Runs the demo agent on this terminal until it is told to quit.
pub(crate) fn run(args: &DemoAgentArgs) -> Result<ExitCode> {
    std::thread::sleep(Duration::from_millis(args.slow_start));
    let label = args.name_from_label.then(agent_label).flatten();
    let name = args
        .name
        .clone()
        .or_else(|| label.clone())
        .or_else(|| std::env::var("TMUX_PANE").ok())
        .unwrap_or_else(|| "demo".into());
    let name = swarm_core::support::sanitize::one_line(&name);
    // An agent that knows its id (`swarm launch` labelled its pane) answers
    // questions with this very program.
    let program = std::env::current_exe().ok();
    let replier = match (&label, &program) {
        (Some(agent), Some(program)) => Some(demo_agent::Replier { program, agent }),
        _ => None,
    };
    let conversation = match (&args.conversations, &args.session_id, &args.resume) {
        (Some(dir), Some(id), _) => Some(demo_agent::Conversation {
            dir,
            id,
            resume: false,
        }),
        (Some(dir), None, Some(id)) => Some(demo_agent::Conversation {
            dir,
            id,
            resume: true,
        }),
        _ => None,
    };
    demo_agent::run(
        args.record.as_deref(),
        &name,
        demo_agent::Faults {
            drop_enters: args.drop_enters,
            lose_pastes: args.lose_pastes,
            stale_box: args.stale_box,
            native: args.native.then_some(demo_agent::NativeFaults {
                unbound: args.native_unbound,
                drop: args.native_drop,
                hold: args.native_hold,
                absorb: args.native_absorb,
            }),
        },
        conversation.as_ref(),
        args.ask_trust,
        replier.as_ref(),
    )
    .map_err(|source| Error::Io {
        what: "run the demo agent (it needs a terminal)".into(),
        source,
    })?;
    Ok(ExitCode::Success)
}
