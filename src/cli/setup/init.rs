//! `swarm init`: guided set-up of a project (docs/guide/reference.md, Commands, adapted): the
//! project root, a config file, tmux, the optional integrations, and the
//! commands to run next. Safe to run again: it only adds what is missing.

use std::io::{self, BufRead, IsTerminal};

use clap::Args;

use swarm_core::agents::launch;
use swarm_core::config;
use swarm_core::setup::project::{self, SetUp, TmuxState};
use swarm_core::{Error, ExitCode, Result, RootSource};

use crate::cli::context::Context;

/// Arguments of `swarm init`.
#[derive(Debug, Args)]
#[command(
    after_help = "What init may change, each asked first on a terminal:\n  \
    .claudeswarm.toml         the config file, every key commented out with its default\n  \
    .claude/settings.json     the agents' own hooks, running `swarm hook <agent>` (also .codex/hooks.json and\n  \
                              .gemini/settings.json for the agents present): they tell swarm when an agent\n  \
                              needs you or ends a turn; Claude Code also gets its new messages and the edit guard\n  \
    .git/hooks/pre-commit     a guard refusing commits that touch files other agents locked\n  \
    .gitignore                lines for swarm's state files\n\
Without a terminal (and without --yes) only the config file is created; the rest is listed with the command that does it.\n\
The hooks run swarm as `swarm` when the swarm on PATH is this binary, else by its absolute path; `swarm doctor` warns when that path is gone."
)]
pub(crate) struct InitArgs {
    /// Answer yes to every question, including the hooks and .gitignore
    /// (without a terminal and without --yes, only the config file is
    /// created)
    #[arg(short, long)]
    yes: bool,
}

/// Walks through the set-up, printing each step as it goes.
pub(crate) fn run(ctx: &Context, args: &InitArgs) -> Result<ExitCode> {
    let out = &ctx.out;
    let ok = out.good("✓");
    let warn = out.caution("⚠");
    let answer = if args.yes {
        Answer::Yes
    } else if io::stdin().is_terminal() {
        Answer::Ask
    } else {
        Answer::SafeOnly
    };
    let root = ctx.paths.root();
    let swarm = launch::swarm_invocation();
    let mut done: Vec<String> = Vec::new();
    let mut skipped: Vec<&str> = Vec::new();
    out.print(&format!("{}\n\n", out.bold("=== swarm project set-up ===")))?;
    let mut s = format!(
        "This may change, in {}:\n  - .claudeswarm.toml: the config file, when there is none\n",
        root.display()
    );
    for i in project::integrations() {
        s.push_str(&format!("  - {}\n", (i.changes)(&swarm)));
    }
    s.push_str("  - .gitignore: lines for swarm's state files\n");
    s.push_str(match answer {
        Answer::Ask => "Each is asked first.\n\n",
        Answer::Yes => "--yes: all of it, where missing.\n\n",
        // Said once here; the steps below do not repeat it.
        Answer::SafeOnly => {
            "stdin is not a terminal, so nothing is asked: only the config file is created \
             (where missing); run `swarm init --yes` for the rest.\n\n"
        }
    });
    out.print(&s)?;

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
            if confirm(
                ctx,
                answer,
                "Create .claudeswarm.toml with the defaults?",
                true,
            )? {
                config::write_template(&path, false)?;
                done.push(format!("created {}", path.display()));
                out.print(&format!(
                    "  {ok} created {} (every key commented out with its default: your own \
                     ~/.config/swarm/config.toml stays in force until a key is set here)\n",
                    path.display()
                ))?;
            } else {
                out.print("  - skipped: swarm uses the defaults\n")?;
                skipped.push("config file");
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
                    &format!(
                        "Set up the {} ({})?",
                        integration.name,
                        (integration.changes)(&swarm)
                    ),
                    false,
                )? =>
            {
                match setup_fn(&ctx.paths)? {
                    SetUp::Done(what) => {
                        out.print(&format!("  {ok} {}: {what}\n", integration.name))?;
                        done.push(format!("{}: {what}", integration.name));
                    }
                    SetUp::Skipped(why) => {
                        out.print(&format!("  - {}: skipped: {why}\n", integration.name))?;
                        skipped.push(integration.name);
                    }
                }
            }
            _ => {
                out.print(&format!(
                    "  - {}: set up with `{}` ({})\n",
                    integration.name, integration.command, integration.what
                ))?;
                skipped.push(integration.name);
                later.push(integration);
            }
        }
    }

    out.print("\nStep 5: .gitignore\n")?;
    let gitignore = root.join(".gitignore");
    let missing = project::missing_gitignore_lines(&gitignore)?;
    if missing.is_empty() {
        out.print(&format!(
            "  {ok} .gitignore already keeps swarm's state files out of git\n"
        ))?;
    } else {
        let mut s = String::from("  Lines that keep swarm's state files out of `git status`:\n");
        for line in &missing {
            s.push_str(&format!("    {line}\n"));
        }
        out.print(&s)?;
        if confirm(ctx, answer, "Add them to .gitignore?", false)? {
            project::add_gitignore_lines(&gitignore, &missing)?;
            out.print(&format!(
                "  {ok} added {} lines to {}\n",
                missing.len(),
                gitignore.display()
            ))?;
            done.push(format!(
                "added {} lines to {}",
                missing.len(),
                gitignore.display()
            ));
        } else {
            out.print("  - skipped: add them yourself, or run `swarm init --yes`\n")?;
            skipped.push(".gitignore lines");
        }
    }

    let mut s = format!("\n{}\n", out.bold("=== Done ==="));
    if done.is_empty() {
        s.push_str("  nothing changed\n");
    }
    for d in &done {
        s.push_str(&format!("  {ok} {d}\n"));
    }
    if !skipped.is_empty() {
        s.push_str(&format!("  - skipped: {}\n", skipped.join(", ")));
    }
    out.print(&s)?;

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
    /// Yes to everything (`--yes`).
    Yes,
    /// No terminal to ask on: yes to what only adds a file of swarm's own,
    /// no to what changes how other programs behave.
    SafeOnly,
}

/// Asks a yes/no question on a terminal (default yes; end of input counts
/// as yes), or answers it without asking: with --yes, saying so; without
/// a terminal silently, since the set-up said once what it does then.
/// `safe` marks a change done even without a terminal.
fn confirm(ctx: &Context, answer: Answer, question: &str, safe: bool) -> Result<bool> {
    match answer {
        Answer::Yes => {
            ctx.out.print("  (--yes: yes)\n")?;
            return Ok(true);
        }
        Answer::SafeOnly => return Ok(safe),
        Answer::Ask => {}
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
