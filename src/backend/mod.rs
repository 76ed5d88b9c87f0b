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

use crate::a2a::{A2aStore, FileA2a};
use crate::acks::{AckStore, FileAcks};
use crate::agents::file_registry::FileRegistry;
use crate::agents::registry_store::RegistryStore;
use crate::config::Config;
use crate::messaging::held::FileHeld;
use crate::messaging::held_store::HeldStore;
use crate::messaging::rate_limit::FileRates;
use crate::messaging::rate_store::RateStore;
use crate::store::Paths;

/// One implementation of every storage trait, for one project.
pub(crate) struct Backend {
    /// The agent registry and id allocation.
    pub(crate) registry: Box<dyn RegistryStore>,
    /// Pending acknowledgements and their due retries.
    pub(crate) acks: Box<dyn AckStore>,
    /// Messages held back from panes that were not safe to type into.
    pub(crate) held: Box<dyn HeldStore>,
    /// The senders' rate-limit windows.
    pub(crate) rates: Box<dyn RateStore>,
    /// The A2A records (cards, tasks, contexts, ...).
    pub(crate) a2a: Box<dyn A2aStore>,
}

impl Backend {
    /// The state files of the project laid out by `paths`.
    pub(crate) fn files(paths: &Paths, config: &Config) -> Backend {
        let _ = config;
        Backend {
            registry: Box::new(FileRegistry::new(paths)),
            acks: Box::new(FileAcks::new(paths)),
            held: Box::new(FileHeld::new(paths)),
            rates: Box::new(FileRates::new(paths)),
            a2a: Box::new(FileA2a::new(paths)),
        }
    }
}

impl std::fmt::Debug for Backend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Backend")
    }
}
