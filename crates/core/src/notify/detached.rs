//! The hidden subcommand that delivers one notification in a process of
//! its own: `swarm notify-event` reads one event on its stdin, delivers it
//! through the outside channels with their retries, and exits.

/// The hidden subcommand that delivers one event read on its stdin.
pub const NOTIFY_EVENT_COMMAND: &str = "notify-event";
