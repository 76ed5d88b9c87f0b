//! Commands about agents: finding them, listing them, who am I, launching and stopping a swarm, and the demo agent.

pub(crate) mod codex_pane;
pub(crate) mod demo_agent;
pub(crate) mod discover;
pub(crate) mod down;
pub(crate) mod launch;
pub(crate) mod list;
pub(crate) mod resume;
pub(crate) mod sessions;
pub(crate) mod whoami;
