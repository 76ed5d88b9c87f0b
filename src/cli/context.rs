//! Everything a command needs, resolved once: the project root and its
//! files, the tmux server, the config (loaded on first use, so that a
//! broken config does not stop commands that do not read it).

use std::cell::OnceCell;
use std::env;
use std::path::PathBuf;
use std::time::Duration;

use crate::acks::AckSettings;
use crate::agents::agent_matcher::AgentMatcher;
use crate::agents::discovery::DiscoverOptions;
use crate::agents::profile::Profiles;
use crate::config::{self, Config, LoadedConfig};
use crate::error::{Error, Result};
use crate::locks::{LockKey, LockTable};
use crate::messaging::delivery::DeliverySettings;
use crate::messaging::rate_limit::RateLimit;
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
        })
    }

    /// The config, loaded from the project root on first use.
    pub(super) fn config(&self) -> Result<&Config> {
        Ok(&self.loaded_config()?.config)
    }

    /// The config with the file it came from and the origin of each
    /// value: the file found from the project root upward, overridden by
    /// `SWARM_<SECTION>_<KEY>` variables.
    pub(super) fn loaded_config(&self) -> Result<&LoadedConfig> {
        if let Some(c) = self.config.get() {
            return Ok(c);
        }
        let loaded = config::load(self.paths.root(), &config::process_env())?;
        Ok(self.config.get_or_init(|| loaded))
    }

    /// The project's file locks, with the configured stale timeout.
    pub(super) fn lock_table(&self) -> Result<LockTable> {
        Ok(LockTable::new(
            &self.paths,
            self.config()?.locking.stale_timeout,
        ))
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
    pub(super) fn matcher(&self) -> Result<AgentMatcher> {
        let c = self.config()?;
        // Programs named by the project's own profiles are agents too.
        let extra = c
            .profiles
            .values()
            .flat_map(|p| p.commands.iter().flatten().cloned());
        Ok(AgentMatcher::new(
            c.discovery.agent_commands.iter().cloned().chain(extra),
        ))
    }

    /// The agent profiles: built in, with the config's laid over them.
    pub(super) fn profiles(&self) -> Result<Profiles> {
        Ok(Profiles::new(&self.config()?.profiles))
    }

    /// Messaging settings from the config.
    pub(super) fn messaging_settings(&self) -> Result<MessagingSettings> {
        let c = self.config()?;
        Ok(MessagingSettings {
            rate: RateLimit {
                max: c.rate_limiting.messages_per_minute,
                window: Duration::from_secs(u64::from(c.rate_limiting.window_seconds)),
            },
            delivery: DeliverySettings {
                pause: c
                    .messaging
                    .delivery_pause_ms
                    .map(|ms| Duration::from_millis(u64::from(ms))),
                confirm: c.messaging.confirm_delivery,
                profiles: Profiles::new(&c.profiles),
                ..DeliverySettings::default()
            },
            max_inline_bytes: c.messaging.max_inline_bytes as usize,
        })
    }

    /// The ACK retry schedule from the config.
    pub(super) fn ack_settings(&self) -> Result<AckSettings> {
        let a = &self.config()?.acks;
        let secs = |s: u32| Duration::from_secs(u64::from(s));
        Ok(AckSettings {
            timeout: secs(a.timeout_seconds),
            delays: a.retry_delays.iter().copied().map(secs).collect(),
            max_retries: a.max_retries,
        })
    }

    /// Message types declared in the config, besides the built-in ones.
    pub(super) fn custom_types(&self) -> Result<Vec<String>> {
        Ok(self.config()?.messaging.custom_types.clone())
    }

    /// A messenger over this project and tmux server.
    pub(super) fn messenger<'a>(
        &'a self,
        matcher: &'a AgentMatcher,
        settings: MessagingSettings,
    ) -> Messenger<'a> {
        Messenger {
            tmux: &self.tmux,
            paths: &self.paths,
            matcher,
            settings,
        }
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
