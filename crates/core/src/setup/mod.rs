//! Setting a project up and checking it: what `swarm init` installs
//! (the agents' own hooks among it, through `crate::hooks`), and `swarm
//! doctor`'s checks.

pub mod doctor;
pub mod mcp_config;
pub mod project;
