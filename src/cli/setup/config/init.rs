//! `swarm config init`: write the default configuration, every key
//! commented out.

use std::path::PathBuf;

use clap::Args;

use swarm_core::config::{self, Format};
use swarm_core::{ExitCode, Result};

use super::file_arg::absolute;
use crate::cli::context::Context;

/// Arguments of `swarm config init`.
#[derive(Debug, Args)]
pub(super) struct InitArgs {
    /// File to write; its name picks the format (.toml, .yaml or .yml)
    /// [default: .claudeswarm.toml in the project root]
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// Replace the file if it exists
    #[arg(short, long)]
    force: bool,
}

/// Writes the file and says how to look at it.
pub(super) fn run(ctx: &Context, args: &InitArgs) -> Result<ExitCode> {
    let path = match &args.output {
        Some(p) => absolute(p)?,
        None => ctx.paths.root().join(config::DEFAULT_CONFIG_FILE),
    };
    let format = config::write_template(&path, args.force)?;
    let name = match format {
        Format::Toml => "TOML",
        Format::Yaml => "YAML",
    };
    ctx.out.print(&format!(
        "{} {} ({name}): every key commented out with its default; uncomment one to set \
         it for this project (over your own config file).\n\n\
         See the effective values: swarm config show\n\
         Edit it:                  swarm config edit\n",
        ctx.out.good("Created"),
        path.display()
    ))?;
    if let Some(found) = config::find(ctx.paths.root())
        && found != path
    {
        ctx.out.warn(&format!(
            "swarm reads {} (found first from the project root), not this file",
            found.display()
        ));
    }
    Ok(ExitCode::Success)
}
