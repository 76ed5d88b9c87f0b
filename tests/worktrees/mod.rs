//! Agents in git worktrees of their own (`launch --worktrees`), still one
//! swarm: real git repositories, real tmux, the demo agent in the panes.
//! By feature: launching into worktrees (`launch`), overlaps between the
//! agents' branches (`overlaps`), merging (`merge`), one swarm across the
//! worktrees and hosts (`one_swarm`), `swarm down` (`down`), and the
//! guide's session (`guide`).

mod down;
mod guide;
mod launch;
mod merge;
mod one_swarm;
mod overlaps;
