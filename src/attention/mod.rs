//! Attention: which agent needs the person, and what happened in the
//! swarm. Screen states over time become events (`tracker.rs`), each
//! raised once per episode across every watcher (`episode_store.rs`, kept
//! by `episode_files.rs`), recorded in the activity feed (`feed_store.rs`,
//! kept by `feed_files.rs`), with the dialog an agent shows read off its
//! screen (`dialog.rs`) so that a person can answer it from anywhere.

pub(crate) mod dialog;
pub(crate) mod episode_files;
pub(crate) mod episode_store;
pub(crate) mod event;
pub(crate) mod feed_files;
pub(crate) mod feed_store;
pub(crate) mod tracker;

pub(crate) use episode_files::FileEpisodes;
pub(crate) use episode_store::{EpisodeStore, OpenEpisode, Transition};
pub(crate) use event::{DialogOption, EventKind, FeedEntry};
pub(crate) use feed_files::FileFeed;
pub(crate) use feed_store::{FeedCursor, FeedRead, FeedRetention, FeedStore};
