//! The one place that runs `git` (`client.rs`), and the one place that
//! reads git's own files (`layout.rs`: where a repository's worktrees are,
//! without spawning git). Worktrees, their changes and merges all go
//! through here, with the user's git config, hooks and credentials.

mod client;
mod error;
mod history;
pub(crate) mod layout;
mod status;
mod version;
mod worktree_list;

pub use client::Git;
pub(crate) use client::{MergeTree, TreeChange};
pub(crate) use error::GitError;
pub(crate) use history::AGENT_TRAILER;
pub(crate) use version::MERGE_TREE as MERGE_TREE_VERSION;
pub(crate) use worktree_list::WorktreeEntry;
