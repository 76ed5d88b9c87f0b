//! `swarm dashboard`: a small web server that shows the swarm live in a
//! browser (agents, locks, pending acknowledgements, messages), with the
//! Python tool's JSON API and event stream (README, Dashboard), fixing what
//! docs/PYTHON.md lists of the original: authentication covers every path, the page needs no inline
//! script, stale locks are left out, a deleted lock is noticed, and the
//! files are read afresh for every request.

mod api;
mod app;
mod assets;
mod basic_auth;
mod browser;
mod cors;
mod error;
mod event_stream;
mod listen;
mod live;
mod message_feed;
mod request;
mod response;
mod server;
mod settings;
mod slots;

pub(crate) use basic_auth::BasicAuth;
pub(crate) use browser::{Opened, open as open_browser};
pub(crate) use cors::Cors;
pub(crate) use server::Server;
pub(crate) use settings::Settings;
