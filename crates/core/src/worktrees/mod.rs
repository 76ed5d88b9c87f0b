//! Agents in git worktrees of their own, still one swarm: making the
//! worktrees before their panes start (`prepare.rs`), what each agent's
//! branch holds and which files two agents both changed (`changes.rs`,
//! told once through `overlap_notices.rs`), merging a branch only when it
//! merges cleanly (`merge.rs`), and removing the worktrees that hold
//! nothing unmerged (`cleanup.rs`); each agent's slot, ports, included
//! files and hooks (`workspace.rs`), and who committed what since a time
//! (`since.rs`). Every git call goes through `git/`. Review comments on
//! an agent's branch (`crate::review`) and the merge queue
//! (`crate::merge_queue`) stand on this room.

mod changes;
mod cleanup;
mod error;
mod merge;
mod overlap_notices;
mod prepare;
mod repository;
mod since;
mod workspace;

pub use changes::Overlap;
pub use changes::{AgentChanges, Changes, changes};
pub use cleanup::{Keep, RemovalVerdict, removal_verdicts, remove};
pub use error::WorktreeError;
pub(crate) use merge::check_main_worktree;
pub use merge::{MergeKind, Merged, merge};
pub use overlap_notices::OverlapNotices;
pub use prepare::{Prepared, prepare};
pub use repository::{Repository, agent_worktree_dirs};
pub(crate) use repository::{branch_of, inside};
pub use since::{AgentCommit, AgentHistory, history_since, parse_since};
pub(crate) use workspace::copy_included;
pub use workspace::{Workspace, workspaces};
