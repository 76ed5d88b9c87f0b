//! The agents' own hooks at work: what one run of `swarm hook <agent>`
//! does for the agent it runs for (`handle.rs`), and what Claude Code's
//! prompt hook adds to a prompt (`prompt_inbox.rs`). Their installation,
//! and which source tells swarm about each agent, are `setup::agent_hooks`
//! and `setup::hook_source`; reading their payloads,
//! `attention::hook_payload`.

pub mod handle;
pub mod prompt_inbox;
