//! Attention: which agent needs the person, and what happened in the
//! swarm. Looks at panes (`looks.rs`) go through a tracker (`tracker.rs`)
//! into opened and closed conditions; each watcher's round (`round.rs`)
//! raises an event once per episode across every watcher through the
//! shared episodes (`episodes/`), records it in the activity feed
//! (`feed/`, whose lines `event.rs` describes), and the notice each tmux
//! session shows is computed from what is still open (`notice.rs`,
//! `status.rs`). A dialog's question and options are read off the screen
//! (`dialog.rs`) so that a person can answer it from anywhere. The
//! agents' own hooks report the same conditions sooner where they are
//! installed (`crate::hooks`).

pub(crate) mod dialog;
pub(crate) mod episodes;
pub(crate) mod event;
pub(crate) mod feed;
pub(crate) mod looks;
pub(crate) mod notice;
pub(crate) mod round;
pub(crate) mod status;
pub(crate) mod tracker;

pub(crate) use episodes::episode_store::EpisodeStore;
pub(crate) use episodes::on_files::FileEpisodes;
pub use feed::feed_store::{FeedRetention, FeedStore};
pub use feed::on_files::FileFeed;
