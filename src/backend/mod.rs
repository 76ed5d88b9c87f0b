//! The storage seam: every piece of shared state a command reads or changes
//! goes through one of the traits gathered here, each defined beside the
//! domain it stores (`locks::LockStore`, ...). `Backend` holds one
//! implementation of each; `Backend::files` builds the first one, the state
//! files the Python tool shares (docs/FORMATS.md). Commands (`cli/`), the
//! servers and the monitor reach state only through a `Backend`, so a
//! second implementation on a networked store replaces the files without
//! touching them.
//!
//! Each trait documents the guarantee its implementation must keep (one
//! winner per lock race, each ACK retry claimed once, append with a
//! cursor for messages), not how the files keep it.

use crate::config::Config;
use crate::store::Paths;

mod on_redis;
mod settings;

/// One implementation of every storage trait, for one project.
pub(crate) struct Backend {}

impl Backend {
    /// The state files of the project laid out by `paths`.
    pub(crate) fn files(paths: &Paths, config: &Config) -> Backend {
        let _ = (paths, config);
        Backend {}
    }
}
