//! `swarm init`: guided set-up of a project (README, Commands, adapted): the
//! project root, a config file, tmux, the optional integrations, and the
//! commands to run next. Safe to run again: it only adds what is missing.

use std::io::{self, BufRead, IsTerminal};

use clap::Args;

use crate::config;
use crate::error::{Error, Result};
use crate::setup::project::{self, TmuxState};
use crate::store::RootSource;
use crate::support::exit_code::ExitCode;

use crate::cli::context::Context;

/// Arguments of `swarm init`.
#[derive(Debug, Args)]
pub(crate) struct InitArgs {
    /// Answer yes to every question (also the behaviour when stdin is not
    /// a terminal)
    #[arg(short, long)]
    yes: bool,
}

/// Walks through the set-up, printing each step as it goes.
pub(crate) fn run(ctx: &Context, args: &InitArgs) -> Result<ExitCode> {
    let out = &ctx.out;
    let ok = out.good("✓");
    let warn = out.caution("⚠");
    let answer = if args.yes {
        Answer::Yes("--yes")
    } else if io::stdin().is_terminal() {
        Answer::Ask
    } else {
        Answer::Yes("stdin is not a terminal")
    };
    let root = ctx.paths.root();
    out.print(&format!("{}\n\n", out.bold("=== swarm project set-up ===")))?;

    let mut s = String::from("Step 1: project root\n");
    match &ctx.root.source {
        RootSource::CurrentDir => s.push_str(&format!(
            "  {warn} no project marker (.git, pyproject.toml, package.json, ...) found: using {}\n",
            root.display()
        )),
        source => s.push_str(&format!("  {ok} {} (found by {source})\n", root.display())),
    }
    if let Ok(cwd) = std::env::current_dir()
        && cwd.canonicalize().unwrap_or(cwd.clone()) != root
    {
        s.push_str(&format!("    (you are in {})\n", cwd.display()));
    }
    out.print(&s)?;

    out.print("\nStep 2: configuration\n")?;
    match config::find(root) {
        Some(path) => match config::load_with(Some(&path), &[]) {
            Ok(_) => out.print(&format!("  {ok} {} exists and is valid\n", path.display()))?,
            Err(e) => out.print(&format!(
                "  {warn} {} exists but has {} problem(s): see `swarm config validate`\n",
                path.display(),
                e.problems().len()
            ))?,
        },
        None => {
            let path = root.join(config::DEFAULT_CONFIG_FILE);
            out.print(&format!("  {warn} no config file\n"))?;
            if confirm(ctx, answer, "Create .claudeswarm.toml with the defaults?")? {
                config::write_template(&path, false)?;
                out.print(&format!(
                    "  {ok} created {} (every key, its default and a comment)\n",
                    path.display()
                ))?;
            } else {
                out.print("  skipped: swarm uses the defaults\n")?;
            }
        }
    }

    out.print("\nStep 3: tmux\n")?;
    let tmux = project::tmux_state(&ctx.tmux);
    let server = ctx.tmux.server();
    out.print(&match &tmux {
        TmuxState::NotInstalled => format!(
            "  {} tmux is not installed (Debian/Ubuntu: apt-get install tmux, macOS: brew install tmux)\n",
            out.bad("✗")
        ),
        TmuxState::NoServer { version } => format!(
            "  {warn} tmux {version} is installed; no server is running on {server}\n"
        ),
        TmuxState::Running { version, sessions } => format!(
            "  {ok} tmux {version}: {sessions} session(s) on {server}\n"
        ),
        TmuxState::Unknown(why) => format!("  {warn} could not check tmux: {why}\n"),
    })?;

    out.print("\nStep 4: integrations\n")?;
    let mut later = Vec::new();
    for integration in project::integrations() {
        match integration.setup {
            Some(setup_fn)
                if confirm(
                    ctx,
                    answer,
                    &format!("Set up the {} ({})?", integration.name, integration.what),
                )? =>
            {
                let done = setup_fn(&ctx.paths)?;
                out.print(&format!("  {ok} {}: {done}\n", integration.name))?;
            }
            _ => {
                out.print(&format!(
                    "  - {}: set up with `{}` ({})\n",
                    integration.name, integration.command, integration.what
                ))?;
                later.push(integration);
            }
        }
    }

    let mut steps: Vec<(String, &str)> = Vec::new();
    if tmux == TmuxState::NotInstalled {
        steps.push((
            "Install tmux".into(),
            "apt-get install tmux, or brew install tmux",
        ));
    }
    steps.push((
        "swarm launch 4".into(),
        "open a tmux session with 4 agent panes (--agent claude|codex|gemini|aider|demo)",
    ));
    steps.push((
        "swarm discover".into(),
        "or: register agents already running in your own tmux panes",
    ));
    steps.push((
        "swarm msg agent-1 INFO \"hello\"".into(),
        "send a message (swarm broadcast to everyone)",
    ));
    steps.push((
        "swarm lock src/file.rs --reason \"...\"".into(),
        "take a file lock before editing; swarm unlock releases it",
    ));
    steps.push((
        "swarm monitor".into(),
        "watch agents, locks and messages live",
    ));
    for i in &later {
        steps.push((i.command.into(), i.what));
    }
    steps.push((
        "swarm coord init".into(),
        "a shared COORDINATION.md for the agents' notes",
    ));
    let width = steps.iter().map(|(c, _)| c.len()).max().unwrap_or(0);
    let mut s = format!("\n{}\n", out.bold("=== Next steps ==="));
    for (n, (command, what)) in steps.iter().enumerate() {
        s.push_str(&format!("  {}. {command:<width$}  {what}\n", n + 1));
    }
    s.push_str(&format!(
        "\nProject root: {}\nMore help:    swarm --help, swarm doctor\n",
        root.display()
    ));
    out.print(&s)?;
    Ok(ExitCode::Success)
}

/// How questions get answered.
#[derive(Clone, Copy)]
enum Answer {
    /// Ask on the terminal.
    Ask,
    /// Yes, for this reason.
    Yes(&'static str),
}

/// Asks a yes/no question on a terminal (default yes; end of input counts
/// as yes), or says why the answer is yes without asking.
fn confirm(ctx: &Context, answer: Answer, question: &str) -> Result<bool> {
    if let Answer::Yes(why) = answer {
        ctx.out.print(&format!("  ({why}: yes)\n"))?;
        return Ok(true);
    }
    ctx.out.print(&format!("  {question} [Y/n] "))?;
    let mut answer = String::new();
    let read = io::stdin()
        .lock()
        .read_line(&mut answer)
        .map_err(|source| Error::Io {
            what: "read the answer from stdin".into(),
            source,
        })?;
    if read == 0 {
        ctx.out.print("\n")?;
        return Ok(true);
    }
    Ok(matches!(
        answer.trim().to_ascii_lowercase().as_str(),
        "" | "y" | "yes"
    ))
}
