//! `swarm reload [--source local|github]`: the Python tool reinstalled
//! itself with uv. swarm is one compiled binary with nothing to reload in
//! place, so this command only says how to update it, and changes
//! nothing.

use std::path::Path;

use clap::{Args, ValueEnum};

use swarm_core::{ExitCode, Result};

use crate::cli::build_info::VERSION;
use crate::cli::output::Output;

/// Where to update from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub(super) enum Source {
    /// The source tree this binary was built from.
    #[default]
    Local,
    /// A fresh copy of the source (swarm is not published to install from
    /// a repository URL: update your clone).
    Github,
}

/// Arguments of `swarm reload`.
#[derive(Debug, Args)]
pub(super) struct ReloadArgs {
    /// Where the update should come from
    #[arg(long, value_enum, default_value_t)]
    source: Source,
}

/// The directory this binary was built from.
const BUILT_FROM: &str = env!("CARGO_MANIFEST_DIR");

/// Prints how to update swarm.
pub(super) fn run(out: &Output, args: &ReloadArgs) -> Result<ExitCode> {
    out.print(&text(args.source, Path::new(BUILT_FROM)))?;
    Ok(ExitCode::Success)
}

fn text(source: Source, built_from: &Path) -> String {
    let present = built_from.join("Cargo.toml").is_file();
    // A build from the published package has no `.git`: update from there.
    let clone = built_from.join(".git").exists();
    let mut s = format!(
        "swarm {VERSION} is one compiled binary: there is no cache to clear and nothing to \
         reload in place.\nNothing was changed. To update swarm, build and install it again \
         from its source:\n\n"
    );
    let command = |dir: &str| format!("    cargo install --locked --force --path {dir}\n\n");
    match (source, present) {
        (Source::Local, true) if !clone => {
            s.push_str(&format!(
                "    cargo install --locked --force {}\n\n(the package this binary was built from)\n",
                env!("CARGO_PKG_NAME")
            ));
        }
        (Source::Local, true) => {
            s.push_str(&command(&built_from.display().to_string()));
            s.push_str("(the source tree this binary was built from)\n");
        }
        (Source::Local, false) => {
            // A release archive's binary was built on a machine that is
            // gone: its own ways of updating come first.
            s.push_str(
                "From a release (docs/guide/install.md): run the installer again, or\n\n    \
                 brew upgrade tmux-swarm\n    cargo binstall tmux-swarm\n\nFrom source:\n\n",
            );
            s.push_str(&command("."));
            s.push_str(&format!(
                "run in a clone of swarm's source (the tree this binary was built from, {}, \
                 is no longer there)\n",
                built_from.display()
            ));
        }
        (Source::Github, _) => {
            s.push_str("    git pull\n");
            s.push_str(&command("."));
            s.push_str("run in your clone of swarm's source\n");
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn says_how_to_update_from_where() {
        let checkout = tempfile::tempdir().expect("tempdir");
        std::fs::write(checkout.path().join("Cargo.toml"), "").expect("manifest");
        std::fs::create_dir(checkout.path().join(".git")).expect(".git");
        let here = text(Source::Local, checkout.path());
        assert!(
            here.contains(&format!(
                "cargo install --locked --force --path {}\n",
                checkout.path().display()
            )),
            "{here}"
        );
        let gone = text(Source::Local, Path::new("/nonexistent/swarm-src"));
        assert!(
            gone.contains("--path .\n")
                && gone.contains("no longer there")
                && gone.contains("brew upgrade tmux-swarm\n"),
            "{gone}"
        );
        let clone = text(Source::Github, Path::new(BUILT_FROM));
        assert!(clone.contains("git pull\n"), "{clone}");
        let package = tempfile::tempdir().expect("tempdir");
        std::fs::write(package.path().join("Cargo.toml"), "").expect("manifest");
        let published = text(Source::Local, package.path());
        assert!(
            published.contains("cargo install --locked --force tmux-swarm\n"),
            "{published}"
        );
    }
}
