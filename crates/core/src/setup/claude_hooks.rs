//! Claude Code integration: swarm's hooks in `.claude/settings.json`,
//! merged into whatever the file already holds (never clobbering it) and
//! removed again exactly.
//!
//! Claude Code's format groups hooks by event, then by matcher:
//! `{"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command",
//! "command": "..."}]}]}}`; tool events add `"matcher": "Edit|Write"`.

use std::path::PathBuf;

use serde_json::{Map, Value, json};

use crate::store::{DEFAULT_LOCK_TIMEOUT, ForeignDocument, Loaded, Paths, StoreError};
use crate::support::json::{self as pyjson, Layout};

/// One hook swarm installs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hook {
    /// Claude Code event (`UserPromptSubmit`, `PreToolUse`).
    pub event: &'static str,
    /// Tool matcher for tool events.
    pub matcher: Option<&'static str>,
    /// The shell command.
    pub command: String,
    /// What follows the swarm command in `command`: how swarm recognises
    /// its own hook, whichever binary it named.
    pub args: &'static str,
}

/// The hooks swarm installs, for a swarm invoked as `swarm` (a command
/// name or a quoted path).
pub fn swarm_hooks(swarm: &str) -> Vec<Hook> {
    vec![
        Hook {
            event: "UserPromptSubmit",
            matcher: None,
            command: format!("{swarm} inbox --new --hook"),
            args: "inbox --new --hook",
        },
        Hook {
            event: "PreToolUse",
            matcher: Some("Edit|Write|MultiEdit"),
            command: format!("{swarm} guard check-edit"),
            args: "guard check-edit",
        },
    ]
}

/// What `install` or `uninstall` changed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Change {
    /// Hooks added or removed.
    pub changed: Vec<String>,
    /// Hooks that were already as wanted.
    pub unchanged: Vec<String>,
    /// The settings file.
    pub file: PathBuf,
}

/// `.claude/settings.json` of a project.
fn settings_file(paths: &Paths) -> ForeignDocument {
    ForeignDocument::new(paths, paths.root().join(".claude").join("settings.json"))
}

fn describe(hook: &Hook) -> String {
    match hook.matcher {
        Some(m) => format!("{} [{m}]: {}", hook.event, hook.command),
        None => format!("{}: {}", hook.event, hook.command),
    }
}

fn load(file: &ForeignDocument) -> Result<Map<String, Value>, StoreError> {
    match file.read_json::<Value>()? {
        Loaded::Missing => Ok(Map::new()),
        Loaded::Valid(Value::Object(map)) => Ok(map),
        Loaded::Valid(_) => Err(StoreError::Corrupt {
            path: file.path().to_owned(),
            reason: "expected a JSON object; fix or move the file, swarm will not overwrite it"
                .into(),
        }),
        Loaded::Corrupt(why) => Err(StoreError::Corrupt {
            path: file.path().to_owned(),
            reason: format!("{why}; fix or move the file, swarm will not overwrite it"),
        }),
    }
}

fn save(
    file: &ForeignDocument,
    lock: &crate::store::StateLock,
    settings: &Map<String, Value>,
) -> Result<(), StoreError> {
    let mut bytes =
        pyjson::to_vec(settings, Layout::Indent2).map_err(|source| StoreError::Encode {
            path: file.path().to_owned(),
            source,
        })?;
    bytes.push(b'\n');
    file.write(lock, &bytes)
}

fn has_hook(settings: &Map<String, Value>, hook: &Hook) -> bool {
    groups(settings, hook.event).iter().any(|g| {
        g.get("matcher").and_then(Value::as_str) == hook.matcher
            && g.get("hooks")
                .and_then(Value::as_array)
                .is_some_and(|hs| hs.iter().any(|h| is_command(h, &hook.command)))
    })
}

