//! swarm's vocabulary: the message and its types, and the validation of
//! every name a user or an agent can give (agent ids, pane ids, types).

pub(crate) mod message;
pub(crate) mod validate;
