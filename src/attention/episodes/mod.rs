//! Which attention conditions are open for which agent: the
//! `EpisodeStore` trait (`episode_store.rs`) and its files
//! (`on_files.rs`); the Redis one is `backend/on_redis/episodes.rs`.

pub(crate) mod episode_store;
pub(crate) mod on_files;
