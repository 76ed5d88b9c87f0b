//! Rate limits: each sender's window of recent sends, behind its seam
//! (`rate_store.rs`, with the sliding-window rule), kept in
//! `.swarm/rate_limits.json` by `on_files.rs`.

pub(crate) mod on_files;
pub(crate) mod rate_store;
