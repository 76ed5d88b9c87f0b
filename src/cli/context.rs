//! Everything a command needs, resolved once: the project root and its
//! files, the tmux server, the config (checked up front by every command;
//! see `Command::properties`), the backend and the agent registry (read on
//! first use).

use std::borrow::Cow;
use std::cell::OnceCell;
use std::env;
use std::path::PathBuf;
use std::sync::Arc;

use swarm_core::config;
use swarm_core::{
    AckSettings, AgentMatcher, Backend, Config, DiscoverOptions, Error, LoadedConfig, LockKey,
    LockStore, Operator, Paths, Profiles, ProjectRoot, Registry, RegistryState, Result, Server,
    Tmux,
};

use crate::cli::global_args::GlobalArgs;
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
    registry: OnceCell<Option<Registry>>,
    backend: OnceCell<Arc<Backend>>,
    op: OnceCell<Operator>,
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
            registry: OnceCell::new(),
            op: OnceCell::new(),
        })
    }

    /// The project's name, for titles (`COORDINATION.md`'s): the root
    /// directory's name.
    pub(super) fn project_name(&self) -> String {
        self.paths
            .root()
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "project".into())
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
    /// goes on with the defaults (for the commands `Command::properties`
    /// lets go on).
    pub(super) fn config_or_defaults(&self) {
        if let Err(e) = self.loaded_config() {
            let mut text = e.to_string();
            if let Some(hint) = e.hint() {
                text.push_str(&format!("\n  hint: {hint}"));
            }
            self.out.warn(&format!(
                "{text}\n  (this command goes on with the default settings; commands that \
                 change the swarm's state refuse to start until the problem is fixed)"
            ));
            if let Ok(defaults) = config::load_with(None, &[]) {
                let _ = self.config.set(defaults);
            }
        }
    }

    /// The project's shared state: the only way a command reads or changes
    /// it (built on first use from the config).
    pub(super) fn backend(&self) -> Result<&Backend> {
        Ok(self.shared_backend()?)
    }

    /// The same, shared with the operator.
    pub(super) fn shared_backend(&self) -> Result<&Arc<Backend>> {
        if let Some(b) = self.backend.get() {
            return Ok(b);
        }
        let backend = Arc::new(Backend::open(
            &self.paths,
            self.config()?,
            super::features::shared_stores(),
        )?);
        Ok(self.backend.get_or_init(|| backend))
    }

    /// The agent registry (`None` when there is none yet), read on first
    /// use and kept for the rest of the command, so that a damaged one is
    /// warned about once.
    pub(super) fn registry(&self) -> Result<Option<&Registry>> {
        if let Some(r) = self.registry.get() {
            return Ok(r.as_ref());
        }
        let read = self.read_registry()?;
        Ok(self.registry.get_or_init(|| read).as_ref())
    }

    /// The registry, or an empty one when there is none yet: what sending,
    /// acknowledging and redelivering look recipients up in.
    pub(super) fn registry_or_empty(&self) -> Result<Cow<'_, Registry>> {
        Ok(match self.registry()? {
            Some(r) => Cow::Borrowed(r),
            None => Cow::Owned(Registry::default()),
        })
    }

    /// Reads the registry now, without keeping it: the housekeeping runs
    /// again and again in `watch` and the dashboard, and must see what
    /// discovery changed in between. A damaged registry is warned about
    /// and read as none.
    pub(super) fn read_registry(&self) -> Result<Option<Registry>> {
        let store = self.backend()?.registry.as_ref();
        Ok(match store.read()? {
            RegistryState::Missing => None,
            RegistryState::Valid(reg, skipped) => {
                for s in skipped {
                    self.out.warn(&format!("{}: ignored {s}", store.location()));
                }
                Some(reg)
            }
            RegistryState::Corrupt(why) => {
                self.out.warn(&format!(
                    "{} is damaged ({why}); treating it as empty until `swarm discover` rebuilds it",
                    store.location()
                ));
                None
            }
        })
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

    /// The ACK retry schedule from the config.
    pub(super) fn ack_settings(&self) -> Result<AckSettings> {
        Ok(AckSettings::from_config(self.config()?))
    }

    /// Message types declared in the config, besides the built-in ones.
    pub(super) fn custom_types(&self) -> Result<Vec<String>> {
        Ok(self.config()?.messaging.custom_types.clone())
    }

    /// What this command acts on the swarm with: this project's backend,
    /// a client of its tmux server, and the config's settings (built on
    /// first use).
    pub(super) fn op(&self) -> Result<&Operator> {
        if let Some(o) = self.op.get() {
            return Ok(o);
        }
        let op = Operator::new(
            self.tmux.server().clone(),
            self.paths.clone(),
            Arc::clone(self.shared_backend()?),
            self.config()?,
        )?;
        Ok(self.op.get_or_init(|| op))
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
