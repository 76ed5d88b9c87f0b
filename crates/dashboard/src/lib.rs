//! `swarm dashboard`: a web server (axum and tower-http on tokio) that
//! shows the swarm live in a browser (who needs the person first, then
//! agents, locks, pending acknowledgements, messages and the activity
//! feed) with the Python tool's JSON API and event stream
//! (docs/guide/dashboard.md), and lets the person at the page act as the
//! operator (answer a dialog, send, acknowledge for a recipient,
//! force-release a lock). It serves nothing without the secret of the URL
//! it printed (or the password, when one is set), answers only to the
//! Host names it was started on, takes
//! actions only from its own page, needs no inline script, and reads the
//! files afresh for every request. docs/SECURITY.md says what it
//! guarantees.

// Items are `pub(crate)` unless the crate's API needs them.
#![warn(unreachable_pub)]

mod access_key;
mod action_guard;
mod actions;
mod activity;
mod allowed_hosts;
mod api;
mod app;
mod assets;
mod basic_auth;
mod browser;
mod conversations;
mod cors;
mod error;
mod event_stream;
mod listen;
mod live;
mod message_feed;
mod middleware;
mod needs;
mod reply;
mod screens;
mod server;
mod settings;
mod url_files;

pub use access_key::AccessKey;
pub use allowed_hosts::AllowedHosts;
pub use basic_auth::BasicAuth;
pub use browser::{Opened, open as open_browser};
pub use cors::Cors;
pub use server::Server;
pub use settings::Settings;
pub use url_files::UrlFiles;
