//! A config file named on the command line (`swarm config init --output`,
//! and the FILE of `show`, `validate` and `edit`), made absolute so that
//! what the subcommands print names it whole.

use std::path::{Path, PathBuf};

use swarm_core::{Error, Result};

/// `path` made absolute against the current directory (for messages; the
/// file is the same either way).
pub(super) fn absolute(path: &Path) -> Result<PathBuf> {
    std::path::absolute(path).map_err(|source| Error::Io {
        what: format!("resolve {}", path.display()),
        source,
    })
}
