//! Agents: the registry and id allocation, discovery of agent panes,
//! recognising an agent's process, who is running a command, launching a
//! swarm, and the built-in demo agent.

pub mod agent_matcher;
pub mod demo_agent;
pub mod discovery;
pub mod identity;
pub mod launch;
pub mod procfs;
pub mod registry;
