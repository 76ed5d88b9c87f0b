//! Acknowledgements: the pending list (`PENDING_ACKS.json`), which knows
//! nothing of sending. Retries are claimed here under the list's lock and
//! sent by `messaging::ack_retry`.

mod pending;

pub use pending::*;
