//! Commands about the agents' worktrees: what each agent's branch holds,
//! merging one into the base, review rounds and the merge queue.

pub(crate) mod changes;
pub(crate) mod merge;
pub(crate) mod queue;
pub(crate) mod review;
