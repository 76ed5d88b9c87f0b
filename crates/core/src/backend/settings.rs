//! `[store]` resolved for one project: which backend, where its server is,
//! the swarm's name and this host's name.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::config::{StoreBackend, StoreConfig};
use crate::domain::validate::{self, ValidationError};

/// Where this project's shared state lives.
#[derive(Clone, Debug)]
pub(crate) enum StoreLocation {
    /// The project's state files.
    Files,
    /// A Redis server.
    Redis(RedisLocation),
}

/// A Redis server named by `[store]`, checked: what the Redis backend
/// crate connects to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RedisLocation {
    /// `redis://` or `rediss://`, with a password if the user gave one.
    pub url: String,
    /// The swarm's name: the prefix of every key.
    pub name: String,
    /// How long one command waits for the server.
    pub timeout: Duration,
    /// Certificates to trust besides the system's (`store.tls_ca_file`).
    pub tls_ca_file: Option<PathBuf>,
}

impl RedisLocation {
    /// The URL for people: never with its password.
    pub fn shown_url(&self) -> String {
        validate::redact_url(&self.url)
    }
}

/// The store settings of one project.
#[derive(Clone, Debug)]
pub(crate) struct StoreSettings {
    /// Files or a server.
    pub location: StoreLocation,
    /// This machine's name in the swarm.
    pub host: String,
}

/// Why `[store]` cannot be used as configured.
#[derive(Debug, thiserror::Error)]
pub(crate) enum SettingsError {
    /// `backend = "redis"` without a URL.
    #[error("store.backend is \"redis\" but no server is named")]
    NoUrl,
    /// A name or URL failed its check.
    #[error(transparent)]
    Invalid(#[from] ValidationError),
}

impl StoreSettings {
    /// The state files, on this host.
    pub(crate) fn files() -> StoreSettings {
        StoreSettings {
            location: StoreLocation::Files,
            host: default_name(&gethostname::gethostname().to_string_lossy(), "localhost"),
        }
    }

    /// Resolves `config` for the project at `root`: the swarm's name
    /// defaults to the project directory's name (characters a key cannot
    /// hold become `-`), the host's to this machine's host name.
    pub(crate) fn resolve(
        config: &StoreConfig,
        root: &Path,
    ) -> Result<StoreSettings, SettingsError> {
        let host = match &config.host {
            Some(h) => validate::store_name(h)?,
            None => default_name(&gethostname::gethostname().to_string_lossy(), "localhost"),
        };
        let location = match config.backend {
            StoreBackend::Files => StoreLocation::Files,
            StoreBackend::Redis => {
                let url = config.url.as_deref().ok_or(SettingsError::NoUrl)?;
                let url = validate::store_url(url)?;
                let name = match &config.name {
                    Some(n) => validate::store_name(n)?,
                    None => default_name(
                        &root
                            .file_name()
                            .map(|n| n.to_string_lossy().into_owned())
                            .unwrap_or_default(),
                        "swarm",
                    ),
                };
                let timeout = Duration::from_millis(u64::from(config.timeout_ms));
                let ca = config.tls_ca_file.as_ref().map(|f| root.join(f));
                StoreLocation::Redis(RedisLocation {
                    url,
                    name,
                    timeout,
                    tls_ca_file: ca,
                })
            }
        };
        Ok(StoreSettings { location, host })
    }
}

/// `raw` made a valid store name: characters outside `A-Z a-z 0-9 . _ -`
/// become `-`, cut to 64 characters; `fallback` when nothing is left.
fn default_name(raw: &str, fallback: &str) -> String {
    let cleaned: String = raw
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '-'
            }
        })
        .take(validate::MAX_STORE_NAME_LEN)
        .collect();
    let trimmed = cleaned.trim_start_matches(['.', '_', '-']);
    match validate::store_name(trimmed) {
        Ok(name) => name,
        Err(_) => fallback.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_default_to_the_directory_and_the_host() {
        assert_eq!(default_name("my project", "swarm"), "my-project");
        assert_eq!(default_name(".hidden", "swarm"), "hidden");
        assert_eq!(default_name("ünï", "swarm"), "n-");
        assert_eq!(default_name("", "swarm"), "swarm");
        let mut c = StoreConfig {
            backend: StoreBackend::Redis,
            ..StoreConfig::default()
        };
        assert!(matches!(
            StoreSettings::resolve(&c, Path::new("/w/proj")),
            Err(SettingsError::NoUrl)
        ));
        c.url = Some("redis://127.0.0.1:6379".into());
        let s = StoreSettings::resolve(&c, Path::new("/w/proj")).expect("ok");
        assert!(matches!(&s.location, StoreLocation::Redis(t) if t.name == "proj"));
        assert!(!s.host.is_empty());
        c.host = Some("a b".into());
        assert!(StoreSettings::resolve(&c, Path::new("/w/proj")).is_err());
    }
}
