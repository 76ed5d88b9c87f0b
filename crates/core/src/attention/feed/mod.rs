//! The activity feed: the `FeedStore` trait (`feed_store.rs`) and its
//! files (`on_files.rs`); the Redis one is `crates/redis/src/feed.rs`.

pub(crate) mod feed_store;
pub(crate) mod on_files;
