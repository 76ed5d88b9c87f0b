//! Everything a command needs, resolved once: the project root and its
//! files, the tmux server, the config (checked up front by every command;
//! see `app::check_config`).

use std::cell::OnceCell;
use std::env;
use std::path::PathBuf;

use crate::acks::AckSettings;
use crate::agents::agent_matcher::AgentMatcher;
use crate::agents::discovery::DiscoverOptions;
use crate::agents::profile::Profiles;
use crate::backend::Backend;
use crate::config::{self, Config, LoadedConfig};
use crate::error::{Error, Result};
use crate::locks::{LockKey, LockStore};
use crate::messaging::{MessagingSettings, Messenger};
use crate::store::{Paths, ProjectRoot};
use crate::tmux::{Server, Tmux};

use crate::cli::args::GlobalArgs;
use crate::cli::output::Output;

/// The resolved environment of one command.
pub(super) struct Context {
    /// Where output goes.
    pub out: Output,
    /// The project root and how it was found.
    pub root: ProjectRoot,
    /// The state-file layout under the root.
    pub paths: Paths,
    /// The tmux server.
    pub tmux: Tmux,
    /// The current directory (relative lock paths start there).
    pub cwd: PathBuf,
    config: OnceCell<LoadedConfig>,
    backend: OnceCell<Backend>,
}

impl Context {
    /// Resolves the root and the tmux server (neither runs anything).
    pub(super) fn new(global: &GlobalArgs, out: Output) -> Result<Context> {
        let cwd = env::current_dir().map_err(|source| Error::Io {
            what: "read the current directory".into(),
            source,
        })?;
        let root = ProjectRoot::detect(
            global.root.as_deref(),
            env::var_os("CLAUDESWARM_ROOT").as_deref(),
            &cwd,
        )?;
        let paths = Paths::new(root.path.clone());
        let server = Server::select(
            global.tmux_socket.as_deref(),
            env::var_os("TMUX").as_deref(),
        );
        Ok(Context {
            out,
            root,
            paths,
            tmux: Tmux::new(server),
            cwd,
            config: OnceCell::new(),
            backend: OnceCell::new(),
        })
    }

    /// The config, loaded from the project root on first use.
    pub(super) fn config(&self) -> Result<&Config> {
        Ok(&self.loaded_config()?.config)
    }

    /// The config with the files it came from and the origin of each
    /// value: the file found from the project root upward over the
    /// per-user file, overridden by `SWARM_<SECTION>_<KEY>` variables.
    /// What it ignored (a secret in the project's file) is said once, as
    /// a warning.
    pub(super) fn loaded_config(&self) -> Result<&LoadedConfig> {
        if let Some(c) = self.config.get() {
            return Ok(c);
        }
        let loaded = config::load(self.paths.root(), &config::process_env())?;
        for warning in &loaded.warnings {
            self.out.warn(warning);
        }
        Ok(self.config.get_or_init(|| loaded))
    }

    /// Loads the config; when it has problems, says so as a warning and
    /// goes on with the defaults (for commands that only read).
    pub(super) fn config_or_defaults(&self) {
        if let Err(e) = self.loaded_config() {
            let mut text = e.to_string();
            if let Some(hint) = e.hint() {
                text.push_str(&format!("\n  hint: {hint}"));
            }
            self.out.warn(&format!(
                "{text}\n  (this command only reads, so it goes on with the default settings)"
            ));
            if let Ok(defaults) = config::load_with(None, &[]) {
                let _ = self.config.set(defaults);
            }
        }
    }

    /// The project's shared state: the only way a command reads or changes
    /// it (built on first use from the config).
    pub(super) fn backend(&self) -> Result<&Backend> {
        if let Some(b) = self.backend.get() {
            return Ok(b);
        }
        let backend = Backend::open(&self.paths, self.config()?)?;
        Ok(self.backend.get_or_init(|| backend))
    }

    /// The project's file locks.
    pub(super) fn locks(&self) -> Result<&dyn LockStore> {
        Ok(self.backend()?.locks.as_ref())
    }

    /// A lock path or pattern as typed, normalised against the project.
    pub(super) fn lock_key(&self, raw: &str) -> Result<LockKey> {
        Ok(LockKey::resolve(raw, self.paths.root(), &self.cwd)?)
    }

    /// Several of them, in order; the first invalid one is the error.
    pub(super) fn lock_keys(&self, raw: &[String]) -> Result<Vec<LockKey>> {
        raw.iter().map(|p| self.lock_key(p)).collect()
    }

    /// The agent recogniser configured for this project.
    /// Its process facts come from the backend `SWARM_PROCESS_BACKEND`
    /// names (`auto` when unset).
    pub(super) fn matcher(&self) -> Result<AgentMatcher> {
        Ok(AgentMatcher::for_config(self.config()?)?)
    }

    /// The agent profiles: built in, with the config's laid over them.
    pub(super) fn profiles(&self) -> Result<Profiles> {
        Ok(Profiles::new(&self.config()?.profiles))
    }

    /// Messaging settings from the config.
    pub(super) fn messaging_settings(&self) -> Result<MessagingSettings> {
        Ok(MessagingSettings::from_config(self.config()?))
    }

    /// The ACK retry schedule from the config.
    pub(super) fn ack_settings(&self) -> Result<AckSettings> {
        Ok(AckSettings::from_config(self.config()?))
    }

    /// Message types declared in the config, besides the built-in ones.
    pub(super) fn custom_types(&self) -> Result<Vec<String>> {
        Ok(self.config()?.messaging.custom_types.clone())
    }

    /// A messenger over this project's backend and tmux server.
    pub(super) fn messenger<'a>(
        &'a self,
        matcher: &'a AgentMatcher,
        settings: MessagingSettings,
    ) -> Result<Messenger<'a>> {
        let backend = self.backend()?;
        Ok(Messenger {
            tmux: &self.tmux,
            paths: &self.paths,
            matcher,
            settings,
            acks: &*backend.acks,
            held: &*backend.held,
            rates: &*backend.rates,
            log: &*backend.log,
            relay: backend.relay.as_deref(),
        })
    }

    /// Discovery settings from the config, with an optional override of
    /// the stale threshold.
    pub(super) fn discover_options(&self, stale_threshold: Option<u64>) -> Result<DiscoverOptions> {
        let d = &self.config()?.discovery;
        Ok(DiscoverOptions {
            stale_after_secs: stale_threshold.unwrap_or(u64::from(d.stale_threshold)),
            cross_project: d.enable_cross_project_coordination,
        })
    }
}
