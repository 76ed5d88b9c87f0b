//! `TopicStore`: the subscriptions of a swarm (topic -> agents), kept in
//! swarm's own state and never in the registry, whose entries the Python
//! tool rejects with a key it does not know. `FileTopics` (`on_files.rs`)
//! keeps them in `.swarm/subscriptions.json`.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use crate::domain::AgentId;
use crate::store::StoreError;

/// Every topic with its subscribers (both sorted).
pub type Subscriptions = BTreeMap<String, BTreeSet<String>>;

/// A topic name: 1-64 of `a-z 0-9 . _ -`, starting with a letter or a
/// digit; written in any case, kept in lower case.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Topic(String);

impl Topic {
    /// Checks a topic name as typed.
    pub fn parse(raw: &str) -> Result<Topic, String> {
        let name = raw.trim().to_lowercase();
        let ok = !name.is_empty()
            && name.len() <= 64
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
            && name.starts_with(|c: char| c.is_ascii_alphanumeric());
        if ok {
            Ok(Topic(name))
        } else {
            Err(format!(
                "{:?} is not a topic name (1-64 of a-z, 0-9, `.`, `_`, `-`, starting with a \
                 letter or digit)",
                crate::support::sanitize::one_line(raw)
            ))
        }
    }

    /// The name.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// The subscriptions as every store keeps them (the `topics` of
/// `.swarm/subscriptions.json`), with the rules of changing them, which
/// each store applies under its own exclusion.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TopicTable {
    /// Topic -> its subscribers; a topic nobody follows is dropped.
    #[serde(default)]
    pub topics: Subscriptions,
}

impl TopicTable {
    /// Adds `agent` to `topic`; false when it was subscribed already.
    pub fn subscribe(&mut self, topic: &Topic, agent: &AgentId) -> bool {
        self.topics
            .entry(topic.as_str().to_owned())
            .or_default()
            .insert(agent.to_string())
    }

    /// Removes `agent` from `topic`; false when it was not subscribed.
    pub fn unsubscribe(&mut self, topic: &Topic, agent: &AgentId) -> bool {
        let Some(agents) = self.topics.get_mut(topic.as_str()) else {
            return false;
        };
        let gone = agents.remove(agent.as_str());
        if agents.is_empty() {
            self.topics.remove(topic.as_str());
        }
        gone
    }
}

/// The topics an agent follows, from `all`.
pub fn topics_of(all: &Subscriptions, agent: &str) -> Vec<String> {
    all.iter()
        .filter(|(_, agents)| agents.contains(agent))
        .map(|(t, _)| t.clone())
        .collect()
}

/// Where a swarm's subscriptions are kept.
pub trait TopicStore: Send + Sync {
    /// Every topic and its subscribers (empty when there are none).
    fn all(&self) -> Result<Subscriptions, StoreError>;

    /// Subscribes `agent` to `topic`; false when it was already. Atomic:
    /// racing changes, from any process or host, lose none of each other.
    fn subscribe(&self, topic: &Topic, agent: &AgentId) -> Result<bool, StoreError>;

    /// Unsubscribes `agent` from `topic`; false when it was not. Atomic
    /// like `subscribe`.
    fn unsubscribe(&self, topic: &Topic, agent: &AgentId) -> Result<bool, StoreError>;
}

/// The contract every `TopicStore` keeps, written against the trait.
#[cfg(any(test, feature = "testing"))]
pub mod contract {
    use std::sync::{Arc, Barrier};

    use super::*;

    fn agent(n: usize) -> AgentId {
        AgentId::numbered(n as u64)
    }

    /// Subscriptions are kept per topic, once each, and removed.
    pub fn subscribes_and_unsubscribes(store: &dyn TopicStore) {
        let deploys = Topic::parse("Deploys").expect("topic");
        let schema = Topic::parse("schema").expect("topic");
        assert!(store.all().expect("all").is_empty());
        assert!(store.subscribe(&deploys, &agent(1)).expect("sub"));
        assert!(!store.subscribe(&deploys, &agent(1)).expect("again"));
        assert!(store.subscribe(&deploys, &agent(2)).expect("sub"));
        assert!(store.subscribe(&schema, &agent(2)).expect("sub"));
        let all = store.all().expect("all");
        assert_eq!(
            all.get("deploys")
                .map(|a| a.iter().cloned().collect::<Vec<_>>()),
            Some(vec!["agent-1".to_owned(), "agent-2".to_owned()])
        );
        assert_eq!(topics_of(&all, "agent-2"), ["deploys", "schema"]);
        assert!(store.unsubscribe(&schema, &agent(2)).expect("unsub"));
        assert!(!store.unsubscribe(&schema, &agent(2)).expect("again"));
        assert!(!store.all().expect("all").contains_key("schema"));
    }

    /// Racing subscribers of one topic all end up subscribed.
    pub fn racing_subscribers_lose_nothing(store: Arc<dyn TopicStore>) {
        let racers = 8;
        let barrier = Arc::new(Barrier::new(racers));
        let handles: Vec<_> = (0..racers)
            .map(|i| {
                let store = Arc::clone(&store);
                let barrier = Arc::clone(&barrier);
                std::thread::spawn(move || {
                    barrier.wait();
                    let topic = Topic::parse("race").expect("topic");
                    store.subscribe(&topic, &agent(i)).expect("sub")
                })
            })
            .collect();
        for h in handles {
            assert!(h.join().expect("thread"));
        }
        assert_eq!(store.all().expect("all")["race"].len(), racers);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn topic_names_are_plain_and_lower_case() {
        assert_eq!(Topic::parse(" Deploys ").map(|t| t.0), Ok("deploys".into()));
        assert!(Topic::parse("api.v2_x-y").is_ok());
        for bad in ["", "-x", "a b", "a/b", "\u{1b}[31m", &"x".repeat(65)] {
            assert!(Topic::parse(bad).is_err(), "{bad:?}");
        }
    }
}
