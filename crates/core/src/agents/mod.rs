//! Agents: the registry and id allocation, discovery of agent panes,
//! recognising an agent's process, who is running a command, launching a
//! swarm and recording its sessions, the built-in demo agent, and reading
//! agents' screens: their state (`screen.rs`) and what they printed
//! themselves (`transcript.rs`).

pub mod agent_matcher;
pub mod demo_agent;
mod demo_conversation;
pub(crate) mod demo_hooks;
pub(crate) mod demo_native;
mod demo_words;
pub mod discovery;
pub mod identity;
pub mod launch;
pub(crate) mod on_files;
pub mod pane_state;
pub(crate) mod process;
pub mod profile;
pub mod registry;
pub mod registry_store;
pub(crate) mod screen;
pub mod seen_states;
pub mod sessions;
pub(crate) mod transcript;
