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
use crate::agents::on_files::FileRegistry;
use crate::agents::registry_store::RegistryStore;
use crate::agents::sessions::on_files::FileSessions;
use crate::agents::sessions::session_store::SessionStore;
use crate::attention::{EpisodeStore, FeedRetention, FeedStore, FileEpisodes, FileFeed};
use crate::config::{Config, StoreBackend};
use crate::error::{Error, Result};
use crate::limits::LimitStore;
use crate::limits::on_files::FileLimits;
use crate::locks::{FileLocks, LockStore};
use crate::log::log_store::LogStore;
use crate::log::on_files::FileLog;
use crate::log::retention::LogPolicy;
use crate::messaging::held::held_store::HeldStore;
use crate::messaging::held::on_files::FileHeld;
use crate::messaging::printed::on_files::FilePrinted;
use crate::messaging::printed::printed_store::PrintedStore;
use crate::messaging::rates::on_files::FileRates;
use crate::messaging::rates::rate_store::RateStore;
use crate::messaging::relay::relay_store::Relay;
use crate::messaging::topics::on_files::FileTopics;
use crate::messaging::topics::topic_store::TopicStore;
use crate::store::Paths;
use recorded_locks::RecordedLocks;
use std::sync::Arc;

mod budgets;
mod housekeeping;
pub(crate) mod migrate;
mod operator;
mod recorded_locks;
mod settings;
mod watcher_process;

pub use housekeeping::{Chores, Housekeeping, Share};
pub use operator::Operator;
pub(crate) use watcher_process::is_running as watcher_runs;
pub use watcher_process::{
    Started, announce_watcher, claim_background, ensure_running as start_watcher,
};

pub use settings::RedisLocation;
pub(crate) use settings::StoreLocation;
use settings::{SettingsError, StoreSettings};

/// What builds the stores of a `[store]` that is not the project's files:
/// the Redis backend crate implements it, and the program passes it to
/// [`Backend::open`]. The core itself knows only the files.
pub trait SharedStores {
    /// Replaces `backend`'s stores with those on the Redis server at
    /// `location`, for the project laid out by `paths`; `host` is this
    /// machine's name in the swarm.
    fn attach_redis(
        &self,
        backend: &mut Backend,
        location: &RedisLocation,
        host: &str,
        paths: &Paths,
        config: &Config,
    ) -> Result<()>;
}

/// A program built without a shared store: `[store] backend = "redis"`
/// is refused with a word on how to get it.
#[derive(Clone, Copy, Debug, Default)]
pub struct FilesOnly;

impl SharedStores for FilesOnly {
    fn attach_redis(
        &self,
        _: &mut Backend,
        _: &RedisLocation,
        _: &str,
        _: &Paths,
        _: &Config,
    ) -> Result<()> {
        Err(Error::Invalid(
            "store.backend is \"redis\" but this swarm was built without its `redis` feature: \
             install it with the default features, or set store.backend = \"files\""
                .into(),
        ))
    }
}

/// One implementation of every storage trait, for one project.
pub struct Backend {
    /// The agent registry and id allocation.
    pub registry: Box<dyn RegistryStore>,
    /// File locks.
    pub locks: Box<dyn LockStore>,
    /// Pending acknowledgements and their due retries.
    pub acks: Box<dyn AckStore>,
    /// Messages held back from panes that were not safe to type into.
    pub held: Box<dyn HeldStore>,
    /// The senders' rate-limit windows.
    pub rates: Box<dyn RateStore>,
    /// The A2A records (cards, tasks, contexts, ...).
    pub a2a: Box<dyn A2aStore>,
    /// The message log and each agent's read cursor.
    pub log: Box<dyn LogStore>,
    /// Deliveries handed to the hosts of other agents' panes (`None`: one
    /// host, the files).
    pub relay: Option<Box<dyn Relay>>,
    /// Which attention conditions are open for which agent.
    pub episodes: Box<dyn EpisodeStore>,
    /// Which lines agents printed to send were sent.
    pub printed: Box<dyn PrintedStore>,
    /// The activity feed.
    pub feed: Arc<dyn FeedStore>,
    /// The sessions `launch` started, for `resume`.
    pub sessions: Box<dyn SessionStore>,
    /// Which agents follow which topics.
    pub topics: Box<dyn TopicStore>,
    /// The logins at their usage limit.
    pub limits: Box<dyn LimitStore>,
    /// Which store this is and this host's name in it.
    settings: StoreSettings,
}

