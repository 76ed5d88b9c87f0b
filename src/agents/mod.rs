//! Agents: the registry and id allocation, discovery of agent panes,
//! recognising an agent's process, who is running a command, launching a
//! swarm and recording its sessions, the built-in demo agent, and reading
//! agents' screens: their state (`screen.rs`) and what they printed
//! themselves (`transcript.rs`).

pub(crate) mod agent_matcher;
pub(crate) mod demo_agent;
pub(crate) mod discovery;
pub(crate) mod identity;
pub(crate) mod launch;
pub(crate) mod on_files;
pub(crate) mod pane_state;
pub(crate) mod process;
pub(crate) mod profile;
pub(crate) mod registry;
pub(crate) mod registry_store;
pub(crate) mod screen;
pub(crate) mod sessions;
pub(crate) mod transcript;
