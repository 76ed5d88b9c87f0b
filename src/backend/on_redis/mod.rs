//! The Redis backend: the swarm's shared state on one Redis (or Valkey)
//! server, so that agents on several hosts form one swarm while each
//! host delivers into its own tmux panes (docs/SCALING.md).

mod a2a;
mod acks;
mod conn;
mod episodes;
mod feed;
mod held;
mod keys;
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

pub(crate) use a2a::RedisA2a;
pub(crate) use acks::RedisAcks;
pub(crate) use conn::RedisTarget;
pub(crate) use episodes::RedisEpisodes;
pub(crate) use feed::RedisFeed;
pub(crate) use held::RedisHeld;
pub(crate) use locks::RedisLocks;
pub(crate) use log::RedisLog;
pub(crate) use printed::RedisPrinted;
pub(crate) use rates::RedisRates;
pub(crate) use registry::RedisRegistry;
pub(crate) use relay::RedisRelay;
pub(crate) use sessions::RedisSessions;
pub(crate) use topics::RedisTopics;
