//! `Settings`: everything the dashboard server needs to know, decided
//! before it starts: the project, the stale-lock timeout, how often to
//! look for changes, authentication (a password or the URL's secret), CORS, the Host names it answers to,
//! what the operator acts with, and where to report problems.

use std::sync::Arc;
use std::time::Duration;

use swarm_core::{Backend, Operator, Paths};

use super::access_key::AccessKey;
use super::allowed_hosts::AllowedHosts;
use super::basic_auth::BasicAuth;
use super::cors::Cors;

/// Receives what the server has to tell its operator (it prints nothing
/// itself).
pub(crate) type Report = Arc<dyn Fn(&str) + Send + Sync>;

/// The server's settings.
#[derive(Clone)]
pub struct Settings {
    /// The project whose files are served (every request reads them
    /// afresh).
    pub paths: Paths,
    /// The project's shared state.
    pub backend: Arc<Backend>,
    /// Locks older than this many seconds are stale and not listed.
    pub stale_after: u32,
    /// How often open event streams look for changes that no file event
    /// announced (and for locks going stale).
    pub tick: Duration,
    /// Credentials required on every request, when set.
    pub auth: Option<BasicAuth>,
    /// The secret every request needs when no credentials are set (the
    /// printed URL carries it).
    pub key: AccessKey,
    /// Which other origins may read the API from a browser.
    pub cors: Cors,
    /// The Host headers answered; every other one is refused.
    pub hosts: AllowedHosts,
    /// What the page's actions run with: the same pieces `swarm msg`,
    /// `swarm ack` and `swarm unlock --force` are given.
    pub op: Arc<Operator>,
    /// The sender id of messages sent from the page, and the agent a
    /// forced release is recorded under.
    pub person_id: String,
    /// Where problems go (a file that cannot be read, ...).
    pub report: Report,
}

impl std::fmt::Debug for Settings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Settings")
            .field("paths", &self.paths)
            .field("stale_after", &self.stale_after)
            .field("tick", &self.tick)
            .field("auth", &self.auth)
            .field("cors", &self.cors)
            .field("hosts", &self.hosts)
            .field("person_id", &self.person_id)
            .finish_non_exhaustive()
    }
}
