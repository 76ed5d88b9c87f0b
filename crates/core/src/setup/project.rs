//! The pieces of `swarm init`'s guided set-up that are not printing: the
//! state of tmux, and the optional integrations (the agents' hooks, the git
//! guard) that init either sets up or names as a next step.

use crate::error::Result;
use crate::store::Paths;
use crate::tmux::{Tmux, TmuxError, Version};

/// What `swarm init` found out about tmux.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TmuxState {
    /// No `tmux` on `PATH`.
    NotInstalled,
    /// Installed, but nothing listens on the server's socket.
    NoServer {
        /// `tmux -V`.
        version: Version,
    },
    /// A server answers.
    Running {
        /// `tmux -V`.
        version: Version,
        /// How many sessions it has.
        sessions: usize,
    },
    /// tmux did something unexpected (timed out, odd output).
    Unknown(String),
}

/// Asks tmux, through the tmux seam: `tmux -V`, then `list-sessions` on
/// the configured server.
pub fn tmux_state(tmux: &Tmux) -> TmuxState {
    let version = match tmux.version() {
        Ok(v) => v.clone(),
        Err(TmuxError::NotInstalled) => return TmuxState::NotInstalled,
        Err(e) => return TmuxState::Unknown(e.to_string()),
    };
    match tmux.server_info() {
        Ok(info) => TmuxState::Running {
            version,
            sessions: info.sessions.len(),
        },
        Err(TmuxError::NoServer { .. }) => TmuxState::NoServer { version },
        Err(e) => TmuxState::Unknown(e.to_string()),
    }
}

/// An optional integration that `swarm init` offers.
#[derive(Clone, Copy, Debug)]
pub struct Integration {
    /// What it is, for the step's heading.
    pub name: &'static str,
    /// The command that sets it up on its own.
    pub command: &'static str,
    /// What it does, in one line.
    pub what: &'static str,
    /// What it changes, for a swarm run as the given shell word.
    pub changes: fn(&str) -> String,
    /// Sets it up, idempotently, saying what was done (`Created
    /// .claude/settings.json`) or was already there, or why it cannot be
    /// done here. `None` while the integration is not part of this build:
    /// init then names `command` as a next step instead of doing it.
    pub setup: Option<fn(&Paths) -> Result<SetUp>>,
}

/// What setting up an integration came to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SetUp {
    /// It is in place (put there now, or found there): what was done.
    Done(String),
    /// It cannot be set up here, and why (no git repository, no agent CLI
    /// on `PATH`); nothing was changed.
    Skipped(String),
}

fn install_agent_hooks(paths: &Paths) -> Result<SetUp> {
    use crate::hooks::install::{self, Place};
    let swarm = crate::agents::launch::swarm_invocation();
    let vendors = install::present(paths.root());
    let mut done = Vec::new();
    for vendor in vendors {
        let hooks = install::swarm_hooks(&swarm, vendor);
        let change = install::install(paths, vendor, Place::Shared, &hooks)?;
        done.push(if change.changed.is_empty() {
            format!("swarm's hooks are already in {}", change.file.display())
        } else {
            format!(
                "added {} hook(s) to {}",
                change.changed.len(),
                change.file.display()
            )
        });
    }
    Ok(SetUp::Done(done.join("; ")))
}

fn install_git_guard(paths: &Paths) -> Result<SetUp> {
    use crate::guard::{Installed, PreCommitHook};
    let dir = match crate::git::Git::new(paths.root()).hooks_dir() {
        Ok(dir) => dir,
        // Not a git repository (or no git): nothing to guard.
        Err(e) => return Ok(SetUp::Skipped(e.to_string())),
    };
    let hook = PreCommitHook::new(&dir);
    let outcome = hook.install(&crate::agents::launch::swarm_invocation())?;
    let path = hook.path().display();
    Ok(SetUp::Done(match outcome {
        Installed::Created => format!("created {path}"),
        Installed::Added => format!("added the guard to {path}"),
        Installed::AlreadyThere => format!("the guard is already in {path}"),
    }))
}

