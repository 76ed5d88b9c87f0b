//! swarm's vocabulary: the names it gives agents, messages and panes, the
//! one time type, the message and its types, and the validation of every
//! name a user or an agent can give.

mod ids;
pub mod message;
pub(crate) mod message_dict;
mod timestamp;
pub mod validate;

pub use ids::short;
pub use ids::{AgentId, MessageId, PaneId};
pub use timestamp::Timestamp;
pub(crate) use timestamp::{local_naive_iso, utc_iso};
pub use validate::ValidationError;
