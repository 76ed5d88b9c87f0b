//! The file `swarm config init` writes: every key with its default and a
//! comment, in TOML or YAML. Values are written as JSON literals, which
//! both formats read the same way for numbers, booleans, strings and lists.

use std::path::Path;

use serde_json::Value;

use super::error::ConfigError;
use super::keys::{KEYS, Key, SECTIONS};
use super::load::Format;
use super::model::Config;

const HEADER: &str = "\
swarm configuration: every key with its default. Unknown keys are errors.
Any key can be overridden for one command with an environment variable
SWARM_<SECTION>_<KEY>, e.g. SWARM_RATE_LIMITING_MESSAGES_PER_MINUTE=20.
Check this file with `swarm config validate`; see the effective values
with `swarm config show`. Your own settings for every project, and the
secrets (notify.webhook, notify.command), go in $XDG_CONFIG_HOME/swarm/config.toml
(else ~/.config/swarm/config.toml), with the same keys.";

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
        match format {
            Format::Toml => out.push_str(&format!("[{section}]\n")),
            Format::Yaml => out.push_str(&format!("{section}:\n")),
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
    match value {
        Some(v) if !v.is_null() => {
            out.push_str(&format!("{indent}{}{sep} {}\n", key.name, literal(v)));
        }
        // Unset by default: TOML has no null, so both formats show the key
        // commented out with an example value.
        _ => out.push_str(&format!(
            "{indent}# {}{sep} {}\n",
            key.name,
            key.example.unwrap_or("")
        )),
    }
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
