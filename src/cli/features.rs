//! What this program was built with: the optional crates behind the
//! `redis`, `dashboard`, `mcp` and `monitor` features, and the word a
//! command without its feature says.

use swarm_core::SharedStores;

/// The stores of a `[store]` other than the files.
pub(super) fn shared_stores() -> &'static dyn SharedStores {
    #[cfg(feature = "redis")]
    {
        &swarm_redis::RedisStores
    }
    #[cfg(not(feature = "redis"))]
    {
        &swarm_core::FilesOnly
    }
}

/// The error of a command whose feature this program was built without
/// (a build with all three front doors has no such command).
#[cfg(not(all(feature = "dashboard", feature = "mcp", feature = "monitor")))]
pub(super) fn missing(command: &str, feature: &str) -> swarm_core::Error {
    swarm_core::Error::Invalid(format!(
        "`swarm {command}` is not in this build: it was built without the `{feature}` feature \
         (cargo install tmux-swarm builds every feature; with --no-default-features add \
         --features {feature})"
    ))
}
