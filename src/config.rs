//! Configuration: `.claudeswarm.toml` or `.claudeswarm.yaml`, searched from
//! the project root upward. Every key of the Python tool (spec 12) with its
//! default, plus swarm's own. Unknown keys and wrong types are errors that
//! name the key and the file; range checks report every problem at once.

use std::fmt;
use std::fs;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::agent_matcher::DEFAULT_AGENT_COMMANDS;

/// File names searched in each directory, in order.
pub const CONFIG_FILE_NAMES: [&str; 2] = [".claudeswarm.yaml", ".claudeswarm.toml"];

/// Largest config file accepted (parity: 1 MiB).
pub const MAX_CONFIG_BYTES: u64 = 1_048_576;

/// The whole configuration.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    /// Message rate limits.
    pub rate_limiting: RateLimiting,
    /// File locks.
    pub locking: Locking,
    /// Agent discovery.
    pub discovery: Discovery,
    /// Onboarding (accepted for parity).
    pub onboarding: Onboarding,
    /// Web dashboard (accepted for parity).
    pub dashboard: Dashboard,
    /// Accepted for parity; the project root is found as spec 2.1 says.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub project_root: Option<PathBuf>,
}

/// `[rate_limiting]`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RateLimiting {
    /// Messages a sender may send per window (1..=1000).
    pub messages_per_minute: u32,
    /// Window length in seconds (1..=3600).
    pub window_seconds: u32,
}

/// `[locking]`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Locking {
    /// Seconds after which a lock is stale (60..=86400).
    pub stale_timeout: u32,
    /// Accepted for parity.
    pub auto_cleanup: bool,
    /// Reason recorded when a lock is taken without one.
    pub default_reason: String,
}

/// `[discovery]`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Discovery {
    /// Seconds an agent that disappeared stays listed as stale (10..=3600).
    pub stale_threshold: u32,
    /// Accepted for parity (`swarm discover --watch` has its own interval).
    pub auto_refresh_interval: Option<u32>,
    /// Also list agents whose pane works outside this project.
    pub enable_cross_project_coordination: bool,
    /// Program names that are agents (swarm's own key).
    pub agent_commands: Vec<String>,
}

/// `[onboarding]`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Onboarding {
    /// Accepted for parity.
    pub enabled: bool,
    /// Extra onboarding messages.
    pub custom_messages: Option<Vec<String>>,
    /// Accepted for parity.
    pub auto_onboard: bool,
}

/// `[dashboard]`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Dashboard {
    /// Accepted for parity.
    pub enabled: bool,
    /// 1024..=65535.
    pub port: u32,
    /// Non-empty host name.
    pub host: String,
    /// Accepted for parity.
    pub auto_open_browser: bool,
    /// Seconds, at least 1.
    pub refresh_interval: u32,
}

impl Default for RateLimiting {
    fn default() -> Self {
        RateLimiting {
            messages_per_minute: 10,
            window_seconds: 60,
        }
    }
}

impl Default for Locking {
    fn default() -> Self {
        Locking {
            stale_timeout: 300,
            auto_cleanup: false,
            default_reason: "working".into(),
        }
    }
}

impl Default for Discovery {
    fn default() -> Self {
        Discovery {
            stale_threshold: 60,
            auto_refresh_interval: None,
            enable_cross_project_coordination: false,
            agent_commands: DEFAULT_AGENT_COMMANDS
                .iter()
                .map(|s| s.to_string())
                .collect(),
        }
    }
}

impl Default for Onboarding {
    fn default() -> Self {
        Onboarding {
            enabled: true,
            custom_messages: None,
            auto_onboard: false,
        }
    }
}

impl Default for Dashboard {
    fn default() -> Self {
        Dashboard {
            enabled: true,
            port: 8080,
            host: "localhost".into(),
            auto_open_browser: true,
            refresh_interval: 1,
        }
    }
}

/// A config file that could not be used.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file could not be read.
    #[error("could not read config file {}: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// Over the size limit.
    #[error("config file {} is too large ({size} bytes, at most {MAX_CONFIG_BYTES})", path.display())]
    TooLarge {
        /// The file.
        path: PathBuf,
        /// Its size.
        size: u64,
    },
    /// Not `.toml`, `.yaml` or `.yml`.
    #[error("config file {} has an unsupported format (use .toml, .yaml or .yml)", path.display())]
    Format {
        /// The file.
        path: PathBuf,
    },
    /// Syntax error, unknown key or wrong type (the message names the line).
    #[error("invalid config file {}: {message}", path.display())]
    Parse {
        /// The file.
        path: PathBuf,
        /// The parser's explanation, with line and column.
        message: String,
    },
    /// Values out of range: every one of them.
    #[error("invalid config file {}:\n{}", path.display(), ValueErrors(errors))]
    Values {
        /// The file.
        path: PathBuf,
        /// One line per problem, `section.key: ...`.
        errors: Vec<String>,
    },
}

