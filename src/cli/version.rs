//! `swarm version` and `swarm --version`: the version and, when built from
//! a git checkout, the commit.

use swarm_core::error::Result;
use swarm_core::support::exit_code::ExitCode;

use crate::cli::build_info::VERSION;
use crate::cli::output::Output;

/// Prints `swarm <version>`.
pub(super) fn run(out: &Output) -> Result<ExitCode> {
    out.print(&format!("swarm {VERSION}\n"))?;
    Ok(ExitCode::Success)
}
