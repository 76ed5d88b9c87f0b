//! Loading: find the project's file (project root, then its parents) and
//! the per-user file, parse and check both, lay the project's over the
//! user's and `SWARM_<SECTION>_<KEY>` environment overrides over both, and
//! remember where each value came from. Secrets and the other keys only
//! the person may set (`Key::is_user_only`) are taken only from the
//! user's file and the environment.

use std::ffi::OsString;
use std::fmt;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::error::{ConfigError, Place, Problem};
use super::keys::{KEYS, Key, SECTIONS};
use super::model::Config;
use super::schema;
use super::tree::{self, Parsed};

/// File names searched in each directory, in order.
pub(crate) const CONFIG_FILE_NAMES: [&str; 2] = [".claudeswarm.yaml", ".claudeswarm.toml"];

/// The per-user file, under the user's config directory
/// (`$XDG_CONFIG_HOME`, else `$HOME/.config`).
pub(crate) const USER_CONFIG_FILE: &str = "swarm/config.toml";

/// The file `config init` writes when given no name.
pub const DEFAULT_CONFIG_FILE: &str = ".claudeswarm.toml";

/// Largest config file accepted (parity: 1 MiB).
pub const MAX_CONFIG_BYTES: u64 = 1_048_576;

/// The two file formats, chosen by the file name's extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// `.toml`.
    Toml,
    /// `.yaml` or `.yml`.
    Yaml,
}

impl Format {
    /// The format a file name says (case-insensitive), if any.
    pub(crate) fn of(path: &Path) -> Option<Format> {
        let ext = path.extension()?.to_string_lossy().to_ascii_lowercase();
        match ext.as_str() {
            "toml" => Some(Format::Toml),
            "yaml" | "yml" => Some(Format::Yaml),
            _ => None,
        }
    }
}

/// Where one value of the effective configuration came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Origin {
    /// Nobody set it.
    Default,
    /// The project's config file.
    File(PathBuf),
    /// The per-user config file.
    UserFile(PathBuf),
    /// This environment variable.
    Env(String),
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Origin::Default => f.write_str("default"),
            Origin::File(p) => write!(f, "file {}", p.display()),
            Origin::UserFile(p) => write!(f, "user file {}", p.display()),
            Origin::Env(v) => write!(f, "env {v}"),
        }
    }
}

