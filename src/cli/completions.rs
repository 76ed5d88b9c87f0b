//! `swarm completions SHELL`: a completion script for the shell.

use clap::{Args, Command};
use clap_complete::Shell;

use swarm_core::{ExitCode, Result};

use crate::cli::output::Output;

/// Arguments of `swarm completions`.
#[derive(Debug, Args)]
#[command(after_help = "Install, for example:
  bash: swarm completions bash > ~/.local/share/bash-completion/completions/swarm
  zsh:  swarm completions zsh > ~/.zfunc/_swarm   (with ~/.zfunc in $fpath)
  fish: swarm completions fish > ~/.config/fish/completions/swarm.fish")]
pub(super) struct CompletionsArgs {
    /// The shell
    #[arg(value_enum)]
    shell: Shell,
}

/// Prints the script for `swarm`, the definition of the whole command
/// line.
pub(super) fn run(out: &Output, args: &CompletionsArgs, mut swarm: Command) -> Result<ExitCode> {
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut swarm, "swarm", &mut script);
    out.print(&String::from_utf8_lossy(&script))?;
    Ok(ExitCode::Success)
}
