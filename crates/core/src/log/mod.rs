//! The message log: every message and every delivery outcome, appended in
//! order and never lost, each agent's read position in it (the inbox), and
//! following it as it grows. The vocabulary (`record.rs`, over the message
//! line `log_line.rs`) is the bottom of the folder; `LogStore`
//! (`log_store.rs`) is its storage seam, kept in `agent_messages.log` and
//! its segments by `FileLog` (`on_files.rs`). `index/` keeps every kept
//! message searchable, and threads whole, in a cache beside the log.

pub mod inbox;
pub(crate) mod index;
pub(crate) mod log_line;
pub(crate) mod log_store;
pub(crate) mod on_files;
pub(crate) mod record;
pub(crate) mod retention;
pub(crate) mod segments;
pub(crate) mod tail;