fn groups<'a>(settings: &'a Map<String, Value>, event: &str) -> Vec<&'a Map<String, Value>> {
    settings
        .get("hooks")
        .and_then(|h| h.get(event))
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_object).collect())
        .unwrap_or_default()
}

fn is_command(entry: &Value, command: &str) -> bool {
    entry.get("command").and_then(Value::as_str) == Some(command)
}

/// The swarm commands (shell words) that swarm's hooks in the project's
/// `.claude/settings.json` run; empty when there are none or the file
/// cannot be read.
pub(crate) fn installed_swarms(paths: &Paths) -> Vec<String> {
    let Ok(settings) = load(&settings_file(paths)) else {
        return Vec::new();
    };
    let mut found = Vec::new();
    for hook in swarm_hooks("swarm") {
        for group in groups(&settings, hook.event) {
            for entry in group
                .get("hooks")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                if let Some(swarm) = swarm_of(entry, hook.args)
                    && !found.contains(&swarm)
                {
                    found.push(swarm);
                }
            }
        }
    }
    found
}

/// The swarm command of an entry that runs `<swarm> <args>`.
fn swarm_of(entry: &Value, args: &str) -> Option<String> {
    let command = entry.get("command").and_then(Value::as_str)?;
    let swarm = command.strip_suffix(args)?.strip_suffix(' ')?;
    (!swarm.is_empty()).then(|| swarm.to_owned())
}

/// Adds the hooks that are missing, keeping everything else in the file;
/// swarm's own hooks that run another swarm command (an older binary) are
/// replaced.
pub fn install(paths: &Paths, hooks: &[Hook]) -> Result<Change, StoreError> {
    let file = settings_file(paths);
    let lock = file.lock(DEFAULT_LOCK_TIMEOUT)?;
    let mut settings = load(&file)?;
    let mut change = Change {
        file: file.path().to_owned(),
        ..Change::default()
    };
    for hook in hooks {
        if let Some(Value::Array(list)) = settings
            .get_mut("hooks")
            .and_then(|h| h.get_mut(hook.event))
        {
            for group in list.iter_mut() {
                if group.get("matcher").and_then(Value::as_str) != hook.matcher {
                    continue;
                }
                if let Some(Value::Array(entries)) = group.get_mut("hooks") {
                    entries.retain(|e| {
                        is_command(e, &hook.command) || swarm_of(e, hook.args).is_none()
                    });
                }
            }
            list.retain(|g| {
                g.get("hooks")
                    .and_then(Value::as_array)
                    .is_none_or(|h| !h.is_empty())
            });
        }
        if has_hook(&settings, hook) {
            change.unchanged.push(describe(hook));
            continue;
        }
        let all = settings.entry("hooks").or_insert_with(|| json!({}));
        if !all.is_object() {
            return Err(StoreError::Corrupt {
                path: file.path().to_owned(),
                reason: "`hooks` is not an object; fix it by hand".into(),
            });
        }
        let list = all
            .as_object_mut()
            .map(|o| o.entry(hook.event).or_insert_with(|| json!([])));
        let Some(Value::Array(list)) = list else {
            return Err(StoreError::Corrupt {
                path: file.path().to_owned(),
                reason: format!("`hooks.{}` is not a list; fix it by hand", hook.event),
            });
        };
        let mut group = Map::new();
        if let Some(m) = hook.matcher {
            group.insert("matcher".into(), json!(m));
        }
        group.insert(
            "hooks".into(),
            json!([{"type": "command", "command": hook.command}]),
        );
        list.push(Value::Object(group));
        change.changed.push(describe(hook));
    }
    if !change.changed.is_empty() {
        save(&file, &lock, &settings)?;
    }
    Ok(change)
}

