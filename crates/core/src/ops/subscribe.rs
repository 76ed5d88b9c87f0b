//! `subscribe`: an agent follows a topic, or stops following it (what
//! `broadcast` with a topic reaches). The topic rule is `Topic::parse`'s.

use crate::backend::Operator;
use crate::domain::AgentId;
use crate::error::Result;
use crate::messaging::topics::topic_store::{Topic, topics_of};

/// Which topic, for which agent, on or off: checked, ready to run.
#[derive(Clone, Debug)]
pub struct SubscribePlan {
    topic: Topic,
    agent: AgentId,
    follow: bool,
}

impl SubscribePlan {
    /// `agent` follows `topic`.
    pub fn follow(topic: Topic, agent: AgentId) -> SubscribePlan {
        SubscribePlan {
            topic,
            agent,
            follow: true,
        }
    }

    /// `agent` stops following `topic`.
    pub fn leave(topic: Topic, agent: AgentId) -> SubscribePlan {
        SubscribePlan {
            topic,
            agent,
            follow: false,
        }
    }

    /// The topic.
    pub fn topic(&self) -> &Topic {
        &self.topic
    }

    /// The agent.
    pub fn agent(&self) -> &AgentId {
        &self.agent
    }
}

/// What `subscribe` did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SubscribeReport {
    /// Whether anything changed (false: it followed the topic already, or
    /// did not follow it).
    pub changed: bool,
    /// The topics the agent follows now, sorted.
    pub topics: Vec<String>,
}

/// Changes the plan's subscription in the topic store.
pub fn subscribe(op: &Operator, plan: &SubscribePlan) -> Result<SubscribeReport> {
    let store = &op.backend.topics;
    let changed = if plan.follow {
        store.subscribe(&plan.topic, &plan.agent)?
    } else {
        store.unsubscribe(&plan.topic, &plan.agent)?
    };
    let topics = topics_of(&store.all()?, plan.agent.as_str());
    Ok(SubscribeReport { changed, topics })
}
