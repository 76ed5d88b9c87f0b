//! `swarm version`.

use crate::error::Result;
use crate::exit_code::ExitCode;

use super::output::Output;

/// Prints `swarm <version>`.
pub fn run(out: &Output) -> Result<ExitCode> {
    out.print(&format!("swarm {}\n", env!("CARGO_PKG_VERSION")))?;
    Ok(ExitCode::Success)
}
