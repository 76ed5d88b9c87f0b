//! The activity feed: the `FeedStore` trait (`feed_store.rs`) and its
//! files (`on_files.rs`); the Redis one is `backend/on_redis/feed.rs`.

pub(crate) mod feed_store;
pub(crate) mod on_files;
