//! `Settings`: everything the dashboard server needs to know, decided
//! before it starts: the project, the stale-lock timeout, how often to
//! look for changes, authentication, CORS, and where to report problems.

use std::sync::Arc;
use std::time::Duration;

use crate::store::Paths;

use super::basic_auth::BasicAuth;
use super::cors::Cors;

/// Receives what the server has to tell its operator (it prints nothing
/// itself).
pub(crate) type Report = Arc<dyn Fn(&str) + Send + Sync>;

/// The server's settings.
#[derive(Clone)]
pub(crate) struct Settings {
    /// The project whose files are served (every request reads them
    /// afresh).
    pub paths: Paths,
    /// Locks older than this many seconds are stale and not listed.
    pub stale_after: u32,
    /// How often open event streams look for changes that no file event
    /// announced (and for locks going stale).
    pub tick: Duration,
    /// Credentials required on every request, when set.
    pub auth: Option<BasicAuth>,
    /// Which other origins may call the API from a browser.
    pub cors: Cors,
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
            .finish_non_exhaustive()
    }
}