/// The integrations init offers, in order. Wiring one in means giving it
/// a `setup` function; nothing else in init changes.
pub fn integrations() -> [Integration; 3] {
    [
        Integration {
            name: "agent hooks",
            command: "swarm hooks install",
            what: "the agents' own hooks tell swarm when they need you, finish a turn or take a \
                   message (the screen stays the fallback); Claude Code also sees its new \
                   messages and the edit guard",
            changes: |swarm| {
                format!(
                    ".claude/settings.json, .codex/hooks.json, .gemini/settings.json (those of \
                     the agents present): hooks running `{swarm} hook <agent>`"
                )
            },
            setup: Some(install_agent_hooks),
        },
        Integration {
            name: "git guard",
            command: "swarm guard install",
            what: "stops a commit that touches a file another agent has locked",
            changes: |swarm| {
                format!(
                    ".git/hooks/pre-commit: a guard running `{swarm} guard check-commit` before each commit"
                )
            },
            setup: Some(install_git_guard),
        },
        Integration {
            name: "MCP server",
            command: "swarm mcp install",
            what: "lets Claude Code, Codex CLI and Gemini CLI use swarm as tools",
            changes: |_| {
                ".mcp.json (+ .claude/settings.local.json), .codex/config.toml, \
                 .gemini/settings.json: swarm's MCP server for each agent CLI on PATH, \
                 run by this binary's absolute path"
                    .to_owned()
            },
            setup: Some(install_mcp_server),
        },
    ]
}

/// Adds swarm's MCP server for each agent CLI on PATH (none found: says
/// how to name them).
fn install_mcp_server(paths: &Paths) -> Result<SetUp> {
    use crate::setup::mcp_config::{self, Client};
    let found: Vec<Client> = Client::ALL
        .into_iter()
        .filter(|c| crate::agents::launch::find_on_path(c.program()).is_some())
        .collect();
    if found.is_empty() {
        return Ok(SetUp::Skipped(
            "none of claude, codex, gemini is on PATH (name them: `swarm mcp install --claude`)"
                .into(),
        ));
    }
    let exe = std::env::current_exe().map_err(|source| crate::error::Error::Io {
        what: "find the swarm executable for the MCP server".into(),
        source,
    })?;
    let exe = exe.canonicalize().unwrap_or(exe);
    let mut done = Vec::new();
    for c in found {
        let change = mcp_config::install(paths.root(), c, &exe.to_string_lossy())?;
        let how = change.files.first().map_or("", |(_, d)| d.as_str());
        done.push(format!("{} {how}", c.name()));
    }
    Ok(SetUp::Done(done.join(", ")))
}

/// The lines of [`Paths::GITIGNORE`] that `.gitignore` at `path` lacks.
pub fn missing_gitignore_lines(path: &std::path::Path) -> Result<Vec<&'static str>> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(source) => {
            return Err(crate::error::Error::Io {
                what: format!("read {}", path.display()),
                source,
            });
        }
    };
    let have: Vec<&str> = text.lines().map(str::trim).collect();
    Ok(Paths::GITIGNORE
        .iter()
        .copied()
        .filter(|l| !have.contains(l))
        .collect())
}

/// Appends `lines` to `.gitignore` at `path` under a comment, creating it
/// when missing.
pub fn add_gitignore_lines(path: &std::path::Path, lines: &[&str]) -> Result<()> {
    use std::io::Write;
    let io = |source| crate::error::Error::Io {
        what: format!("add lines to {}", path.display()),
        source,
    };
    let needs_newline = std::fs::read(path)
        .map(|b| !b.is_empty() && !b.ends_with(b"\n"))
        .unwrap_or(false);
    let mut text = String::from(if needs_newline { "\n" } else { "" });
    text.push_str("# swarm's state files (added by `swarm init`)\n");
    for line in lines {
        text.push_str(line);
        text.push('\n');
    }
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(io)?;
    f.write_all(text.as_bytes()).map_err(io)
}
