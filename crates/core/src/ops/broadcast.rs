//! `broadcast`: one message to every active agent, or to the agents that
//! follow a topic, through `Operator::send` (a topic's subscribers are
//! looked up there). The topic rule is `Topic::parse`'s, applied by the
//! plan, so that every front door takes the same names.

use crate::agents::registry::Registry;
use crate::backend::Operator;
use crate::domain::message::{MessageType, Urgency};
use crate::error::{Error, Result};
use crate::messaging::topics::topic_store::Topic;
use crate::messaging::{Recipients, SendReport, SendRequest};

/// One broadcast, from whom and to which agents: checked, ready to run.
#[derive(Clone, Debug)]
pub struct BroadcastPlan {
    request: SendRequest,
}

impl BroadcastPlan {
    /// `content` (already cleaned by `message::clean_content`) of type
    /// `msg_type` from `sender` to every other active agent, not urgent.
    pub fn new(sender: &str, msg_type: MessageType, content: String) -> BroadcastPlan {
        BroadcastPlan {
            request: SendRequest::new(
                sender.to_owned(),
                Recipients::All {
                    include_self: false,
                },
                msg_type,
                content,
            ),
        }
    }

    /// The sender gets it too, when `include_self`.
    pub fn include_self(mut self, include_self: bool) -> BroadcastPlan {
        self.request.to = Recipients::All { include_self };
        self
    }

    /// Only the subscribers of `topic` get it (`None`: every agent). A
    /// name `Topic::parse` refuses is `Error::Invalid` prefixed with
    /// `argument` (what the front door calls it: `--topic`, ...).
    pub fn topic(mut self, topic: Option<&str>, argument: &str) -> Result<BroadcastPlan> {
        self.request.topic = topic
            .map(|t| {
                Topic::parse(t)
                    .map(|t| t.as_str().to_owned())
                    .map_err(|e| Error::Invalid(format!("{argument}: {e}")))
            })
            .transpose()?;
        Ok(self)
    }

    /// The agent of the pane that sends as `sender` (`--as-other`), when
    /// another one: recorded with the message.
    pub fn sent_by(mut self, pane_agent: Option<String>) -> BroadcastPlan {
        self.request.sent_by = pane_agent;
        self
    }

    /// How urgently it goes into busy agents' panes.
    pub fn urgency(mut self, urgency: Urgency) -> BroadcastPlan {
        self.request.urgency = urgency;
        self
    }
}

/// Sends the plan's broadcast to the agents of `registry` (see
/// `Operator::send`).
pub fn broadcast(op: &Operator, registry: &Registry, plan: &BroadcastPlan) -> Result<SendReport> {
    op.send(registry, plan.request.clone())
}