impl Backend {
    /// The store `[store]` names for the project laid out by `paths`; a
    /// shared one is built by `shared`.
    pub fn open(paths: &Paths, config: &Config, shared: &dyn SharedStores) -> Result<Backend> {
        let settings =
            StoreSettings::resolve(&config.store, paths.root()).map_err(|e| match e {
                SettingsError::NoUrl => Error::Invalid(
                    "store.backend is \"redis\" but no server is named: set store.url, or \
                 SWARM_STORE_URL (e.g. redis://127.0.0.1:6379)"
                        .into(),
                ),
                SettingsError::Invalid(v) => Error::Validation(v),
            })?;
        let mut backend = Backend::files(paths, config);
        if let StoreLocation::Redis(location) = &settings.location {
            shared.attach_redis(&mut backend, location, &settings.host, paths, config)?;
        }
        backend.settings = settings;
        Ok(backend.recording_lock_changes())
    }

    /// The store `which` for the project laid out by `paths`, whatever
    /// `[store] backend` says (`swarm store migrate` opens both).
    pub fn open_as(
        paths: &Paths,
        config: &Config,
        which: StoreBackend,
        shared: &dyn SharedStores,
    ) -> Result<Backend> {
        let mut config = config.clone();
        config.store.backend = which;
        Backend::open(paths, &config, shared)
    }

    /// The state files of the project laid out by `paths`.
    pub fn files(paths: &Paths, config: &Config) -> Backend {
        Backend {
            registry: Box::new(FileRegistry::new(paths)),
            locks: Box::new(FileLocks::new(paths, config.locking.stale_timeout)),
            acks: Box::new(FileAcks::new(paths)),
            held: Box::new(FileHeld::new(paths)),
            rates: Box::new(FileRates::new(paths)),
            a2a: Box::new(FileA2a::new(paths)),
            log: Box::new(FileLog::new(paths).with_policy(LogPolicy::from_config(config))),
            relay: None,
            episodes: Box::new(FileEpisodes::new(paths)),
            printed: Box::new(FilePrinted::new(paths)),
            feed: Arc::new(FileFeed::new(paths, FeedRetention::from_config(config))),
            sessions: Box::new(FileSessions::new(paths)),
            topics: Box::new(FileTopics::new(paths)),
            limits: Box::new(FileLimits::new(paths)),
            settings: StoreSettings::files(),
        }
    }

    /// The same backend with its lock changes written to the activity
    /// feed (`RecordedLocks`), over whichever store it is.
    fn recording_lock_changes(mut self) -> Backend {
        let feed = Arc::clone(&self.feed);
        self.locks = Box::new(RecordedLocks::new(self.locks, feed));
        self
    }

    /// This host's name when the store is shared by several hosts (the
    /// agents of other hosts are then in the registry too), `None` for the
    /// files.
    pub fn shared_host(&self) -> Option<&str> {
        self.relay.as_deref().map(|r| r.host())
    }

    /// This machine's name in the swarm.
    pub fn host(&self) -> &str {
        &self.settings.host
    }

    /// Where the shared state lives, for people (`files`,
    /// `redis://host:6379 (swarm proj)`), never with a password.
    pub fn describe(&self) -> String {
        match &self.settings.location {
            StoreLocation::Files => "files".into(),
            StoreLocation::Redis(t) => format!("{} (swarm {})", t.shown_url(), t.name),
        }
    }
}

impl std::fmt::Debug for Backend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Backend")
    }
}
