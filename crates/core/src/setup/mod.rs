//! Setting a project up and checking it: the agents' own hooks, what
//! `swarm init` installs, and `swarm doctor`'s checks.

pub mod agent_hooks;
pub mod doctor;
pub mod hook_source;
pub mod mcp_config;
pub mod project;
