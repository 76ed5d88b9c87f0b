//! `send`: one message to one agent (or to the person), with what a send
//! means besides typing (`Operator::send`: the feed, the person told, the
//! watcher for a held copy). The acknowledgement's default wait
//! (`acks.timeout_seconds`) is applied here, so every front door asks for
//! one alike.

use std::time::Duration;

use crate::agents::registry::Registry;
use crate::backend::Operator;
use crate::domain::message::{MessageType, Urgency};
use crate::error::Result;
use crate::messaging::{Recipients, SendRequest};

pub use crate::messaging::SendReport;

/// Whether, and how long, the recipient is given to acknowledge.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum AckAsk {
    No,
    /// After the configured timeout.
    Configured,
    /// After this long.
    After(Duration),
}

/// One message, for whom and how: ready to run.
#[derive(Clone, Debug)]
pub struct SendPlan {
    request: SendRequest,
    ack: AckAsk,
}

impl SendPlan {
    /// `content` (already cleaned by `message::clean_content`) of type
    /// `msg_type` from `sender` to the agent `to` (an id the caller has
    /// checked), not urgent, asking for no acknowledgement.
    pub fn new(sender: &str, to: &str, msg_type: MessageType, content: String) -> SendPlan {
        SendPlan {
            request: SendRequest::new(
                sender.to_owned(),
                Recipients::One(to.to_owned()),
                msg_type,
                content,
            ),
            ack: AckAsk::No,
        }
    }

    /// The agent of the pane that sends as `sender` (`--as-other`), when
    /// another one: recorded with the message.
    pub fn sent_by(mut self, pane_agent: Option<String>) -> SendPlan {
        self.request.sent_by = pane_agent;
        self
    }

    /// When `wanted`, the recipient must acknowledge it: retried after
    /// `after`, or `acks.timeout_seconds` when `None`, then escalated.
    pub fn ack(mut self, wanted: bool, after: Option<Duration>) -> SendPlan {
        self.ack = match (wanted, after) {
            (false, _) => AckAsk::No,
            (true, None) => AckAsk::Configured,
            (true, Some(d)) => AckAsk::After(d),
        };
        self
    }

    /// The message it answers (a full id: `conversation::resolve_message`).
    pub fn reply_to(mut self, parent: Option<String>) -> SendPlan {
        self.request.parent_msg_id = parent;
        self
    }

    /// How urgently it goes into a busy agent's pane.
    pub fn urgency(mut self, urgency: Urgency) -> SendPlan {
        self.request.urgency = urgency;
        self
    }

    /// Sent by swarm itself (a notice): no rate limit, no budget hold.
    pub fn system(mut self, system: bool) -> SendPlan {
        self.request.system = system;
        self
    }

    /// How long the recipient has before the first retry, when the plan
    /// asks for an acknowledgement, with `operator`'s settings.
    pub fn ack_timeout(&self, op: &Operator) -> Option<Duration> {
        match self.ack {
            AckAsk::No => None,
            AckAsk::Configured => Some(op.acks.timeout),
            AckAsk::After(d) => Some(d),
        }
    }

    /// The request the plan sends with `operator`'s settings.
    pub(crate) fn request(&self, op: &Operator) -> SendRequest {
        let mut req = self.request.clone();
        req.ack_timeout = self.ack_timeout(op);
        req
    }
}

/// Sends the plan's message to the agents of `registry` (see
/// `Operator::send`).
pub fn send(op: &Operator, registry: &Registry, plan: &SendPlan) -> Result<SendReport> {
    op.send(registry, plan.request(op))
}
