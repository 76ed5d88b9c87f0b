//! The merge queue (the merge train): agents waiting to be merged into
//! the base branch, kept in `.swarm/merge_queue.json` (docs/FORMATS.md),
//! each merge built and tested in a scratch worktree before the base
//! moves to it (`train.rs`). It stands on `worktrees` (the agents'
//! branches, the main worktree's check, the included files); the verbs
//! are `ops::merge_queue` and the command line's `swarm merge --queue`
//! and `swarm queue`.

mod train;

pub use train::{LastTry, MergeOutcome, MergeQueueRun, PlannedMerge, TestPlan};
pub(crate) use train::{Tried, failure_text, leave, order, run};
