//! The subscriptions on Redis: the hash `{swarm:NAME}:topics`, one field
//! per topic holding its subscribers as a JSON array. A change reads the
//! topic's field under `WATCH`, applies the shared rule (`TopicTable`) and
//! writes it back in `MULTI`/`EXEC`, again when another client changed
//! the hash meanwhile, so racing changes from any host lose nothing.

use std::collections::BTreeSet;

use swarm_core::{AgentId, StoreError, Subscriptions, Topic, TopicStore, TopicTable};

use super::conn::RedisTarget;

/// The subscriptions of one swarm on Redis.
pub(crate) struct RedisTopics {
    target: RedisTarget,
}

impl RedisTopics {
    /// The subscriptions of the swarm at `target`.
    pub(crate) fn new(target: RedisTarget) -> RedisTopics {
        RedisTopics { target }
    }

    /// Applies `change` to `topic`'s subscribers in one transaction.
    fn change(
        &self,
        topic: &Topic,
        change: impl Fn(&mut TopicTable) -> bool,
    ) -> Result<bool, StoreError> {
        let mut r = self.target.connect()?;
        let key = r.keys.topics();
        r.transaction(std::slice::from_ref(&key), |r| {
            let raw: Option<Vec<u8>> = r.query(redis::cmd("HGET").arg(&key).arg(topic.as_str()))?;
            // A field that does not parse (written by hand) counts as
            // nobody subscribed; the change writes it anew.
            let agents: BTreeSet<String> = raw
                .and_then(|b| serde_json::from_slice(&b).ok())
                .unwrap_or_default();
            let mut table = TopicTable::default();
            if !agents.is_empty() {
                table.topics.insert(topic.as_str().to_owned(), agents);
            }
            if !change(&mut table) {
                return Ok::<_, StoreError>((None, false));
            }
            let mut pipe = redis::pipe();
            match table.topics.get(topic.as_str()) {
                Some(agents) => {
                    let body = serde_json::to_vec(agents).map_err(|source| StoreError::Encode {
                        path: key.clone().into(),
                        source,
                    })?;
                    pipe.cmd("HSET")
                        .arg(&key)
                        .arg(topic.as_str())
                        .arg(body)
                        .ignore();
                }
                None => {
                    pipe.cmd("HDEL").arg(&key).arg(topic.as_str()).ignore();
                }
            }
            Ok((Some(pipe), true))
        })
    }
}

impl TopicStore for RedisTopics {
    fn all(&self) -> Result<Subscriptions, StoreError> {
        let mut r = self.target.connect()?;
        let key = r.keys.topics();
        let fields: Vec<(String, Vec<u8>)> = r.query(redis::cmd("HGETALL").arg(&key))?;
        Ok(fields
            .into_iter()
            .filter_map(|(topic, raw)| {
                let agents: BTreeSet<String> = serde_json::from_slice(&raw).ok()?;
                (!agents.is_empty()).then_some((topic, agents))
            })
            .collect())
    }

    fn subscribe(&self, topic: &Topic, agent: &AgentId) -> Result<bool, StoreError> {
        self.change(topic, |t| t.subscribe(topic, agent))
    }

    fn unsubscribe(&self, topic: &Topic, agent: &AgentId) -> Result<bool, StoreError> {
        self.change(topic, |t| t.unsubscribe(topic, agent))
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::test_server::TestServer;
    use swarm_core::contracts::topics as contract;

    #[test]
    fn redis_topics_keep_the_contract() {
        let server = TestServer::start();
        contract::subscribes_and_unsubscribes(&RedisTopics::new(server.target("one")));
        contract::racing_subscribers_lose_nothing(Arc::new(RedisTopics::new(
            server.target("race"),
        )));
    }
}
