//! `swarm config validate`: check a config file and the `SWARM_*`
//! overrides, and report every problem (not just the first).

use std::path::PathBuf;

use clap::Args;

use crate::config::{self, Origin};
use crate::error::{Error, Result};
use crate::support::exit_code::ExitCode;

use super::file_arg::absolute;
use crate::cli::context::Context;

/// Arguments of `swarm config validate`.
#[derive(Debug, Args)]
pub(super) struct ValidateArgs {
    /// Check this file instead of the one found from the project root
    #[arg(long, value_name = "FILE")]
    file: Option<PathBuf>,
}

/// Checks; every problem is an error line (exit 1).
pub(super) fn run(ctx: &Context, args: &ValidateArgs) -> Result<ExitCode> {
    let path = match &args.file {
        Some(f) => absolute(f)?,
        None => config::find(ctx.paths.root()).ok_or_else(|| Error::NoConfigFile {
            root: ctx.paths.root().to_owned(),
        })?,
    };
    ctx.out.print(&format!("Validating {}\n", path.display()))?;
    let loaded = config::load_with(Some(&path), &config::process_env())?;
    let mut s = format!(
        "{} every key known, every value of the right type and in range\n",
        ctx.out.good("✓")
    );
    let vars: Vec<&str> = loaded
        .origins
        .iter()
        .filter_map(|(_, o)| match o {
            Origin::Env(var) => Some(var.as_str()),
            _ => None,
        })
        .collect();
    if !vars.is_empty() {
        s.push_str(&format!(
            "{} overridden by the environment: {}\n",
            ctx.out.good("✓"),
            vars.join(", ")
        ));
    }
    ctx.out.print(&s)?;
    Ok(ExitCode::Success)
}
