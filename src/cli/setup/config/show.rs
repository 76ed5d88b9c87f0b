//! `swarm config show`: the effective configuration, and for every value
//! whether it is the default, from the project's file, from the per-user
//! file, or from a `SWARM_*` variable, and which of those it overrode. Secrets are shown as
//! `config::shown` redacts them.

use std::path::PathBuf;

use clap::Args;
use serde_json::{Map, Value, json};

use swarm_core::config::{self, Origin};
use swarm_core::watcher::service;
use swarm_core::{ExitCode, LoadedConfig, Result};

use super::file_arg::absolute;
use crate::cli::context::Context;

/// Arguments of `swarm config show`.
#[derive(Debug, Args)]
pub(super) struct ShowArgs {
    /// Print the config as JSON (the Python tool's shape), with the origin
    /// of each value under "_sources"
    #[arg(long)]
    json: bool,
    /// Show this file instead of the one found from the project root
    #[arg(long, value_name = "FILE")]
    file: Option<PathBuf>,
}

/// Prints the configuration.
pub(super) fn run(ctx: &Context, args: &ShowArgs) -> Result<ExitCode> {
    let owned;
    let loaded: &LoadedConfig = match &args.file {
        Some(f) => {
            owned = config::load_with(Some(&absolute(f)?), &config::process_env())?;
            for warning in &owned.warnings {
                ctx.out.warn(warning);
            }
            &owned
        }
        None => ctx.loaded_config()?,
    };
    // The settings the running watcher does not have (the project's own
    // config only: a file named with --file is not what it runs with).
    let stale = if args.file.is_none() {
        watcher_lacks(ctx, loaded)
    } else {
        Vec::new()
    };
    if args.json {
        let mut doc = as_json(loaded);
        if let Value::Object(map) = &mut doc {
            map.insert("_watcher_lacks".into(), json!(stale));
        }
        ctx.out.json(&doc)?;
    } else {
        let mut text = render(ctx, loaded, &stale);
        if !stale.is_empty() {
            text.push_str(
                "\n* the running watcher has another value: it reads a changed file again by \
                 itself within seconds; for a value from this shell's environment, run `swarm \
                 watcher restart` here\n",
            );
        }
        ctx.out.print(&text)?;
    }
    Ok(ExitCode::Success)
}

/// The keys whose value the running watcher does not have (none when no
/// watcher runs, or it keeps no record of its settings).
fn watcher_lacks(ctx: &Context, loaded: &LoadedConfig) -> Vec<String> {
    let Ok(status) = service::status(&ctx.paths) else {
        return Vec::new();
    };
    let Some(record) = status.record.filter(|_| status.running) else {
        return Vec::new();
    };
    record.lacks(&loaded.config)
}

/// An origin as `--json` names it: `{"from": "file", "path": ...}`.
fn origin_json(origin: &Origin) -> Value {
    match origin {
        Origin::Default => json!({"from": "default"}),
        Origin::File(p) => json!({"from": "file", "path": p.display().to_string()}),
        Origin::UserFile(p) => json!({"from": "user_file", "path": p.display().to_string()}),
        Origin::Env(var) => json!({"from": "env", "variable": var}),
    }
}

/// An origin as the table names it: `default`, `file`, `user file`,
/// `env SWARM_...` (the files are named above the table).
fn origin_text(origin: &Origin) -> String {
    match origin {
        Origin::Default => "default".to_owned(),
        Origin::File(_) => "file".to_owned(),
        Origin::UserFile(_) => "user file".to_owned(),
        Origin::Env(var) => format!("env {var}"),
    }
}

fn as_json(loaded: &LoadedConfig) -> Value {
    let mut doc = config::shown(&loaded.config);
    let sources: Map<String, Value> = loaded
        .origins
        .iter()
        .map(|(key, origin)| {
            let mut v = origin_json(origin);
            if let (Some(below), Value::Object(map)) = (loaded.overrode(key), &mut v) {
                map.insert("overrides".into(), origin_json(below));
            }
            (key.path(), v)
        })
        .collect();
    if let Value::Object(map) = &mut doc {
        map.insert("_sources".into(), Value::Object(sources));
    }
    doc
}

fn render(ctx: &Context, loaded: &LoadedConfig, stale: &[String]) -> String {
    let values = config::shown(&loaded.config);
    let mut s = match (&loaded.file, config::find(ctx.paths.root())) {
        (Some(f), _) => format!("Config file: {}\n", f.display()),
        // The config had problems: the warning above lists them.
        (None, Some(f)) => format!(
            "Config file: {}, not in use: the configuration has problems (see the warning \
             above), so the defaults below are in use\n",
            f.display()
        ),
        (None, None) => format!(
            "Config file: none, defaults in use (no .claudeswarm.yaml or .claudeswarm.toml in {} or its parents)\n",
            ctx.paths.root().display()
        ),
    };
    if let Some(f) = &loaded.user_file {
        s.push_str(&format!("User config file: {}\n", f.display()));
    }
    // `key = value` lines, origins aligned in a column after them.
    let rows: Vec<(Option<&str>, String, String)> = loaded
        .origins
        .iter()
        .map(|(key, origin)| {
            let value = if key.section.is_empty() {
                values.get(key.name)
            } else {
                values.get(key.section).and_then(|v| v.get(key.name))
            };
            let value = match value {
                None | Some(Value::Null) => "(not set)".to_owned(),
                Some(v) => literal(v),
            };
            let mut origin = origin_text(origin);
            // Say whose value lost, so that a value set in two places is
            // never replaced without a word.
            if let Some(below) = loaded.overrode(key) {
                origin.push_str(&format!(" (overrides {})", origin_text(below)));
            }
            if stale.contains(&key.path()) {
                origin.push_str("  * not in the running watcher");
            }
            let section = (!key.section.is_empty()).then_some(key.section);
            (section, format!("{} = {value}", key.name), origin)
        })
        .collect();
    let width = rows
        .iter()
        .map(|(_, kv, _)| kv.chars().count())
        .filter(|&w| w <= 48)
        .max()
        .unwrap_or(0);
    // `Some(section)` once a group has been started; top-level keys have
    // no section and come first.
    let mut current: Option<Option<&str>> = None;
    for (section, kv, origin) in &rows {
        if current != Some(*section) {
            s.push('\n');
            if let Some(name) = section {
                s.push_str(&ctx.out.bold(&format!("[{name}]")));
                s.push('\n');
            }
            current = Some(*section);
        }
        let pad = width.saturating_sub(kv.chars().count());
        s.push_str(&format!("  {kv}{}  {origin}\n", " ".repeat(pad)));
    }
    debug_assert_eq!(rows.len(), config::keys::KEYS.len());
    s
}

/// A value as TOML and JSON both write it: `10`, `true`, `"text"`,
/// `["a", "b"]`. Control characters in strings come out escaped, so
/// nothing in a config file can drive the terminal.
fn literal(v: &Value) -> String {
    match v {
        Value::Array(items) => {
            let parts: Vec<String> = items.iter().map(literal).collect();
            format!("[{}]", parts.join(", "))
        }
        other => other.to_string(),
    }
}