struct ValueErrors<'a>(&'a [String]);

impl fmt::Display for ValueErrors<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, e) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str("\n")?;
            }
            write!(f, "  - {e}")?;
        }
        Ok(())
    }
}

/// A configuration and the file it came from (`None`: defaults).
#[derive(Clone, Debug, PartialEq)]
pub struct LoadedConfig {
    /// The values.
    pub config: Config,
    /// The file, when one was found.
    pub source: Option<PathBuf>,
}

/// Finds the config file: `.claudeswarm.yaml` then `.claudeswarm.toml` in
/// the project root, then in each parent directory.
pub fn find(root: &Path) -> Option<PathBuf> {
    root.ancestors()
        .flat_map(|dir| CONFIG_FILE_NAMES.iter().map(move |n| dir.join(n)))
        .find(|p| p.is_file())
}

/// Loads the config for a project root (defaults when there is no file).
pub fn load(root: &Path) -> Result<LoadedConfig, ConfigError> {
    match find(root) {
        Some(path) => Ok(LoadedConfig {
            config: load_file(&path)?,
            source: Some(path),
        }),
        None => Ok(LoadedConfig {
            config: Config::default(),
            source: None,
        }),
    }
}

/// Loads and validates one file; the format follows its extension.
pub fn load_file(path: &Path) -> Result<Config, ConfigError> {
    let read_err = |source| ConfigError::Read {
        path: path.to_owned(),
        source,
    };
    let size = fs::metadata(path).map_err(read_err)?.len();
    if size > MAX_CONFIG_BYTES {
        return Err(ConfigError::TooLarge {
            path: path.to_owned(),
            size,
        });
    }
    let text = fs::read_to_string(path).map_err(read_err)?;
    let config = parse(path, &text)?;
    let errors = config.validate();
    if errors.is_empty() {
        Ok(config)
    } else {
        Err(ConfigError::Values {
            path: path.to_owned(),
            errors,
        })
    }
}

fn parse(path: &Path, text: &str) -> Result<Config, ConfigError> {
    let ext = path
        .extension()
        .map(|e| e.to_string_lossy().to_lowercase())
        .unwrap_or_default();
    let parse_err = |message: String| ConfigError::Parse {
        path: path.to_owned(),
        message,
    };
    match ext.as_str() {
        "toml" => toml::from_str(text).map_err(|e| parse_err(e.to_string().trim_end().to_owned())),
        "yaml" | "yml" => {
            if text.trim().is_empty() {
                return Ok(Config::default());
            }
            yaml_serde::from_str(text).map_err(|e| {
                let mut message = e.to_string();
                if !message.contains(" line ") {
                    let line = unknown_key_line(&message, text).or(e.location().map(|l| l.line()));
                    if let Some(line) = line {
                        message.push_str(&format!(" at line {line}"));
                    }
                }
                parse_err(message)
            })
        }
        _ => Err(ConfigError::Format {
            path: path.to_owned(),
        }),
    }
}

/// For "unknown field `k`" errors that come without a position: the first
/// line that starts (after indentation) with `k:`.
fn unknown_key_line(message: &str, text: &str) -> Option<usize> {
    let key = message.split("unknown field `").nth(1)?.split('`').next()?;
    text.lines()
        .position(|l| {
            let l = l.trim_start();
            l.strip_prefix(key)
                .is_some_and(|rest| rest.trim_start().starts_with(':'))
        })
        .map(|i| i + 1)
}

impl Config {
    /// Every value outside its allowed range, as `section.key: problem`.
    pub fn validate(&self) -> Vec<String> {
        let mut errors = Vec::new();
        let mut range = |key: &str, v: u32, min: u32, max: u32| {
            if v < min || v > max {
                errors.push(format!("{key}: must be between {min} and {max}, got {v}"));
            }
        };
        range(
            "rate_limiting.messages_per_minute",
            self.rate_limiting.messages_per_minute,
            1,
            1000,
        );
        range(
            "rate_limiting.window_seconds",
            self.rate_limiting.window_seconds,
            1,
            3600,
        );
        range(
            "locking.stale_timeout",
            self.locking.stale_timeout,
            60,
            86_400,
        );
        range(
            "discovery.stale_threshold",
            self.discovery.stale_threshold,
            10,
            3600,
        );
        if let Some(v) = self.discovery.auto_refresh_interval {
            range("discovery.auto_refresh_interval", v, 5, 86_400);
        }
        range("dashboard.port", self.dashboard.port, 1024, 65_535);
        range(
            "dashboard.refresh_interval",
            self.dashboard.refresh_interval,
            1,
            3600,
        );
        if self.locking.default_reason.trim().is_empty() {
            errors.push("locking.default_reason: cannot be empty".into());
        } else if self.locking.default_reason.chars().count() > 100 {
            errors.push("locking.default_reason: at most 100 characters".into());
        }
        if self.dashboard.host.trim().is_empty() {
            errors.push("dashboard.host: cannot be empty".into());
        }
        if let Some(messages) = &self.onboarding.custom_messages {
            if messages.len() > 100 {
                errors.push(format!(
                    "onboarding.custom_messages: at most 100 messages, got {}",
                    messages.len()
                ));
            }
            if let Some(i) = messages.iter().position(|m| m.chars().count() > 1000) {
                errors.push(format!(
                    "onboarding.custom_messages[{i}]: at most 1000 characters"
                ));
            }
        }
        for (i, c) in self.discovery.agent_commands.iter().enumerate() {
            if c.trim().is_empty() || c.contains('/') || c.chars().any(char::is_whitespace) {
                errors.push(format!(
                    "discovery.agent_commands[{i}]: {c:?} must be a program name (no spaces or `/`)"
                ));
            }
        }
        if let Some(root) = &self.project_root
            && !root.is_dir()
        {
            errors.push(format!(
                "project_root: {} is not an existing directory",
                root.display()
            ));
        }
        errors
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
        let p = dir.join(name);
        fs::write(&p, text).expect("write");
        p
    }

