//! The task-coordination commands (the Python tool's agent-to-agent toolbox) and the shared COORDINATION.md.

pub(crate) mod a2a_view;
pub(crate) mod cards;
pub(crate) mod coord;
pub(crate) mod delegate;
pub(crate) mod find_agent;
pub(crate) mod learning;
pub(crate) mod memory;
pub(crate) mod resolve_conflict;
pub(crate) mod shared_context;
pub(crate) mod tasks;
