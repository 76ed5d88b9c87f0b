//! Agents in git worktrees of their own, still one swarm: making the
//! worktrees before their panes start (`prepare.rs`), what each agent's
//! branch holds and which files two agents both changed (`changes.rs`,
//! told once through `overlap_notices.rs`), merging a branch only when it
//! merges cleanly (`merge.rs`), and removing the worktrees that hold
//! nothing unmerged (`cleanup.rs`). Every git call goes through `git/`.

mod changes;
mod cleanup;
mod error;
mod merge;
mod overlap_notices;
mod prepare;
mod repository;

pub use changes::Overlap;
pub use changes::{AgentChanges, Changes, changes};
pub use cleanup::{Keep, Verdict, remove, review};
pub use error::WorktreeError;
pub use merge::{MergeKind, Merged, merge};
pub use overlap_notices::OverlapNotices;
pub use prepare::{Prepared, prepare};
pub use repository::{Repository, agent_worktree_dirs};
