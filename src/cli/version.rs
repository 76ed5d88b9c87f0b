//! `swarm version`.

use crate::error::Result;
use crate::support::exit_code::ExitCode;

use crate::cli::output::Output;

/// Prints `swarm <version>`.
pub(super) fn run(out: &Output) -> Result<ExitCode> {
    out.print(&format!("swarm {}\n", env!("CARGO_PKG_VERSION")))?;
    Ok(ExitCode::Success)
}
