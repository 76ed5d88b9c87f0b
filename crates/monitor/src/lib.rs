//! `swarm monitor`: a live view of the whole swarm (agents, those who need
//! the person first, locks, pending acknowledgements, messages), driven by
//! file-change events, with keys that answer a waiting agent's dialog, and
//! its plain streaming form. The state and the drawing are pure; `session`
//! owns the event loop's inputs and `tui` the terminal.

// Items are `pub(crate)` unless the crate's API needs them.
#![warn(unreachable_pub)]

mod changes;
mod feed;
mod feed_message;
mod filter;
mod keys;
mod layout;
mod needs;
mod palette;
mod plain;
mod render;
mod session;
mod spend;
mod state;
mod text;
mod tui;
mod worker;

pub use feed_message::FeedMessage;
pub use filter::BaseFilter;
pub use palette::{TypeColor, type_color};
pub use plain::{message_line, status_line};
pub use render::render;
pub use session::{Session, Update};
pub use state::Level;
pub use state::{AgentScreen, MonitorState, ScreenDialog};
pub use tui::run as run_tui;
pub use worker::{Report, WorkerSetup};
