//! Sessions: what `swarm launch` started (its agents, their commands and
//! conversation ids), kept so that `swarm resume` can bring a session back
//! after its panes are gone: the record (`record.rs`), the store's seam
//! (`session_store.rs`), its file (`on_files.rs`), how each agent is
//! started again (`restart.rs`), and what runs of a session and bringing
//! back what does not (`resume.rs`).

pub(crate) mod on_files;
pub mod record;
pub mod restart;
pub mod resume;
pub mod session_store;
