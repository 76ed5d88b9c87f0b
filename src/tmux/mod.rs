//! The one place that spawns `tmux`. Every call names its server, puts `--`
//! before free text, keeps tmux's stderr in typed errors and never passes
//! message text as a command argument (it goes through a paste buffer).

mod client;
mod error;
mod pane;
mod server;
mod version;

pub use client::{PaneLabel, ServerInfo, SessionSpec, Tmux};
pub use error::TmuxError;
pub use pane::{LIST_PANES_FORMAT, Pane, PaneId, parse_list_panes};
pub use server::Server;
pub use version::Version;
