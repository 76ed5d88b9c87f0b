//! Setting a project up and checking it: the Claude Code hooks, what
//! `swarm init` installs, and `swarm doctor`'s checks.

pub(crate) mod claude_hooks;
pub(crate) mod doctor;
pub(crate) mod mcp_config;
pub(crate) mod project;
