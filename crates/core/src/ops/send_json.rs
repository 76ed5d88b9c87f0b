//! The one JSON view of a send (`SendReport::view`): what `swarm msg
//! --json` and `swarm broadcast --json` print, what the MCP tools
//! `send_message`, `broadcast` and `reply` return as their facts, and what
//! the dashboard's send answers beside its `"ok"`. One shape for all of
//! them, so that a client reads a send the same way whichever door it
//! came through; docs/FORMATS.md lists its keys. New keys go at the end:
//! scripts read the command's output by key, and people by its order.

use serde::{Serialize, Serializer};

use crate::domain::AgentId;
use crate::log::record::DeliveryOutcome;
use crate::messaging::SendReport;

/// A send as JSON: the message, each recipient's outcome, the counts.
#[derive(Debug, Serialize)]
pub struct SendView<'a> {
    msg_id: &'a str,
    sender: &'a str,
    recipients: &'a [AgentId],
    msg_type: &'a str,
    content: &'a str,
    timestamp: String,
    /// The message it answers (`--reply-to`, the MCP tool `reply`).
    #[serde(skip_serializing_if = "Option::is_none")]
    parent_msg_id: Option<&'a str>,
    /// Each recipient's outcome, in recipient order.
    #[serde(serialize_with = "in_order")]
    outcomes: &'a [(String, DeliveryOutcome)],
    delivered: usize,
    /// Copies the agents have through their own channels, not taken yet.
    accepted: usize,
    /// Copies neither delivered nor accepted (queued or held).
    queued: usize,
    rate_limited_for_seconds: Option<u64>,
    body_file: Option<String>,
    requires_ack: bool,
    warnings: &'a [String],
}

impl SendReport {
    /// The report's JSON view (see the module's comment).
    pub fn view(&self) -> SendView<'_> {
        let m = &self.message;
        let delivered = self.delivered();
        let accepted = self.accepted();
        SendView {
            msg_id: m.msg_id.as_str(),
            sender: m.sender.as_str(),
            recipients: &m.recipients,
            msg_type: m.msg_type.as_str(),
            content: &m.content,
            timestamp: m.created.utc_iso(),
            parent_msg_id: m.parent_msg_id.as_ref().map(|p| p.as_str()),
            outcomes: &self.outcomes,
            delivered,
            accepted,
            queued: self.outcomes.len() - delivered - accepted,
            rate_limited_for_seconds: self.rate_limited.map(|d| d.as_secs_f64().ceil() as u64),
            body_file: self.body_file.as_ref().map(|p| p.display().to_string()),
            requires_ack: m.requires_ack,
            warnings: &self.warnings,
        }
    }
}

impl SendView<'_> {
    /// The view as a JSON value, for a door that adds to it or wraps it.
    pub fn to_value(&self) -> serde_json::Value {
        // Every key is a string and every value plain data, so this cannot
        // fail; `Null` would only stand for a bug here.
        serde_json::to_value(self).unwrap_or(serde_json::Value::Null)
    }
}

/// The outcomes as one object keyed by recipient, in recipient order.
fn in_order<S: Serializer>(
    outcomes: &&[(String, DeliveryOutcome)],
    s: S,
) -> Result<S::Ok, S::Error> {
    s.collect_map(outcomes.iter().map(|(r, o)| (r, o)))
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::domain::message::{Message, MessageType};
    use crate::messaging::rates::rate_store::RateLimit;

    fn report() -> SendReport {
        let id = |s: &str| AgentId::parse(s).expect("id");
        let mut message = Message::new(
            id("agent-0"),
            vec![id("agent-2"), id("agent-1"), id("agent-3")],
            MessageType::parse("INFO", &[]).expect("type"),
            "schema moved".into(),
        );
        message.requires_ack = true;
        SendReport {
            message,
            outcomes: vec![
                ("agent-2".into(), DeliveryOutcome::delivered_confirmed(true)),
                ("agent-1".into(), DeliveryOutcome::queued("no pane")),
                ("agent-3".into(), DeliveryOutcome::held("a dialog is open")),
            ],
            rate_limited: Some(Duration::from_millis(2100)),
            rate: RateLimit {
                max: 10,
                window: Duration::from_secs(60),
            },
            body_file: None,
            warnings: vec!["the registry was damaged".into()],
        }
    }

    #[test]
    fn the_view_keeps_its_keys_in_order_and_new_ones_at_the_end() {
        let v = report().view().to_value();
        let keys: Vec<&str> = v
            .as_object()
            .expect("object")
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(
            keys,
            [
                "msg_id",
                "sender",
                "recipients",
                "msg_type",
                "content",
                "timestamp",
                "outcomes",
                "delivered",
                "accepted",
                "queued",
                "rate_limited_for_seconds",
                "body_file",
                "requires_ack",
                "warnings",
            ]
        );
        let recipients: Vec<&str> = v["outcomes"]
            .as_object()
            .expect("outcomes")
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(recipients, ["agent-2", "agent-1", "agent-3"]);
        assert_eq!(v["outcomes"]["agent-2"]["status"], "delivered");
        assert_eq!(v["outcomes"]["agent-1"]["reason"], "no pane");
        assert_eq!(
            (v["delivered"].as_u64(), v["queued"].as_u64()),
            (Some(1), Some(2))
        );
        assert_eq!(v["accepted"], 0);
        assert_eq!(v["rate_limited_for_seconds"], 3);
        assert_eq!(v["requires_ack"], true);
        assert_eq!(v["warnings"][0], "the registry was damaged");
    }
}
