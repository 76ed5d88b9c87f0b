//! Which messages the monitor shows: the filters given on the command line
//! (type, agent, age), fixed for the whole run, and the ones changed with
//! keys while it runs (type, agent, text).

use chrono::{DateTime, Utc};

use swarm_core::Message;

/// The command-line filters. A message is kept when it passes all of
/// them; the others are never buffered.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BaseFilter {
    /// Wire type names; empty means every type.
    pub types: Vec<String>,
    /// Agent ids matched against the sender and every recipient; empty
    /// means every agent.
    pub agents: Vec<String>,
    /// Only messages logged at or after this time.
    pub since: Option<DateTime<Utc>>,
}

impl BaseFilter {
    /// True when `message` (logged at `when`) passes.
    pub(crate) fn matches(&self, message: &Message, when: Option<DateTime<Utc>>) -> bool {
        (self.types.is_empty() || self.types.iter().any(|t| t == message.msg_type.as_str()))
            && (self.agents.is_empty() || self.agents.iter().any(|a| involves(message, a)))
            // A time that cannot be read cannot be shown to be recent.
            && self.since.is_none_or(|since| when.is_some_and(|t| t >= since))
    }

    /// True when no filter is set.
    pub fn is_empty(&self) -> bool {
        self.types.is_empty() && self.agents.is_empty() && self.since.is_none()
    }
}

/// The filters changed with keys while the monitor runs.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ViewFilter {
    /// One wire type (`t` cycles).
    pub msg_type: Option<String>,
    /// One agent, sender or recipient (`a` cycles).
    pub agent: Option<String>,
    /// Text searched for, case-insensitively, in the sender, recipients,
    /// type and content (`/`).
    pub text: String,
}

impl ViewFilter {
    /// True when `message` passes; `haystack` is its lowercased
    /// searchable text.
    pub(crate) fn matches(&self, message: &Message, haystack: &str) -> bool {
        self.msg_type
            .as_ref()
            .is_none_or(|t| t == message.msg_type.as_str())
            && self.agent.as_ref().is_none_or(|a| involves(message, a))
            && (self.text.is_empty() || haystack.contains(&self.text.to_lowercase()))
    }

    /// True when no filter is set.
    pub fn is_empty(&self) -> bool {
        self.msg_type.is_none() && self.agent.is_none() && self.text.is_empty()
    }
}

/// True when `agent` sent the message or is one of its recipients (a
/// message to `all` involves everyone).
pub(super) fn involves(message: &Message, agent: &str) -> bool {
    message.sender == agent || message.is_for(agent)
}

#[cfg(test)]
mod tests {
    use super::*;
    use swarm_core::MessageType;

    fn entry(from: &str, to: &[&str], kind: &'static str) -> Message {
        Message::new(
            from.parse().expect("an agent id"),
            to.iter().map(|s| s.parse().expect("an agent id")).collect(),
            MessageType::builtin(kind),
            "Needs the Auth module".into(),
        )
    }

    #[test]
    fn base_filter_combines_type_agent_and_age() {
        let e = entry("agent-0", &["agent-1"], "BLOCKED");
        let now = swarm_core::support::time::now();
        let mut f = BaseFilter::default();
        assert!(f.matches(&e, Some(now)));
        f.types = vec!["BLOCKED".into(), "INFO".into()];
        assert!(f.matches(&e, Some(now)));
        f.agents = vec!["agent-1".into()];
        assert!(f.matches(&e, Some(now)));
        f.agents = vec!["agent-2".into()];
        assert!(!f.matches(&e, Some(now)));
        f.agents.clear();
        f.since = Some(now);
        assert!(f.matches(&e, Some(now)));
        assert!(!f.matches(&e, Some(now - chrono::Duration::seconds(1))));
        assert!(!f.matches(&e, None));
        f.types = vec!["INFO".into()];
        assert!(!f.matches(&e, Some(now)));
    }

    #[test]
    fn view_filter_text_is_case_insensitive() {
        let e = entry("agent-0", &["all"], "INFO");
        let hay = "agent-0 all info needs the auth module";
        let mut f = ViewFilter {
            text: "AUTH".into(),
            ..ViewFilter::default()
        };
        assert!(f.matches(&e, hay));
        f.agent = Some("agent-7".into());
        assert!(f.matches(&e, hay), "a broadcast to all involves everyone");
        f.msg_type = Some("BLOCKED".into());
        assert!(!f.matches(&e, hay));
        f.msg_type = None;
        f.text = "nowhere".into();
        assert!(!f.matches(&e, hay));
    }
}
