//! Commands that send and read messages.

pub(crate) mod broadcast;
pub(crate) mod inbox;
pub(crate) mod message_input;
pub(crate) mod msg;
pub(crate) mod onboard;
pub(crate) mod redeliver;
pub(crate) mod search;
pub(crate) mod sent_json;
pub(crate) mod thread;
pub(crate) mod topics;
pub(crate) mod watch;
