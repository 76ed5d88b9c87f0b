//! Acknowledgements: the pending list, which knows nothing of sending.
//! Callers reach it through `AckStore` (`ack_store.rs`); `FileAcks`
//! (`on_files.rs`) keeps it in `PENDING_ACKS.json`. Retries are claimed
//! through the store and sent by `messaging::ack_retry`.

pub(crate) mod ack_store;
mod on_files;
mod pending;

pub use ack_store::{AckResult, AckStore};
pub(crate) use on_files::FileAcks;
pub use pending::*;
