//! `swarm config validate`: check a config file, the per-user file and the
//! `SWARM_*` overrides, and report every problem (not just the first);
//! what is ignored (a secret in a project's file) is a warning, not a
//! failure.

use std::path::PathBuf;

use clap::Args;

use swarm_core::config::{self, Origin};
use swarm_core::{Error, ExitCode, Result};

use super::file_arg::absolute;
use crate::cli::context::Context;

/// Arguments of `swarm config validate`.
#[derive(Debug, Args)]
pub(super) struct ValidateArgs {
    /// Check this file instead of the one found from the project root
    #[arg(long, value_name = "FILE")]
    file: Option<PathBuf>,
}

/// Checks; every problem is an error line (exit 1), every value ignored a
/// warning.
pub(super) fn run(ctx: &Context, args: &ValidateArgs) -> Result<ExitCode> {
    let env = config::process_env();
    let user_file = config::user_file(&env).filter(|u| u.is_file());
    // With no project file, the user's own is the one to check.
    let path = match &args.file {
        Some(f) => absolute(f)?,
        None => config::find(ctx.paths.root())
            .or_else(|| user_file.clone())
            .ok_or_else(|| Error::NoConfigFile {
                root: ctx.paths.root().to_owned(),
            })?,
    };
    let mut s = format!("Validating {}\n", path.display());
    if let Some(user) = user_file.filter(|u| *u != path) {
        s.push_str(&format!(
            "Validating {} (your own settings)\n",
            user.display()
        ));
    }
    ctx.out.print(&s)?;
    let loaded = config::load_with(Some(&path), &env)?;
    for warning in &loaded.warnings {
        ctx.out.warn(warning);
    }
    s = format!(
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
