//! Commands about the agents' worktrees: what each agent's branch holds,
//! and merging one into the base.

pub(crate) mod changes;
pub(crate) mod merge;
