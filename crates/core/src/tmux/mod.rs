//! The one place that spawns `tmux`. Every call names its server, puts `--`
//! before free text, keeps tmux's stderr in typed errors and never passes
//! message text as a command argument (it goes through a paste buffer).

mod args;
mod client;
mod error;
mod pane;
mod panes;
mod pending;
mod process;
mod screens;
mod script;
mod server;
mod sessions;
mod status;
#[cfg(test)]
mod test_pane;
mod typing;
mod version;

pub use client::Tmux;
pub use error::TmuxError;
pub use pane::Pane;
pub use pane::{PaneId, parse_list_panes};
pub use panes::PaneLabel;
pub(crate) use screens::{PendingScreens, Rows, ScreenDetail};
pub use server::Server;
pub(crate) use sessions::{NewPaneLabel, SessionSpec};
pub(crate) use status::SessionNotice;
pub(crate) use typing::PreparedPaste;
pub(crate) use version::{MINIMUM as MINIMUM_VERSION, Version};
