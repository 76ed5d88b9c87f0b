//! The project's watcher: the one loop that does what must happen while
//! nobody types a command (held messages, ACK retries, attention events
//! and notifications, hand-overs between hosts, lines agents printed to
//! send), one per project and host, in the foreground (`swarm watch`) or
//! started in the background by the commands that need it. The loop
//! (`watch_loop.rs`) runs one part per job, each in its own file.

mod attention_round;
mod catch_up;
mod discovery;
mod ending;
mod housekeeping;
mod limits_round;
mod notices;
mod outage;
mod print_to_send;
pub mod service;
mod status_lines;
mod throttle;
mod watch_loop;

pub use outage::Said;
pub use watch_loop::{Carried, Ended, WatchSettings, Watcher};
