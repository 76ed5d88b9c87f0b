//! `swarm version` and `swarm --version`: the version and, when built from
//! a git checkout, the commit.

use std::ffi::OsString;

use swarm_core::{ExitCode, Result};

use crate::cli::build_info::VERSION;
use crate::cli::output::Output;

/// Prints `swarm <version>`: the line clap prints for `--version` and
/// `-V` (from `Cli`'s `version`).
pub(super) fn run(out: &Output) -> Result<ExitCode> {
    out.print(&format!("swarm {VERSION}\n"))?;
    Ok(ExitCode::Success)
}

/// True when the command line is exactly `swarm version`, `swarm
/// --version` or `swarm -V`: nothing else that clap would have to read
/// (an option, an extra argument) comes with it, so `run` can answer
/// without clap.
pub(super) fn asked_alone(args: &[OsString]) -> bool {
    match args {
        [_, only] => matches!(only.to_str(), Some("version" | "--version" | "-V")),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<OsString> {
        list.iter().map(OsString::from).collect()
    }

    #[test]
    fn only_the_version_alone_takes_the_fast_path() {
        for alone in [
            ["swarm", "version"],
            ["swarm", "--version"],
            ["swarm", "-V"],
        ] {
            assert!(asked_alone(&args(&alone)), "{alone:?}");
        }
        for not in [
            &["swarm"][..],
            &["swarm", "version", "extra"],
            &["swarm", "--color=never", "version"],
            &["swarm", "-v"],
            &["swarm", "--vers"],
            &["swarm", "versions"],
            &["swarm", "agents"],
        ] {
            assert!(!asked_alone(&args(not)), "{not:?}");
        }
    }
}