/// Removes exactly these hooks (and any group or list left empty by that),
/// keeping everything else.
pub fn uninstall(paths: &Paths, hooks: &[Hook]) -> Result<Change, StoreError> {
    let file = settings_file(paths);
    let lock = file.lock(DEFAULT_LOCK_TIMEOUT)?;
    let mut settings = load(&file)?;
    let mut change = Change {
        file: file.path().to_owned(),
        ..Change::default()
    };
    for hook in hooks {
        let Some(Value::Array(list)) = settings
            .get_mut("hooks")
            .and_then(|h| h.get_mut(hook.event))
        else {
            change.unchanged.push(describe(hook));
            continue;
        };
        let mut removed = false;
        for group in list.iter_mut() {
            if group.get("matcher").and_then(Value::as_str) != hook.matcher {
                continue;
            }
            if let Some(Value::Array(entries)) = group.get_mut("hooks") {
                let before = entries.len();
                entries.retain(|e| !is_command(e, &hook.command));
                removed |= entries.len() != before;
            }
        }
        list.retain(|g| {
            g.get("hooks")
                .and_then(Value::as_array)
                .is_none_or(|h| !h.is_empty())
        });
        if removed {
            change.changed.push(describe(hook));
        } else {
            change.unchanged.push(describe(hook));
        }
    }
    if let Some(Value::Object(all)) = settings.get_mut("hooks") {
        all.retain(|_, v| v.as_array().is_none_or(|a| !a.is_empty()));
        if all.is_empty() {
            settings.remove("hooks");
        }
    }
    if !change.changed.is_empty() {
        save(&file, &lock, &settings)?;
    }
    Ok(change)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn setup(existing: Option<&str>) -> (tempfile::TempDir, Paths) {
        let dir = tempfile::tempdir().expect("tempdir");
        let paths = Paths::new(dir.path());
        if let Some(text) = existing {
            fs::create_dir_all(dir.path().join(".claude")).expect("mkdir");
            fs::write(dir.path().join(".claude/settings.json"), text).expect("write");
        }
        (dir, paths)
    }

    fn read(dir: &tempfile::TempDir) -> Value {
        serde_json::from_str(
            &fs::read_to_string(dir.path().join(".claude/settings.json")).expect("read"),
        )
        .expect("json")
    }

    #[test]
    fn installs_into_a_fresh_project_and_is_idempotent() {
        let (dir, paths) = setup(None);
        let hooks = swarm_hooks("swarm");
        let c = install(&paths, &hooks).expect("install");
        assert_eq!(c.changed.len(), 2);
        assert_eq!(
            read(&dir),
            json!({"hooks": {
                "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "swarm inbox --new --hook"}]}],
                "PreToolUse": [{"matcher": "Edit|Write|MultiEdit", "hooks": [{"type": "command", "command": "swarm guard check-edit"}]}]
            }})
        );
        let again = install(&paths, &hooks).expect("install");
        assert!(again.changed.is_empty());
    }

    #[test]
    fn merges_with_existing_settings_and_uninstalls_exactly() {
        let original = r#"{"model": "opus", "hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "echo mine"}]}], "Stop": [{"hooks": [{"type": "command", "command": "say done"}]}]}}"#;
        let (dir, paths) = setup(Some(original));
        let hooks = swarm_hooks("swarm");
        install(&paths, &hooks).expect("install");
        let after = read(&dir);
        assert_eq!(after["model"], "opus");
        assert_eq!(
            after["hooks"]["UserPromptSubmit"].as_array().map(Vec::len),
            Some(2)
        );
        let c = uninstall(&paths, &hooks).expect("uninstall");
        assert_eq!(c.changed.len(), 2);
        let back: Value = serde_json::from_str(original).expect("json");
        assert_eq!(read(&dir), back);
    }

    #[test]
    fn refuses_to_touch_a_broken_file() {
        let (dir, paths) = setup(Some("{ not json"));
        let err = install(&paths, &swarm_hooks("swarm")).expect_err("broken");
        assert!(err.to_string().contains("will not overwrite"), "{err}");
        assert_eq!(
            fs::read_to_string(dir.path().join(".claude/settings.json")).expect("read"),
            "{ not json"
        );
    }
}