    #[test]
    fn defaults_match_the_spec() {
        let c = Config::default();
        assert_eq!(c.rate_limiting.messages_per_minute, 10);
        assert_eq!(c.rate_limiting.window_seconds, 60);
        assert_eq!(c.locking.stale_timeout, 300);
        assert_eq!(c.discovery.stale_threshold, 60);
        assert_eq!(c.dashboard.port, 8080);
        assert!(c.validate().is_empty());
    }

    #[test]
    fn toml_and_yaml_load_the_same_values() {
        let dir = tempfile::tempdir().expect("tempdir");
        let t = write(
            dir.path(),
            "a.toml",
            "[rate_limiting]\nmessages_per_minute = 20\n[discovery]\nagent_commands = [\"claude\", \"opencode\"]\n",
        );
        let y = write(
            dir.path(),
            "a.yaml",
            "rate_limiting:\n  messages_per_minute: 20\ndiscovery:\n  agent_commands: [claude, opencode]\n",
        );
        let a = load_file(&t).expect("toml");
        assert_eq!(a, load_file(&y).expect("yaml"));
        assert_eq!(a.rate_limiting.messages_per_minute, 20);
        assert_eq!(a.rate_limiting.window_seconds, 60);
    }

    #[test]
    fn unknown_keys_name_the_key_and_line() {
        let dir = tempfile::tempdir().expect("tempdir");
        let t = write(
            dir.path(),
            "c.toml",
            "[rate_limiting]\nwindow_seconds = 5\nburst_size = 3\n",
        );
        let e = load_file(&t).expect_err("unknown").to_string();
        assert!(e.contains("burst_size") && e.contains("line 3"), "{e}");
        let y = write(dir.path(), "c.yaml", "rate_limit:\n  x: 1\n");
        let e = load_file(&y).expect_err("unknown").to_string();
        assert!(e.contains("rate_limit") && e.contains("line 1"), "{e}");
    }

    #[test]
    fn wrong_types_are_errors() {
        let dir = tempfile::tempdir().expect("tempdir");
        let y = write(dir.path(), "t.yaml", "locking:\n  auto_cleanup: \"yes\"\n");
        let e = load_file(&y).expect_err("type").to_string();
        assert!(e.contains("auto_cleanup") || e.contains("boolean"), "{e}");
        let t = write(
            dir.path(),
            "t.toml",
            "[rate_limiting]\nmessages_per_minute = \"ten\"\n",
        );
        assert!(load_file(&t).is_err());
    }

    #[test]
    fn every_range_error_is_reported() {
        let dir = tempfile::tempdir().expect("tempdir");
        let t = write(
            dir.path(),
            "r.toml",
            "[rate_limiting]\nmessages_per_minute = 0\nwindow_seconds = 7200\n[locking]\nstale_timeout = 5\n",
        );
        match load_file(&t) {
            Err(ConfigError::Values { errors, .. }) => assert_eq!(errors.len(), 3, "{errors:?}"),
            other => panic!("unexpected {other:?}"),
        }
    }

    #[test]
    fn search_prefers_yaml_and_walks_up() {
        let dir = tempfile::tempdir().expect("tempdir");
        let sub = dir.path().join("a/b");
        fs::create_dir_all(&sub).expect("mkdir");
        assert_eq!(find(&sub), None);
        write(dir.path(), ".claudeswarm.toml", "");
        assert_eq!(find(&sub), Some(dir.path().join(".claudeswarm.toml")));
        write(dir.path(), ".claudeswarm.yaml", "");
        assert_eq!(find(&sub), Some(dir.path().join(".claudeswarm.yaml")));
        assert_eq!(load(&sub).expect("load").config, Config::default());
    }
}
