//! `Project`: what the server works on (the project's state files, its
//! tmux server, the config read when the server started) and who it acts
//! as: the agent of the pane it was started in, found by the same rules as
//! the command line, again for every call (an agent registered after its
//! server started is found; the pane never changes).

use std::path::PathBuf;

use swarm_core::agents::identity;
use swarm_core::{Config, Error, LockKey, LockStore, Operator, Registry, Result};

/// The project one server works on.
#[derive(Debug)]
pub struct Project {
    /// What the server acts with: the project's files and shared state, a
    /// client of the agents' tmux server, and the config's settings.
    pub op: Operator,
    /// The directory relative lock paths start from (the agent's).
    pub cwd: PathBuf,
    /// The project's config, as it was when the server started.
    pub config: Config,
}

impl Project {
    /// The registry, or `None` when there is none yet or it is damaged
    /// (then every lookup fails as "not registered", as on the command
    /// line).
    pub(crate) fn registry(&self) -> Result<Option<Registry>> {
        Ok(self.op.backend.registry.read()?.usable())
    }

    /// The registry, empty when there is none (or it is damaged).
    pub(crate) fn registry_or_empty(&self) -> Result<Registry> {
        Ok(self.op.registry()?.0)
    }

    /// The agent this server acts as: the one whose pane (`$TMUX_PANE`)
    /// started it. There is no way to name another.
    pub(crate) fn agent(&self) -> Result<String> {
        let Some(pane) = identity::current_pane()? else {
            return Err(Error::NoIdentity(
                "swarm mcp is not running inside a tmux pane ($TMUX_PANE is not set), so it \
                 acts as no agent; start the agent (which starts this server) in an agent's pane"
                    .into(),
            ));
        };
        let registry = self.registry()?;
        identity::identify(
            &self.op.tmux,
            self.op.backend.registry.as_ref(),
            &self.op.paths,
            registry.as_ref(),
            pane.clone(),
        )
        .agent
        .ok_or_else(|| {
            Error::NoIdentity(format!(
                "pane {pane} is not a registered agent of this project; run `swarm discover` \
                     (or start agents with `swarm launch`) so that this pane gets an agent id"
            ))
        })
    }

    /// The project's file locks.
    pub(crate) fn locks(&self) -> &dyn LockStore {
        &*self.op.backend.locks
    }

    /// A lock path or pattern, normalised against the project.
    pub(crate) fn lock_key(&self, raw: &str) -> Result<LockKey> {
        Ok(LockKey::resolve(raw, self.op.paths.root(), &self.cwd)?)
    }
}
