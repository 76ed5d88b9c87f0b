//! The options every command takes (`--root`, `--tmux-socket`,
//! `--color`): what the context is resolved from.

use std::ffi::OsString;
use std::path::PathBuf;

use clap::Args;

use crate::cli::output::ColorChoice;

/// Options every command takes, before or after the command name.
#[derive(Debug, Args)]
#[command(next_help_heading = "Global options")]
pub(super) struct GlobalArgs {
    /// Project root holding the state files [default: $CLAUDESWARM_ROOT,
    /// else the nearest directory with .git, .claudeswarm.yaml,
    /// ACTIVE_AGENTS.json, .agent_locks, pyproject.toml or package.json; in
    /// a linked git worktree, that directory of its main worktree]
    #[arg(
        long,
        global = true,
        value_name = "DIR",
        visible_alias = "project-root"
    )]
    pub root: Option<PathBuf>,

    /// tmux server to use: a socket name (like tmux -L) or a path
    /// containing `/` (like tmux -S) [default: the server of the current
    /// pane ($TMUX), else tmux's default]
    #[arg(
        long,
        global = true,
        env = "SWARM_TMUX_SOCKET",
        value_name = "NAME|PATH"
    )]
    pub tmux_socket: Option<OsString>,

    /// When to colour the output
    #[arg(long, global = true, value_enum, default_value_t, value_name = "WHEN")]
    pub color: ColorChoice,
}

impl GlobalArgs {
    /// The options as a run without arguments gets them: from the
    /// environment alone (`SWARM_TMUX_SOCKET`), for a run that skips the
    /// argument parser.
    pub(super) fn from_env() -> GlobalArgs {
        GlobalArgs {
            root: None,
            tmux_socket: std::env::var_os("SWARM_TMUX_SOCKET").filter(|s| !s.is_empty()),
            color: ColorChoice::default(),
        }
    }
}
