//! What this program was built with: the optional crates behind the
//! `redis`, `dashboard`, `mcp` and `monitor` features, and the word a
//! command without its feature says.

use swarm_core::backend::SharedStores;
use swarm_core::{Error, Result};

/// The stores of a `[store]` other than the files.
pub(super) fn shared_stores() -> &'static dyn SharedStores {
    #[cfg(feature = "redis")]
    {
        &swarm_redis::RedisStores
    }
    #[cfg(not(feature = "redis"))]
    {
        &swarm_core::backend::FilesOnly
    }
}

/// The error of a command whose feature this program was built without.
#[allow(dead_code)]
pub(super) fn missing(command: &str, feature: &str) -> Error {
    Error::Invalid(format!(
        "`swarm {command}` is not in this build: it was built without the `{feature}` feature \
         (cargo install tmux-swarm builds every feature; with --no-default-features add \
         --features {feature})"
    ))
}

/// `Ok` when the feature is in the build.
#[allow(dead_code)]
pub(super) fn require(command: &str, feature: &str, present: bool) -> Result<()> {
    if present {
        Ok(())
    } else {
        Err(missing(command, feature))
    }
}
