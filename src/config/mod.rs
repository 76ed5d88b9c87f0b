//! Configuration: `.claudeswarm.toml` or `.claudeswarm.yaml`, searched from
//! the project root upward. Every key of the Python tool (spec 12) with its
//! default, plus swarm's own sections. Unknown keys, wrong types and values
//! out of range are errors that name the key, the file and the line, and
//! all of them are reported at once. `SWARM_<SECTION>_<KEY>` environment
//! variables override single keys.

mod error;
mod load;
mod model;
pub mod schema;
mod template;
mod tree;

pub use error::{ConfigError, Place, Problem};
pub use load::{
    CONFIG_FILE_NAMES, DEFAULT_CONFIG_FILE, Format, LoadedConfig, MAX_CONFIG_BYTES, Origin, find,
    load, load_file, load_with, process_env,
};
pub use model::{
    Acks, Config, DEFAULT_AGENT_COMMANDS, Dashboard, Discovery, Locking, Messaging, Onboarding,
    RateLimiting,
};
pub use template::{render as template, write as write_template};
pub use tree::MAX_YAML_DEPTH;

#[cfg(test)]
mod tests;
