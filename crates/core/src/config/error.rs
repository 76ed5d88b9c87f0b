//! Why a configuration could not be used: the file itself (missing, too
//! large, unreadable, wrong extension), or a list of problems, each naming
//! where it is (file and line, or environment variable) and the key.

use std::fmt;
use std::path::PathBuf;

use crate::store::StoreError;

use super::MAX_CONFIG_BYTES;

/// Where a problem is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Place {
    /// In a config file, at a line when it is known.
    File {
        /// The file.
        path: PathBuf,
        /// 1-based line.
        line: Option<usize>,
    },
    /// In an environment variable (`SWARM_<SECTION>_<KEY>`).
    Env(String),
}

/// One thing wrong with the configuration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    /// Where it is.
    pub place: Place,
    /// The key (`rate_limiting.window_seconds`, `acks.retry_delays[1]`);
    /// empty when the problem is not about one key (a syntax error).
    pub key: String,
    /// What is wrong and what is allowed.
    pub message: String,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.place {
            Place::File {
                path,
                line: Some(line),
            } => write!(f, "{}:{line}: ", path.display())?,
            Place::File { path, line: None } => write!(f, "{}: ", path.display())?,
            Place::Env(var) => write!(f, "${var}: ")?,
        }
        if !self.key.is_empty() {
            write!(f, "{}: ", self.key)?;
        }
        f.write_str(&self.message)
    }
}

/// A configuration that could not be used.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The default configuration could not be written.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// A file named explicitly (`--file`) does not exist.
    #[error("config file {} does not exist", path.display())]
    NotFound {
        /// The file.
        path: PathBuf,
    },
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
    #[error("config file {} has an unsupported format (the name must end in .toml, .yaml or .yml)", path.display())]
    Format {
        /// The file.
        path: PathBuf,
    },
    /// Syntax errors, unknown keys, wrong types, values out of range: every
    /// one found.
    #[error("invalid configuration ({}):\n{}", count(problems.len()), Problems(problems))]
    Invalid {
        /// In file order, then environment variables.
        problems: Vec<Problem>,
    },
}

fn count(n: usize) -> String {
    if n == 1 {
        "1 problem".into()
    } else {
        format!("{n} problems")
    }
}

struct Problems<'a>(&'a [Problem]);

impl fmt::Display for Problems<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, p) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str("\n")?;
            }
            write!(f, "  {p}")?;
        }
        Ok(())
    }
}

impl ConfigError {
    /// Every problem, one per entry (a single one for file-level errors),
    /// for callers that list them.
    pub fn problems(&self) -> Vec<String> {
        match self {
            ConfigError::Invalid { problems } => problems.iter().map(|p| p.to_string()).collect(),
            other => vec![other.to_string()],
        }
    }
}
