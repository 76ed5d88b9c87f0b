//! The names swarm gives things: agents (`agent-3`), messages (a UUID, shown
//! by its first eight characters) and tmux panes (`%12`). Each is a checked
//! type, so a function that takes an `AgentId` never sees an unchecked
//! string; serde keeps each in the plain string form the state files use.

use std::borrow::Borrow;
use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use super::validate::{self, ValidationError};

/// An agent id: 1-64 characters of `A-Z a-z 0-9 _ -`, not starting or
/// ending with `-` (`agent-3`, `operator`, `reviewer_2`).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct AgentId(String);

impl AgentId {
    /// Checks `raw` (surrounding whitespace is stripped first).
    pub fn parse(raw: &str) -> Result<AgentId, ValidationError> {
        validate::agent_id(raw).map(AgentId)
    }

    /// `agent-N` for the N-th agent swarm names.
    pub fn numbered(n: u64) -> AgentId {
        AgentId(format!("agent-{n}"))
    }

    /// The id as written.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// N of `agent-N`, for ids swarm handed out.
    pub fn number(&self) -> Option<u64> {
        validate::agent_number(&self.0)
    }
}

impl FromStr for AgentId {
    type Err = ValidationError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        AgentId::parse(s)
    }
}

impl TryFrom<String> for AgentId {
    type Error = ValidationError;
    fn try_from(s: String) -> Result<Self, Self::Error> {
        AgentId::parse(&s)
    }
}

impl From<AgentId> for String {
    fn from(id: AgentId) -> String {
        id.0
    }
}

impl Borrow<str> for AgentId {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl AsRef<str> for AgentId {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl PartialEq<str> for AgentId {
    fn eq(&self, other: &str) -> bool {
        self.0 == other
    }
}

impl PartialEq<&str> for AgentId {
    fn eq(&self, other: &&str) -> bool {
        self.0 == *other
    }
}

impl fmt::Display for AgentId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // `pad` honours a width (`{:<12}`) as a `str` does: tables line up.
        f.pad(&self.0)
    }
}

/// A message id. swarm makes UUID v4s; ids read back from the log or from
/// the pending ACKs were written by any tool and are kept as they are
/// (they are compared and shown, after sanitising, never interpreted).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct MessageId(String);

/// Characters in the short form of a message id.
pub(crate) const SHORT_ID_CHARS: usize = 8;

impl MessageId {
    /// A fresh id (UUID v4, the Python tool's format).
    pub(crate) fn new() -> MessageId {
        MessageId(uuid::Uuid::new_v4().to_string())
    }

    /// An id as another tool or an older file wrote it.
    pub fn from_stored(id: impl Into<String>) -> MessageId {
        MessageId(id.into())
    }

    /// The id as written.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The first eight characters, enough to acknowledge a message.
    pub fn short(&self) -> &str {
        short(&self.0)
    }

    /// True when `prefix` (a short form or the whole id) names this id.
    pub fn starts_with(&self, prefix: &str) -> bool {
        !prefix.is_empty() && self.0.starts_with(prefix)
    }
}

/// The short form of any id string: its first eight characters, never cut
/// inside a character (ids read from files are untrusted text).
pub fn short(id: &str) -> &str {
    let end = id
        .char_indices()
        .nth(SHORT_ID_CHARS)
        .map_or(id.len(), |(i, _)| i);
    &id[..end]
}

impl Borrow<str> for MessageId {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl PartialEq<str> for MessageId {
    fn eq(&self, other: &str) -> bool {
        self.0 == other
    }
}

impl fmt::Display for MessageId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A tmux pane id, `%N`: stable for the life of the pane on its server.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct PaneId(String);

impl PaneId {
    /// The id as tmux writes it (`%3`).
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The number after `%`.
    pub fn number(&self) -> u32 {
        self.0[1..].parse().unwrap_or(u32::MAX)
    }
}

impl FromStr for PaneId {
    type Err = ValidationError;

    /// Accepts exactly `%` followed by ASCII digits (no sign, no spaces).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let digits = s.strip_prefix('%').unwrap_or("");
        if !digits.is_empty()
            && digits.len() <= 10
            && digits.bytes().all(|b| b.is_ascii_digit())
            && digits.parse::<u32>().is_ok()
        {
            Ok(PaneId(s.to_owned()))
        } else {
            Err(ValidationError::PaneId(s.to_owned()))
        }
    }
}

impl TryFrom<String> for PaneId {
    type Error = ValidationError;
    fn try_from(s: String) -> Result<Self, Self::Error> {
        s.parse()
    }
}

impl From<PaneId> for String {
    fn from(id: PaneId) -> String {
        id.0
    }
}

impl fmt::Display for PaneId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(&self.0)
    }
}
