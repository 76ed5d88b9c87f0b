//! The agents' own hooks at work: what one run of `swarm hook <agent>`
//! does for the agent it runs for (`handle.rs`), and which source, hooks
//! or screen, tells swarm about each agent and why (`status.rs`). Their
//! installation is `setup::agent_hooks`; reading their payloads,
//! `attention::hook_payload`.

pub mod handle;
pub mod status;
