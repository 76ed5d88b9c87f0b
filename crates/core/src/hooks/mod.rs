//! The agents' own hooks, in one room: what an agent's hook hands over
//! (`payload.rs`: its JSON read into a `HookEvent`), whose hooks were seen
//! reporting and what their prompts confirmed (`sightings.rs`), swarm's
//! entries in each agent's settings (`install.rs`), which source tells
//! swarm about an agent, its hooks or its screen (`source.rs`), one run of
//! `swarm hook <agent>` (`handle.rs`) and what Claude Code's prompt hook
//! adds to a prompt (`prompt_inbox.rs`).
//!
//! The room has two levels. `payload` and `sightings` need only the store
//! and the support below them, so the operations (the sender waiting for
//! a prompt hook's confirmation, delivery) reach them through the names
//! this file re-exports; `install`, `source`, `handle` and `prompt_inbox`
//! stand on the operations and the operator, below set-up and the watcher
//! (docs/ARCHITECTURE.md, the import order).

pub mod handle;
pub mod install;
pub mod payload;
pub mod prompt_inbox;
pub mod sightings;
pub mod source;

pub use payload::{HookEvent, Signal, VENDORS, Vendor};
pub use sightings::{HookSightings, Sighting};
