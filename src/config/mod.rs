//! Configuration: `.claudeswarm.toml` or `.claudeswarm.yaml`, searched from
//! the project root upward. Every key of the Python tool (README, Configuration) with its
//! default, plus swarm's own sections. Unknown keys, wrong types and values
//! out of range are errors that name the key, the file and the line, and
//! all of them are reported at once. `SWARM_<SECTION>_<KEY>` environment
//! variables override single keys.

mod error;
mod load;
mod model;
pub(crate) mod profile;
pub(crate) mod schema;
mod template;
mod tree;

pub(crate) use error::ConfigError;
pub use load::load_file;
pub(crate) use load::{
    DEFAULT_CONFIG_FILE, Format, LoadedConfig, MAX_CONFIG_BYTES, Origin, find, load, load_with,
    process_env,
};
pub(crate) use model::{Config, DEFAULT_AGENT_COMMANDS, StoreBackend, StoreConfig};
pub(crate) use profile::{InputBox, Marker, ProfileSpec};
pub(crate) use template::write as write_template;

#[cfg(test)]
use {
    error::{Place, Problem},
    template::render as template,
};

#[cfg(test)]
mod tests;

/// The config as `config show` prints it: the store URL's password
/// replaced, so that showing the config never leaks it.
pub(crate) fn shown(config: &Config) -> serde_json::Value {
    let mut doc = serde_json::to_value(config).unwrap_or(serde_json::Value::Null);
    if let Some(url) = doc.pointer_mut("/store/url")
        && let Some(text) = url.as_str()
    {
        *url = serde_json::Value::String(crate::domain::validate::redact_url(text));
    }
    doc
}