/// The effective configuration, the files it was read from and the origin
/// of every key.
#[derive(Clone, Debug)]
pub struct LoadedConfig {
    /// The values.
    pub config: Config,
    /// The project's file, when one was used.
    pub file: Option<PathBuf>,
    /// The per-user file, when there is one.
    pub user_file: Option<PathBuf>,
    /// Every key of `schema::KEYS`, in order, with its origin.
    pub origins: Vec<(&'static Key, Origin)>,
    /// The keys whose value replaced another layer's: the key, and the
    /// origin of the value it replaced (the next one down that set it; a
    /// default is not counted).
    pub overridden: Vec<(&'static Key, Origin)>,
    /// What was ignored and why (a secret in the project's file), each a
    /// line for a warning; the config loads all the same.
    pub warnings: Vec<String>,
}

impl LoadedConfig {
    /// The origin of the value `key`'s value replaced, when it replaced
    /// one (a project file's value over the user's, a variable over a
    /// file's).
    pub fn overrode(&self, key: &Key) -> Option<&Origin> {
        self.overridden
            .iter()
            .find(|(k, _)| std::ptr::eq(*k, key))
            .map(|(_, o)| o)
    }
}

#[cfg(test)]
impl LoadedConfig {
    /// The origin of the key at `path` (`rate_limiting.window_seconds`).
    pub(crate) fn origin(&self, path: &str) -> Option<&Origin> {
        self.origins
            .iter()
            .find(|(k, _)| k.path() == path)
            .map(|(_, o)| o)
    }
}

/// The variables of this process that shape the config: the `SWARM_*`
/// overrides, and `XDG_CONFIG_HOME` and `HOME`, which say where the
/// per-user file is.
pub fn process_env() -> Vec<(OsString, OsString)> {
    std::env::vars_os()
        .filter(|(k, _)| {
            k.as_encoded_bytes().starts_with(b"SWARM_") || k == "XDG_CONFIG_HOME" || k == "HOME"
        })
        .collect()
}

/// Where the per-user file is, whether or not it exists:
/// `$XDG_CONFIG_HOME/swarm/config.toml` when that variable holds an
/// absolute path (the XDG rule: a relative one is ignored), else
/// `$HOME/.config/swarm/config.toml`; `None` when neither is set.
pub fn user_file(env: &[(OsString, OsString)]) -> Option<PathBuf> {
    let var = |name: &str| {
        env.iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| PathBuf::from(v))
            .filter(|p| p.is_absolute())
    };
    let dir = var("XDG_CONFIG_HOME").or_else(|| var("HOME").map(|h| h.join(".config")))?;
    Some(dir.join(USER_CONFIG_FILE))
}

/// Finds the config file: `.claudeswarm.yaml` then `.claudeswarm.toml` in
/// the project root, then in each parent directory.
pub fn find(root: &Path) -> Option<PathBuf> {
    root.ancestors()
        .flat_map(|dir| CONFIG_FILE_NAMES.iter().map(move |n| dir.join(n)))
        .find(|p| p.is_file())
}

/// The config of a project root: the file `find` finds over the per-user
/// file (defaults when neither), with `env` applied on top.
pub fn load(root: &Path, env: &[(OsString, OsString)]) -> Result<LoadedConfig, ConfigError> {
    load_with(find(root).as_deref(), env)
}

/// Loads and checks one file, without environment overrides.
pub fn load_file(path: &Path) -> Result<Config, ConfigError> {
    load_with(Some(path), &[]).map(|l| l.config)
}

/// Loads `file` (the project's; none when `None`) over the per-user file
/// that `env` locates (see `user_file`), and applies `env`. Every problem
/// of the files and of the variables is reported at once.
pub fn load_with(
    file: Option<&Path>,
    env: &[(OsString, OsString)],
) -> Result<LoadedConfig, ConfigError> {
    let mut problems = Vec::new();
    let mut warnings = Vec::new();
    // The files, lowest precedence first, each with the origin of its
    // values. `config validate --file` may be handed the user's own file.
    let user_path = user_file(env);
    let is_user = |f: &Path| user_path.as_deref().is_some_and(|u| same_file(f, u));
    let mut layers: Vec<(Parsed, Origin)> = Vec::new();
    if let Some(path) = &user_path
        && path.is_file()
        && !file.is_some_and(is_user)
    {
        let parsed = parse_file(path, Role::User, &mut problems, &mut warnings)?;
        layers.push((parsed, Origin::UserFile(path.clone())));
    }
    if let Some(path) = file {
        let (role, origin) = if is_user(path) {
            (Role::User, Origin::UserFile(path.to_owned()))
        } else {
            (Role::Project, Origin::File(path.to_owned()))
        };
        let parsed = parse_file(path, role, &mut problems, &mut warnings)?;
        layers.push((parsed, origin));
    }
    let overrides = env_overrides(env, &mut problems);
    if !problems.is_empty() {
        return Err(ConfigError::Invalid { problems });
    }

    let mut merged = serde_json::to_value(Config::default()).unwrap_or(Value::Null);
    let mut origins: Vec<(&'static Key, Origin)> =
        KEYS.iter().map(|k| (k, Origin::Default)).collect();
    let mut overridden: Vec<(&'static Key, Origin)> = Vec::new();
    for (key, origin) in origins.iter_mut() {
        // Every layer that sets the key, highest precedence first.
        let from_env = overrides
            .iter()
            .find(|(k, _, _)| std::ptr::eq(*k, *key))
            .map(|(_, var, value)| (value.clone(), Origin::Env(var.clone())));
        let mut setters =
            from_env
                .into_iter()
                .chain(layers.iter().rev().filter_map(|(parsed, from)| {
                    Some((lookup(&parsed.value, key)?.clone(), from.clone()))
                }));
        if let Some((value, from)) = setters.next() {
            set(&mut merged, key, value);
            *origin = from;
        }
        if let Some((_, below)) = setters.next() {
            overridden.push((key, below));
        }
    }
    // Profiles and prices are tables of free names (checked as a whole by
    // `profile::check_section` and `price::check_section`); they come from
    // the files only, a project's replacing the user's of the same name.
    for table in ["profiles", "prices"] {
        let mut entries = Map::new();
        for (parsed, _) in &layers {
            if let Some(Value::Object(more)) = parsed.value.get(table) {
                entries.extend(more.clone());
            }
        }
        if !entries.is_empty()
            && let Value::Object(top) = &mut merged
        {
            top.insert(table.into(), Value::Object(entries));
        }
    }
    let config = serde_json::from_value(merged).map_err(|e| ConfigError::Invalid {
        // Every value was checked against its key's type above, so this
        // only happens when `Config` and `schema::KEYS` disagree.
        problems: vec![Problem {
            place: Place::File {
                path: file.map(Path::to_owned).unwrap_or_default(),
                line: None,
            },
            key: String::new(),
            message: format!("internal error: the config table and its type disagree: {e}"),
        }],
    })?;
    let layer_path = |user: bool| {
        layers.iter().find_map(|(_, origin)| match origin {
            Origin::File(p) if !user => Some(p.clone()),
            Origin::UserFile(p) if user => Some(p.clone()),
            _ => None,
        })
    };
    Ok(LoadedConfig {
        config,
        file: layer_path(false),
        user_file: layer_path(true),
        origins,
        overridden,
        warnings,
    })
}

/// Whose a config file is, which decides whether it may hold secrets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Role {
    /// The project's: shared with everyone who can read the project.
    Project,
    /// The user's own, under their config directory.
    User,
}

/// Whether two paths name the same file (resolved when they exist).
fn same_file(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

/// Reads, parses and checks a file; problems go to `problems`, and only
/// file-level failures (missing, unreadable, too large) are errors. In a
/// project's file, secret keys are taken out before the check, each with
/// a warning: they are ignored, never used and never quoted.
fn parse_file(
    path: &Path,
    role: Role,
    problems: &mut Vec<Problem>,
    warnings: &mut Vec<String>,
) -> Result<Parsed, ConfigError> {
    let format = Format::of(path).ok_or_else(|| ConfigError::Format {
        path: path.to_owned(),
    })?;
    let read_err = |source: io::Error| {
        if source.kind() == io::ErrorKind::NotFound {
            ConfigError::NotFound {
                path: path.to_owned(),
            }
        } else {
            ConfigError::Read {
                path: path.to_owned(),
                source,
            }
        }
    };
    let size = fs::metadata(path).map_err(read_err)?.len();
    if size > MAX_CONFIG_BYTES {
        return Err(ConfigError::TooLarge {
            path: path.to_owned(),
            size,
        });
    }
    let text = fs::read_to_string(path).map_err(read_err)?;
    let parsed = match format {
        Format::Toml => tree::parse_toml(&text),
        Format::Yaml => tree::parse_yaml(&text),
    };
    let parsed = match parsed {
        Ok(p) => p,
        Err(e) => {
            let what = match format {
                Format::Toml => "TOML",
                Format::Yaml => "YAML",
            };
            problems.push(Problem {
                place: Place::File {
                    path: path.to_owned(),
                    line: e.line,
                },
                key: String::new(),
                message: format!("not valid {what}: {}", e.message),
            });
            return Ok(Parsed::default());
        }
    };
    let mut parsed = parsed;
    if role == Role::Project {
        warnings.extend(take_secrets(path, &mut parsed));
        warnings.extend(store_password(path, &parsed));
    }
    let mut found: Vec<Problem> = parsed
        .unsupported
        .iter()
        .map(|(key, message)| (key.clone(), message.clone()))
        .chain(
            schema::check_document(&parsed.value)
                .into_iter()
                .map(|f| (f.key, f.message)),
        )
        .map(|(key, message)| Problem {
            place: Place::File {
                path: path.to_owned(),
                line: parsed.line_of(&key),
            },
            key,
            message,
        })
        .collect();
    // TOML tables come back sorted by name; people read files top down.
    found.sort_by_key(|p| match p.place {
        Place::File { line, .. } => line.unwrap_or(0),
        Place::Env(_) => 0,
    });
    problems.extend(found);
    Ok(parsed)
}

/// Takes the keys only the person may set (`Key::is_user_only`: the
/// secrets, and the ones that widen who reaches the dashboard) out of a
/// project's file, returning a warning for each one that was there.
fn take_secrets(path: &Path, parsed: &mut Parsed) -> Vec<String> {
    let mut warnings = Vec::new();
    for key in KEYS.iter().filter(|k| k.is_user_only()) {
        let Some(Value::Object(section)) = parsed.value.get_mut(key.section) else {
            continue;
        };
        if section.remove(key.name).is_none() {
            continue;
        }
        let var = key.env_var().unwrap_or_default();
        let why = if key.is_secret() {
            "a project's config file is no place for a secret (anyone who can read the \
             project can read it)"
        } else {
            "a project's config file may not widen who the dashboard answers to (a name \
             in a shared file could let another site's page reach it)"
        };
        let warning = Problem {
            place: Place::File {
                path: path.to_owned(),
                line: parsed.line_of(&key.path()),
            },
            key: key.path(),
            message: format!(
                "ignored: {why}; set ${var} or put it in your own file, \
                 $XDG_CONFIG_HOME/{USER_CONFIG_FILE} (else ~/.config/{USER_CONFIG_FILE})"
            ),
        };
        warnings.push(warning.to_string());
    }
    warnings
}

/// A warning when a project's file gives the store's URL with a password
/// in it: the URL is still used (the swarm would stop otherwise), but such
/// files are committed and shared, so the person is told where it belongs.
fn store_password(path: &Path, parsed: &Parsed) -> Option<String> {
    let url = parsed.value.get("store")?.get("url")?.as_str()?;
    let (_, rest) = url.split_once("://")?;
    let authority = &rest[..rest.find('/').unwrap_or(rest.len())];
    let (userinfo, _) = authority.rsplit_once('@')?;
    let (_, password) = userinfo.split_once(':')?;
    if password.is_empty() {
        return None;
    }
    let warning = Problem {
        place: Place::File {
            path: path.to_owned(),
            line: parsed.line_of("store.url"),
        },
        key: "store.url".into(),
        message: format!(
            "holds a password, which anyone who can read the project can read \
             (project files are often committed); set $SWARM_STORE_URL or put [store] \
             url in your own file, $XDG_CONFIG_HOME/{USER_CONFIG_FILE} (else \
             ~/.config/{USER_CONFIG_FILE})"
        ),
    };
    Some(warning.to_string())
}

/// The valid overrides among `env`, as `(key, variable, value)`; problems
/// (unknown variables, unparsable or out-of-range values) go to
/// `problems`.
fn env_overrides(
    env: &[(OsString, OsString)],
    problems: &mut Vec<Problem>,
) -> Vec<(&'static Key, String, Value)> {
    let mut out = Vec::new();
    let mut vars: Vec<(&str, &OsString)> = env
        .iter()
        .filter_map(|(k, v)| Some((k.to_str()?, v)))
        .filter(|(k, _)| k.starts_with("SWARM_"))
        .collect();
    vars.sort_by_key(|(k, _)| *k);
    for (var, raw) in vars {
        let problem = |key: &str, message: String| Problem {
            place: Place::Env(var.to_owned()),
            key: key.to_owned(),
            message,
        };
        let Some(key) = KEYS.iter().find(|k| k.env_var().as_deref() == Some(var)) else {
            if let Some(message) = unknown_env_var(var) {
                problems.push(problem("", message));
            }
            continue;
        };
        let path = key.path();
        let Some(raw) = raw.to_str() else {
            problems.push(problem(&path, "the value is not valid UTF-8".into()));
            continue;
        };
        match schema::parse_env(&key.kind, raw) {
            Ok(value) => {
                let found = schema::check_key(key, &value);
                if found.is_empty() {
                    out.push((key, var.to_owned(), value));
                }
                problems.extend(found.into_iter().map(|f| problem(&f.key, f.message)));
            }
            Err(message) => problems.push(problem(&path, message)),
        }
    }
    out
}

/// For a `SWARM_<SECTION>_...` variable that names no key, or one a
/// letter or two away from a key's variable (a misspelt section): why it
/// is wrong. Other `SWARM_*` variables (like `SWARM_TMUX_SOCKET`) are not
/// config overrides and are left alone.
fn unknown_env_var(var: &str) -> Option<String> {
    let section = SECTIONS.iter().find_map(|(s, _)| {
        var.strip_prefix("SWARM_")
            .and_then(|rest| rest.strip_prefix(&s.to_ascii_uppercase()))
            .and_then(|rest| rest.strip_prefix('_'))
            .map(|key| (s, key))
    });
    let Some((section, typed_key)) = section else {
        let near = KEYS
            .iter()
            .filter_map(Key::env_var)
            .map(|name| (schema::edit_distance(var, &name), name))
            .filter(|(d, _)| *d <= 2)
            .min()?;
        return Some(format!("not a config key (did you mean `{}`?)", near.1));
    };
    let keys: Vec<&Key> = KEYS.iter().filter(|k| k.section == *section).collect();
    let names: Vec<String> = keys.iter().filter_map(|k| k.env_var()).collect();
    // The section is right: how near the variable is, is how near its key
    // part is to a key, not the whole name (which shares `SWARM_<SECTION>_`
    // with every candidate and would make anything look close).
    let upper: Vec<String> = keys.iter().map(|k| k.name.to_ascii_uppercase()).collect();
    let refs: Vec<&str> = upper.iter().map(String::as_str).collect();
    let hint = schema::nearest_index(typed_key, &refs)
        .and_then(|i| keys.get(i)?.env_var())
        .map(|near| format!(" (did you mean `{near}`?)"))
        .unwrap_or_default();
    Some(format!(
        "not a config key{hint}; [{section}] is set with {}",
        names.join(", ")
    ))
}

fn lookup<'a>(doc: &'a Value, key: &Key) -> Option<&'a Value> {
    if key.section.is_empty() {
        doc.get(key.name)
    } else {
        doc.get(key.section)?.get(key.name)
    }
}

fn set(doc: &mut Value, key: &Key, value: Value) {
    let Value::Object(top) = doc else {
        return;
    };
    if key.section.is_empty() {
        top.insert(key.name.to_owned(), value);
        return;
    }
    let section = top
        .entry(key.section.to_owned())
        .or_insert_with(|| Value::Object(Map::new()));
    if let Value::Object(keys) = section {
        keys.insert(key.name.to_owned(), value);
    }
}

impl Config {
    /// Every value outside its allowed range, as `section.key: problem`.
    pub fn validate(&self) -> Vec<String> {
        let doc = serde_json::to_value(self).unwrap_or(Value::Null);
        schema::check_document(&doc)
            .into_iter()
            .map(|f| format!("{}: {}", f.key, f.message))
            .collect()
    }
}
