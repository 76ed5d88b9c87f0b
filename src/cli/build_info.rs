//! What this binary says about its own build: the version `--version`,
//! `swarm version` and `swarm reload` print.

/// `0.1.0 (1a2b3c4d5e)`: the package version, then the commit when the
/// build saw one (build.rs).
pub(super) const VERSION: &str = concat!(env!("CARGO_PKG_VERSION"), env!("SWARM_VERSION_SUFFIX"));
