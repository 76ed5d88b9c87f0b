//! `Operator`: what every front door (a command, the monitor, the
//! dashboard, the MCP server) acts on the swarm with: a client of the tmux
//! server, the project's files and shared state, the agent recogniser and
//! the settings the config gives. It is the one place a `Messenger` is
//! built, and it runs the housekeeping (`housekeeping.rs`).

use std::sync::Arc;

use crate::acks::AckSettings;
use crate::agents::agent_matcher::AgentMatcher;
use crate::agents::registry::Registry;
use crate::config::Config;
use crate::error::Result;
use crate::messaging::{MessagingSettings, Messenger};
use crate::store::Paths;
use crate::tmux::{Server, Tmux};

use super::Backend;

/// The pieces a front door acts with, owned, so that a long-running one
/// can keep them (or hand them to a thread of its own).
#[derive(Debug)]
pub(crate) struct Operator {
    /// A client of the tmux server the agents run on.
    pub tmux: Tmux,
    /// The project's files.
    pub paths: Paths,
    /// The project's shared state.
    pub backend: Arc<Backend>,
    /// Recognises agents in panes.
    pub matcher: AgentMatcher,
    /// Delivery and rate-limit settings.
    pub messaging: MessagingSettings,
    /// The ACK retry schedule (its timeout for messages sent with an ACK).
    pub acks: AckSettings,
    /// Message types declared in the config, besides the built-in ones.
    pub custom_types: Vec<String>,
}

impl Operator {
    /// The operator of the project laid out by `paths`, whose shared state
    /// is `backend` and whose agents run on `server`, set up as `config`
    /// says. Fails only when the agent recogniser cannot be set up (an
    /// unknown `SWARM_PROCESS_BACKEND`).
    pub(crate) fn new(
        server: Server,
        paths: Paths,
        backend: Arc<Backend>,
        config: &Config,
    ) -> Result<Operator> {
        Ok(Operator {
            tmux: Tmux::new(server),
            paths,
            backend,
            matcher: AgentMatcher::for_config(config)?,
            messaging: MessagingSettings::from_config(config),
            acks: AckSettings::from_config(config),
            custom_types: config.messaging.custom_types.clone(),
        })
    }

    /// A messenger over this project: what sends, redelivers, releases
    /// held messages and hands deliveries between hosts.
    pub(crate) fn messenger(&self) -> Messenger<'_> {
        let backend = &*self.backend;
        Messenger {
            tmux: &self.tmux,
            paths: &self.paths,
            matcher: &self.matcher,
            settings: self.messaging.clone(),
            acks: &*backend.acks,
            held: &*backend.held,
            rates: &*backend.rates,
            log: &*backend.log,
            relay: backend.relay.as_deref(),
        }
    }

    /// The registry to act on, empty when there is none or it is damaged,
    /// with what a person should be told about it (entries ignored, the
    /// damage). Fails when the store cannot be read.
    pub(crate) fn registry(&self) -> Result<(Registry, Vec<String>)> {
        let store = self.backend.registry.as_ref();
        Ok(store.read()?.or_empty(&store.location()))
    }
}
