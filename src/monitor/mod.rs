//! `swarm monitor`: a live view of the whole swarm (agents, locks, pending
//! acknowledgements, messages), driven by file-change events, and its plain
//! streaming form. The state and the drawing are pure; `session` owns the
//! event loop's inputs and `tui` the terminal.

mod feed;
mod filter;
mod layout;
mod palette;
mod plain;
mod render;
mod session;
mod state;
mod text;
mod tui;
mod worker;

pub use filter::{BaseFilter, ViewFilter, parse_duration};
pub use layout::{Areas, areas};
pub use palette::{TypeColor, type_color};
pub use plain::{MessageLine, message_line, status_line};
pub use render::render;
pub use session::{Event, Session, TICK, Update};
pub use state::{
    AckMark, Action, Activity, Compose, ComposeStep, DEFAULT_CAPACITY, FeedMessage, Level, Mode,
    MonitorState, Notice, Outgoing,
};
pub use tui::run as run_tui;
pub use worker::{Job, Report, Worker, WorkerSetup};
