//! Notifications: telling the person, outside the agent's pane, that an
//! agent needs them. An attention event of the feed (`FeedEntry`, see
//! `attention::event`) goes out through each channel that is on:
//!
//! * tmux: a notice on the status line and a marker on the agent's
//!   window; raised by the watcher itself, so here it is only a setting.
//! * desktop (`desktop.rs`): a desktop notification, D-Bus on Linux and
//!   the BSDs, the notification centre on macOS; off, with one warning,
//!   where no desktop session can be reached.
//! * webhook (`webhook.rs`): an HTTP POST of the event to one URL (ntfy,
//!   Slack, Discord, or any JSON receiver), retried with backoff.
//! * command (`command.rs`): a shell command, the event in its
//!   environment, never in its text.
//!
//! `Notifier` (`notifier.rs`) sends to every channel for the kinds
//! `[notify] events` names, never blocking its caller; a failed delivery
//! comes back as a `notify_failed` feed entry (`delivery.rs`). `swarm
//! notify-event` (named in `detached.rs`) delivers one event in a process
//! of its own. The webhook URL and the
//! command are secrets: they come only from the environment or the user's
//! own config file, and a failure names a webhook's host, never its URL.

mod command;
mod delivery;
mod desktop;
mod detached;
mod message;
mod notifier;
mod settings;
mod webhook;

pub use detached::NOTIFY_EVENT_COMMAND;
pub use notifier::Notifier;
pub use settings::NotifySettings;
