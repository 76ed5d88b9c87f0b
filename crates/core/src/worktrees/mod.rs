//! Agents in git worktrees of their own, still one swarm: making the
//! worktrees before their panes start (`prepare.rs`), what each agent's
//! branch holds and which files two agents both changed (`changes.rs`,
//! told once through `overlap_notices.rs`), merging a branch only when it
//! merges cleanly (`merge.rs`), and removing the worktrees that hold
//! nothing unmerged (`cleanup.rs`); review rounds on an agent's branch
//! (`review.rs`, anchored by `anchor.rs`), the merge queue that tests
//! each merge before the base moves (`queue.rs`), each agent's slot,
//! ports, included files and hooks (`workspace.rs`), and who committed
//! what since a time (`since.rs`). Every git call goes through `git/`.

mod anchor;
mod changes;
mod cleanup;
mod error;
mod merge;
mod overlap_notices;
mod prepare;
mod queue;
mod repository;
mod review;
mod since;
mod workspace;

pub use changes::Overlap;
pub use changes::{AgentChanges, Changes, changes};
pub use cleanup::{Keep, Verdict, remove, review};
pub use error::WorktreeError;
pub use merge::{MergeKind, Merged, merge};
pub use overlap_notices::OverlapNotices;
pub use prepare::{Prepared, prepare};
pub use queue::{
    LastTry, Outcome, Planned, QueueEntry, QueueRun, TestPlan, Tried, dequeue, failure_text,
    planned, run_queue,
};
pub use repository::{Repository, agent_worktree_dirs};
pub use review::{
    CommentStatus, DiffSummary, NewComment, ReviewComment, comment, diff_summary, mark_sent,
    refresh, request_text, resolve, round_text,
};
pub use since::{AgentCommit, AgentHistory, history_since, parse_since};
pub use workspace::{Workspace, workspaces};
