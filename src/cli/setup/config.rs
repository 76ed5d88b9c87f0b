//! `swarm config`: write, show, check and edit the configuration.

mod edit;
mod file_arg;
mod init;
mod show;
mod validate;

use clap::{Args, Subcommand};

use swarm_core::{ExitCode, Result};

use crate::cli::context::Context;

/// Arguments of `swarm config`.
#[derive(Debug, Args)]
pub(crate) struct ConfigArgs {
    #[command(subcommand)]
    command: ConfigCommand,
}

#[derive(Debug, Subcommand)]
enum ConfigCommand {
    /// Write only the config file, every key commented out with its
    /// default (`swarm init` does this and the rest of a project's set-up)
    Init(init::InitArgs),
    /// Show the effective config and where each value came from
    Show(show::ShowArgs),
    /// Check a config file (and SWARM_* overrides); report every problem
    Validate(validate::ValidateArgs),
    /// Open the config file in $EDITOR, then check it
    Edit(edit::EditArgs),
}

impl ConfigArgs {
    /// True for `config show`, which shows the defaults in use when the
    /// config has problems; the others report the problems themselves.
    pub(crate) fn shows(&self) -> bool {
        matches!(self.command, ConfigCommand::Show(_))
    }
}

/// Runs the `config` subcommand.
pub(crate) fn run(ctx: &Context, args: &ConfigArgs) -> Result<ExitCode> {
    match &args.command {
        ConfigCommand::Init(a) => init::run(ctx, a),
        ConfigCommand::Show(a) => show::run(ctx, a),
        ConfigCommand::Validate(a) => validate::run(ctx, a),
        ConfigCommand::Edit(a) => edit::run(ctx, a),
    }
}
