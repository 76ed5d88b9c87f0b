//! The Redis backend: the swarm's shared state on one Redis (or Valkey)
//! server, so that agents on several hosts form one swarm while each
//! host delivers into its own tmux panes (docs/SCALING.md).
//!
//! The core knows only the files; the program hands [`RedisStores`] to
//! `Backend::open`, which calls it when `[store] backend = "redis"`.

// Items are `pub(crate)` unless the crate's API needs them.
#![warn(unreachable_pub)]

mod a2a;
mod acks;
mod conn;
mod episodes;
mod feed;
mod held;
mod keys;
mod limits;
mod locks;
mod log;
mod printed;
mod rates;
mod registry;
mod relay;
mod sessions;
#[cfg(test)]
mod test_cluster;
#[cfg(test)]
mod test_server;
mod tls;
mod topics;

use swarm_core::Config;
use swarm_core::FeedRetention;
use swarm_core::Paths;
use swarm_core::{Backend, RedisLocation, SharedStores};

use a2a::RedisA2a;
use acks::RedisAcks;
use conn::RedisTarget;
use episodes::RedisEpisodes;
use feed::RedisFeed;
use held::RedisHeld;
use limits::RedisLimits;
use locks::RedisLocks;
use log::RedisLog;
use printed::RedisPrinted;
use rates::RedisRates;
use registry::RedisRegistry;
use relay::RedisRelay;
use sessions::RedisSessions;
use topics::RedisTopics;

/// Builds every store of a swarm on a Redis server (or cluster).
#[derive(Clone, Copy, Debug, Default)]
pub struct RedisStores;

impl SharedStores for RedisStores {
    fn attach_redis(
        &self,
        backend: &mut Backend,
        location: &RedisLocation,
        host: &str,
        paths: &Paths,
        config: &Config,
    ) -> swarm_core::Result<()> {
        let target = RedisTarget::new(&location.url, &location.name, location.timeout)
            .with_tls_ca_file(location.tls_ca_file.clone());
        backend.locks = Box::new(RedisLocks::new(
            target.clone(),
            paths.root(),
            host,
            config.locking.stale_timeout,
        ));
        backend.rates = Box::new(RedisRates::new(target.clone()));
        backend.log = Box::new(RedisLog::new(target.clone()));
        backend.registry = Box::new(RedisRegistry::new(target.clone(), host));
        backend.acks = Box::new(RedisAcks::new(target.clone()));
        backend.held = Box::new(RedisHeld::new(target.clone()));
        backend.a2a = Box::new(RedisA2a::new(target.clone()));
        backend.relay = Some(Box::new(RedisRelay::new(target.clone(), host)));
        backend.episodes = Box::new(RedisEpisodes::new(target.clone()));
        backend.sessions = Box::new(RedisSessions::new(target.clone()));
        backend.limits = Box::new(RedisLimits::new(target.clone()));
        backend.printed = Box::new(RedisPrinted::new(target.clone()));
        backend.feed = std::sync::Arc::new(RedisFeed::new(
            target.clone(),
            FeedRetention::from_config(config),
        ));
        backend.topics = Box::new(RedisTopics::new(target));
        Ok(())
    }
}
