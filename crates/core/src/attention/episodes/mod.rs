//! Which attention conditions are open for which agent: the
//! `EpisodeStore` trait (`episode_store.rs`) and its files
//! (`on_files.rs`); the Redis one is `crates/redis/src/episodes.rs`.

pub(crate) mod episode_store;
pub(crate) mod on_files;
