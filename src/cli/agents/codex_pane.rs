//! `swarm codex-pane -- codex ARGS` (hidden): what a Codex pane swarm
//! starts runs. Codex's app server on a socket of the pane's own, the TUI
//! against it, the server stopped when the TUI ends (docs/AGENTS.md).

use std::io::Write;

use clap::Args;

use swarm_core::{Error, ExitCode, Result, run_codex_pane};

/// Arguments of `swarm codex-pane`.
#[derive(Debug, Args)]
pub(crate) struct CodexPaneArgs {
    /// The Codex program and the TUI's arguments
    #[arg(required = true, last = true, value_name = "CODEX ARGS")]
    command: Vec<String>,
}

/// Runs the pane; exits as the TUI did.
pub(crate) fn run(args: &CodexPaneArgs) -> Result<ExitCode> {
    let (program, rest) = args
        .command
        .split_first()
        .ok_or_else(|| Error::Invalid("give the Codex program after --".into()))?;
    // Shown in the pane, above the TUI that starts next.
    let mut warn = |text: &str| {
        let _ = writeln!(std::io::stderr(), "swarm: warning: {text}");
    };
    let code = run_codex_pane(program, rest, &mut warn).map_err(|source| Error::Io {
        what: format!("run {program} behind its app server"),
        source,
    })?;
    Ok(if code == 0 {
        ExitCode::Success
    } else {
        ExitCode::Failure
    })
}
