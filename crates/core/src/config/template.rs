//! The file `swarm config init` and `swarm init` write: every key
//! commented out, with its default and a comment, in TOML or YAML. The file
//! sets nothing by itself, so the per-user file's values stay in force
//! until a key is uncommented here. Values are written as JSON literals,
//! which both formats read the same way for numbers, booleans, strings and
//! lists.

use std::path::Path;

use serde_json::Value;

use super::error::ConfigError;
use super::keys::{KEYS, Key, SECTIONS};
use super::load::Format;
use super::model::Config;

const HEADER: &str = "\
swarm configuration for this project. Every key is commented out with its
default: uncomment one to set it for this project (in YAML, uncomment its
section's line too). Unknown keys are errors.
Where a value comes from, lowest first: the default, your own file
$XDG_CONFIG_HOME/swarm/config.toml (else ~/.config/swarm/config.toml, same
keys; the only place for the secrets notify.webhook and notify.command),
this file, then SWARM_<SECTION>_<KEY> environment variables, e.g.
SWARM_RATE_LIMITING_MESSAGES_PER_MINUTE=20. A key set here overrides your
own file's value for everyone working in this project.
Check this file with `swarm config validate`; see the effective values,
and where each comes from, with `swarm config show`.";

/// Writes the default configuration to `path` in the format its name
/// says. An existing file is replaced only with `replace`.
pub fn write(path: &Path, replace: bool) -> Result<Format, ConfigError> {
    let format = Format::of(path).ok_or_else(|| ConfigError::Format {
        path: path.to_owned(),
    })?;
    crate::store::write_document(path, render(format).as_bytes(), replace)?;
    Ok(format)
}

/// The commented default configuration in `format`.
pub(crate) fn render(format: Format) -> String {
    let defaults = serde_json::to_value(Config::default()).unwrap_or(Value::Null);
    let mut out = String::new();
    for line in HEADER.lines() {
        out.push_str(&format!("# {line}\n"));
    }
    // Top-level keys first: in TOML they must come before any [section].
    for key in KEYS.iter().filter(|k| k.section.is_empty()) {
        out.push('\n');
        write_key(&mut out, format, key, defaults.get(key.name), "");
    }
    for (section, doc) in SECTIONS {
        out.push_str(&format!("\n# {doc}\n"));
        // An empty TOML table sets nothing; a YAML section with every key
        // commented out would be null, which is not a section.
        match format {
            Format::Toml => out.push_str(&format!("[{section}]\n")),
            Format::Yaml => out.push_str(&format!("# {section}:\n")),
        }
        let indent = match format {
            Format::Toml => "",
            Format::Yaml => "  ",
        };
        for (i, key) in KEYS.iter().filter(|k| k.section == section).enumerate() {
            if i > 0 {
                out.push('\n');
            }
            let value = defaults.get(section).and_then(|s| s.get(key.name));
            write_key(&mut out, format, key, value, indent);
        }
    }
    out
}

fn write_key(out: &mut String, format: Format, key: &Key, value: Option<&Value>, indent: &str) {
    out.push_str(&format!("{indent}# {}\n", key.doc));
    let sep = match format {
        Format::Toml => " =",
        Format::Yaml => ":",
    };
    // Every key commented out: with its default, or when it is unset by
    // default (TOML has no null) with an example value.
    let shown = match value {
        Some(v) if !v.is_null() => literal(v),
        _ => key.example.unwrap_or("").to_owned(),
    };
    out.push_str(&format!("{indent}# {}{sep} {shown}\n", key.name));
}

/// A value as a literal that TOML and YAML both read back as the same
/// value: `10`, `true`, `"text"`, `["a", "b"]`.
fn literal(v: &Value) -> String {
    match v {
        Value::Array(items) => {
            let parts: Vec<String> = items.iter().map(literal).collect();
            format!("[{}]", parts.join(", "))
        }
        other => other.to_string(),
    }
}
