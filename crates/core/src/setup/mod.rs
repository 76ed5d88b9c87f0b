//! Setting a project up and checking it: the Claude Code hooks, what
//! `swarm init` installs, and `swarm doctor`'s checks.

pub mod agent_hooks;
pub mod doctor;
pub mod mcp_config;
pub mod project;
