//! The one place that spawns `tmux`. Every call names its server, puts `--`
//! before free text, keeps tmux's stderr in typed errors and never passes
//! message text as a command argument (it goes through a paste buffer).

mod client;
mod error;
mod pane;
mod server;
mod version;

pub use client::{PaneLabel, Tmux};
pub(crate) use client::{PendingScreens, PreparedPaste, ScreenDetail, SessionSpec};
pub use error::TmuxError;
pub(crate) use pane::Pane;
pub use pane::{PaneId, parse_list_panes};
pub use server::Server;
pub(crate) use version::{MINIMUM as MINIMUM_VERSION, Version};
