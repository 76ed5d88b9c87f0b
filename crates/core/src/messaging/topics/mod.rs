//! Topics: which agents follow which subjects, so that `swarm broadcast
//! --topic` reaches only them. The store's seam (`topic_store.rs`) and its
//! file (`on_files.rs`); Redis keeps them in `crates/redis/src/topics.rs`.

pub(crate) mod on_files;
pub(crate) mod topic_store;
