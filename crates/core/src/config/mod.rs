//! Configuration: `.claudeswarm.toml` or `.claudeswarm.yaml`, searched from
//! the project root upward, over the per-user `~/.config/swarm/config.toml`.
//! Every key of the Python tool (docs/guide/configuration.md) with its default,
//! plus swarm's own sections. Unknown keys, wrong types and values out of
//! range are errors that name the key, the file and the line, and all of
//! them are reported at once. `SWARM_<SECTION>_<KEY>` environment variables
//! override single keys. Secrets come only from the user's file and the
//! environment, and are never shown whole.

mod error;
pub mod keys;
mod load;
mod model;
mod price;
pub(crate) mod profile;
pub(crate) mod schema;
pub(crate) mod shells;
mod shown;
mod stamp;
mod template;
mod tree;

pub use error::ConfigError;
pub use load::load_file;
pub use load::{
    DEFAULT_CONFIG_FILE, Format, LoadedConfig, MAX_CONFIG_BYTES, Origin, find, load, load_with,
    process_env, user_file,
};
pub use model::{
    BudgetConfig, BudgetPeriod, Config, DEFAULT_AGENT_COMMANDS, DeliveryConfig, LimitsConfig,
    NativeMode, OnExceed, OnReset, StoreBackend, StoreConfig,
};
pub(crate) use price::Price;
pub(crate) use profile::{Echo, InputBox, Marker, ProfileSpec};
pub use shown::{shown, shown_command};
pub use stamp::ConfigStamp;
pub use template::write as write_template;

#[cfg(test)]
use {
    error::{Place, Problem},
    template::render as template,
};

#[cfg(test)]
mod tests;
