//! swarm's vocabulary: the message and its types, and the validation of
//! every name a user or an agent can give (agent ids, pane ids, types).

pub mod message;
pub mod validate;
