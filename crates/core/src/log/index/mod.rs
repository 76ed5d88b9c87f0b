//! The index of every kept message (`message_index.rs`), a SQLite cache
//! beside the log that catches up with it on each use, and what it answers
//! (`query.rs`): ranked search, whole threads, ids from their beginning.

mod message_index;
mod query;

pub use message_index::MessageIndex;
pub use query::IndexedMessage;
pub(crate) use query::{MAX_LIMIT, Resolved, SearchQuery};
