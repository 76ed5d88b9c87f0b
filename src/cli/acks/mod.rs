//! Commands about acknowledgements: answering one, listing the pending ones.

pub(crate) mod ack;
pub(crate) mod list;
