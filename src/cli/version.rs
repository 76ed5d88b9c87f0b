//! `swarm version` and `swarm --version`: the version and, when built from
//! a git checkout, the commit.

use crate::error::Result;
use crate::support::exit_code::ExitCode;

use crate::cli::output::Output;

/// `0.1.0 (1a2b3c4d5e)`: the package version, then the commit when the
/// build saw one (build.rs).
pub(crate) const VERSION: &str = concat!(env!("CARGO_PKG_VERSION"), env!("SWARM_VERSION_SUFFIX"));

/// Prints `swarm <version>`.
pub(super) fn run(out: &Output) -> Result<ExitCode> {
    out.print(&format!("swarm {VERSION}\n"))?;
    Ok(ExitCode::Success)
}
