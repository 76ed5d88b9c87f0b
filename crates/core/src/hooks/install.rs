//! The agents' own hooks: swarm's entries in each agent's project
//! settings (Claude Code `.claude/settings.json`, or
//! `.claude/settings.local.json`; Codex CLI `.codex/hooks.json`; Gemini
//! CLI `.gemini/settings.json`), merged into whatever the file already
//! holds (never clobbering it) and removed again exactly. Every entry runs
//! one command, `swarm hook <agent>`, which reads the event from its input.
//!
//! The three share one shape, grouped by event, then by matcher:
//! `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command":
//! "..."}]}]}}`; tool events may add `"matcher": "Edit|Write"`.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};

use super::payload::{VENDORS, Vendor};
use crate::store::{DEFAULT_LOCK_TIMEOUT, ForeignDocument, Loaded, Paths, StoreError};
use crate::support::json::{self as pyjson, Layout};

/// One hook swarm installs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hook {
    /// The agent's event (`UserPromptSubmit`, `PreToolUse`).
    pub event: &'static str,
    /// Tool matcher for tool events.
    pub matcher: Option<&'static str>,
    /// The shell command.
    pub command: String,
    /// What follows the swarm command in `command`: how swarm recognises
    /// its own hook, whichever binary it named.
    pub args: &'static str,
}

/// The events swarm's hook handles, per agent, with their matchers.
fn events(vendor: Vendor) -> &'static [(&'static str, Option<&'static str>)] {
    match vendor {
        Vendor::Claude => &[
            ("UserPromptSubmit", None),
            ("PreToolUse", Some("Edit|Write|MultiEdit")),
            ("PermissionRequest", None),
            ("Stop", None),
            ("StopFailure", None),
            ("SessionEnd", None),
        ],
        Vendor::Codex => &[
            ("UserPromptSubmit", None),
            ("PermissionRequest", None),
            ("Stop", None),
        ],
        Vendor::Gemini => &[
            ("BeforeAgent", None),
            ("Notification", None),
            ("AfterAgent", None),
            ("SessionEnd", None),
        ],
    }
}

/// The arguments of `swarm hook <agent>`.
fn hook_args(vendor: Vendor) -> &'static str {
    match vendor {
        Vendor::Claude => "hook claude",
        Vendor::Codex => "hook codex",
        Vendor::Gemini => "hook gemini",
    }
}

/// The hooks swarm installs for `vendor`, for a swarm invoked as `swarm`
/// (a command name or a quoted path).
pub fn swarm_hooks(swarm: &str, vendor: Vendor) -> Vec<Hook> {
    let args = hook_args(vendor);
    events(vendor)
        .iter()
        .map(|&(event, matcher)| Hook {
            event,
            matcher,
            command: format!("{swarm} {args}"),
            args,
        })
        .collect()
}

/// Hooks older swarm versions installed for Claude Code, each its own
/// command; `install` replaces them with the one entry point.
const FORMER: [(&str, Option<&str>, &str); 2] = [
    ("UserPromptSubmit", None, "inbox --new --hook"),
    (
        "PreToolUse",
        Some("Edit|Write|MultiEdit"),
        "guard check-edit",
    ),
];

/// Where an agent's hooks go in a project.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    /// The project's shared settings (`.claude/settings.json`, ...).
    Shared,
    /// Claude Code's `.claude/settings.local.json`, which git does not
    /// carry (the other agents have no such file: their one place).
    Local,
}

/// The settings file of `vendor`'s hooks in the project at `root`.
pub fn settings_path(root: &Path, vendor: Vendor, place: Place) -> PathBuf {
    match (vendor, place) {
        (Vendor::Claude, Place::Shared) => root.join(".claude").join("settings.json"),
        (Vendor::Claude, Place::Local) => root.join(".claude").join("settings.local.json"),
        (Vendor::Codex, _) => root.join(".codex").join("hooks.json"),
        (Vendor::Gemini, _) => root.join(".gemini").join("settings.json"),
    }
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

/// The agents whose hooks `swarm hooks install` with no agent named sets
/// up: each whose project settings directory (`.claude`, `.codex`,
/// `.gemini`) is present at `root` or whose program is on `PATH`; Claude
/// Code, swarm's default agent, when none is.
pub fn present(root: &Path) -> Vec<Vendor> {
    let found: Vec<Vendor> = VENDORS
        .into_iter()
        .filter(|v| {
            let dir = settings_path(root, *v, Place::Shared);
            dir.parent().is_some_and(Path::is_dir)
                || crate::agents::launch::find_on_path(v.as_str()).is_some()
        })
        .collect();
    if found.is_empty() {
        vec![Vendor::Claude]
    } else {
        found
    }
}

fn settings_file(paths: &Paths, vendor: Vendor, place: Place) -> ForeignDocument {
    ForeignDocument::new(paths, settings_path(paths.root(), vendor, place))
}

fn describe(hook: &Hook) -> String {
    match hook.matcher {
        Some(m) => format!("{} [{m}]: {}", hook.event, hook.command),
        None => format!("{}: {}", hook.event, hook.command),
    }
}

/// How a settings file was laid out, so that it is written back the same
/// way: the other settings then keep their bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Style {
    /// Two-space indent, `": "` (what JavaScript's `JSON.stringify` and
    /// most editors write).
    Pretty,
    /// Python's `json.dumps(indent=2)` (non-ASCII escaped).
    Python,
}

/// A settings document as read: its object, layout, and final newline.
struct Document {
    settings: Map<String, Value>,
    style: Style,
    newline: bool,
}

fn render(settings: &Map<String, Value>, style: Style) -> serde_json::Result<Vec<u8>> {
    match style {
        Style::Pretty => serde_json::to_vec_pretty(settings),
        Style::Python => pyjson::to_vec(settings, Layout::Indent2),
    }
}

fn load(file: &ForeignDocument) -> Result<Document, StoreError> {
    let refuse = |why: String| StoreError::Corrupt {
        path: file.path().to_owned(),
        reason: format!("{why}; fix or move the file, swarm will not overwrite it"),
    };
    let bytes = match file.read_json::<Value>()? {
        Loaded::Missing => {
            return Ok(Document {
                settings: Map::new(),
                style: Style::Pretty,
                newline: true,
            });
        }
        Loaded::Corrupt(why) => return Err(refuse(why)),
        Loaded::Valid(Value::Object(_)) => file.read()?.unwrap_or_default(),
        Loaded::Valid(_) => return Err(refuse("expected a JSON object".into())),
    };
    let settings: Map<String, Value> =
        serde_json::from_slice(&bytes).map_err(|e| refuse(e.to_string()))?;
    let body = bytes.strip_suffix(b"\n").unwrap_or(&bytes);
    let style = if render(&settings, Style::Python).is_ok_and(|b| b == body)
        && !render(&settings, Style::Pretty).is_ok_and(|b| b == body)
    {
        Style::Python
    } else {
        Style::Pretty
    };
    Ok(Document {
        settings,
        style,
        newline: bytes.ends_with(b"\n") || bytes.is_empty(),
    })
}

fn save(
    file: &ForeignDocument,
    lock: &crate::store::StateLock,
    doc: &Document,
) -> Result<(), StoreError> {
    let mut bytes = render(&doc.settings, doc.style).map_err(|source| StoreError::Encode {
        path: file.path().to_owned(),
        source,
    })?;
    if doc.newline {
        bytes.push(b'\n');
    }
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

/// The swarm commands (shell words) that swarm's hooks for `vendor` in
/// the project's settings run, whichever place holds them; empty when
/// there are none or the file cannot be read.
pub(crate) fn installed_swarms(paths: &Paths, vendor: Vendor) -> Vec<String> {
    let mut found = Vec::new();
    for place in [Place::Shared, Place::Local] {
        let Ok(doc) = load(&settings_file(paths, vendor, place)) else {
            continue;
        };
        for hook in swarm_hooks("swarm", vendor) {
            for group in groups(&doc.settings, hook.event) {
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
        if vendor != Vendor::Claude {
            break;
        }
    }
    found
}

/// Which of `vendor`'s hook events swarm's entries cover in the project
/// (either place), for `swarm doctor` and `swarm agents`.
pub fn installed_events(paths: &Paths, vendor: Vendor) -> Vec<&'static str> {
    let mut found = Vec::new();
    for place in [Place::Shared, Place::Local] {
        let Ok(doc) = load(&settings_file(paths, vendor, place)) else {
            continue;
        };
        for hook in swarm_hooks("swarm", vendor) {
            let here = groups(&doc.settings, hook.event).iter().any(|g| {
                g.get("hooks")
                    .and_then(Value::as_array)
                    .is_some_and(|hs| hs.iter().any(|h| swarm_of(h, hook.args).is_some()))
            });
            if here && !found.contains(&hook.event) {
                found.push(hook.event);
            }
        }
        if vendor != Vendor::Claude {
            break;
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

/// Drops the groups of `list` left with no hooks.
fn drop_empty_groups(list: &mut Vec<Value>) {
    list.retain(|g| {
        g.get("hooks")
            .and_then(Value::as_array)
            .is_none_or(|h| !h.is_empty())
    });
}

/// Removes, from the groups of `event` with `matcher`, the entries `gone`
/// picks; true when any went.
fn remove_entries(
    settings: &mut Map<String, Value>,
    event: &str,
    matcher: Option<&str>,
    gone: impl Fn(&Value) -> bool,
) -> bool {
    let Some(Value::Array(list)) = settings.get_mut("hooks").and_then(|h| h.get_mut(event)) else {
        return false;
    };
    let mut removed = false;
    for group in list.iter_mut() {
        if group.get("matcher").and_then(Value::as_str) != matcher {
            continue;
        }
        if let Some(Value::Array(entries)) = group.get_mut("hooks") {
            let before = entries.len();
            entries.retain(|e| !gone(e));
            removed |= entries.len() != before;
        }
    }
    drop_empty_groups(list);
    removed
}

/// Drops the events left with no groups, and `hooks` when it is empty.
fn drop_empty_events(settings: &mut Map<String, Value>) {
    if let Some(Value::Object(all)) = settings.get_mut("hooks") {
        all.retain(|_, v| v.as_array().is_none_or(|a| !a.is_empty()));
        if all.is_empty() {
            settings.remove("hooks");
        }
    }
}

/// Adds `vendor`'s hooks that are missing to its settings at `place`,
/// keeping everything else in the file; swarm's own hooks that run
/// another swarm command (an older binary), and the separate hooks older
/// versions installed, are replaced.
pub fn install(
    paths: &Paths,
    vendor: Vendor,
    place: Place,
    hooks: &[Hook],
) -> Result<Change, StoreError> {
    install_in(paths, paths.root(), vendor, place, hooks)
}

/// `install` into the settings of the checkout at `root` (an agent's
/// worktree), locked under the project of `paths`.
fn install_in(
    paths: &Paths,
    root: &Path,
    vendor: Vendor,
    place: Place,
    hooks: &[Hook],
) -> Result<Change, StoreError> {
    let file = ForeignDocument::new(paths, settings_path(root, vendor, place));
    let lock = file.lock(DEFAULT_LOCK_TIMEOUT)?;
    let mut doc = load(&file)?;
    let settings = &mut doc.settings;
    let mut change = Change {
        file: file.path().to_owned(),
        ..Change::default()
    };
    let mut replaced = false;
    if vendor == Vendor::Claude {
        for (event, matcher, args) in FORMER {
            replaced |= remove_entries(settings, event, matcher, |e| swarm_of(e, args).is_some());
        }
    }
    for hook in hooks {
        replaced |= remove_entries(settings, hook.event, hook.matcher, |e| {
            !is_command(e, &hook.command) && swarm_of(e, hook.args).is_some()
        });
        if has_hook(settings, hook) {
            change.unchanged.push(describe(hook));
            continue;
        }
        let all = settings.entry("hooks").or_insert_with(|| json!({}));
        let Some(all) = all.as_object_mut() else {
            return Err(StoreError::Corrupt {
                path: file.path().to_owned(),
                reason: "`hooks` is not an object; fix it by hand".into(),
            });
        };
        let Value::Array(list) = all.entry(hook.event).or_insert_with(|| json!([])) else {
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
    drop_empty_events(settings);
    if !change.changed.is_empty() || replaced {
        save(&file, &lock, &doc)?;
    }
    Ok(change)
}

/// Removes exactly `vendor`'s hooks (and any group, list or file left
/// empty by that), keeping everything else.
pub fn uninstall(
    paths: &Paths,
    vendor: Vendor,
    place: Place,
    hooks: &[Hook],
) -> Result<Change, StoreError> {
    let file = settings_file(paths, vendor, place);
    let lock = file.lock(DEFAULT_LOCK_TIMEOUT)?;
    let mut doc = load(&file)?;
    let mut change = Change {
        file: file.path().to_owned(),
        ..Change::default()
    };
    for hook in hooks {
        if remove_entries(&mut doc.settings, hook.event, hook.matcher, |e| {
            is_command(e, &hook.command)
        }) {
            change.changed.push(describe(hook));
        } else {
            change.unchanged.push(describe(hook));
        }
    }
    drop_empty_events(&mut doc.settings);
    if change.changed.is_empty() {
        return Ok(change);
    }
    if doc.settings.is_empty() {
        // Nothing but swarm's hooks was in it: it goes, as before install.
        file.remove(&lock)?;
    } else {
        save(&file, &lock, &doc)?;
    }
    Ok(change)
}

/// Gives the agent's worktree at `worktree` the hooks the main project of
/// `paths` has, for each agent and place that has them there: an agent
/// reads its project settings from its own checkout, where a settings
/// file nobody committed is missing. Returns a line per change, or per
/// failure (a worktree without hooks still works: the screen is read).
pub fn copy_to_worktree(paths: &Paths, worktree: &Path) -> Vec<String> {
    let mut notes = Vec::new();
    for vendor in VENDORS {
        for place in [Place::Shared, Place::Local] {
            let Ok(doc) = load(&settings_file(paths, vendor, place)) else {
                continue;
            };
            let Some(swarm) = swarm_hooks("swarm", vendor).iter().find_map(|h| {
                groups(&doc.settings, h.event).iter().find_map(|g| {
                    g.get("hooks")
                        .and_then(Value::as_array)?
                        .iter()
                        .find_map(|e| swarm_of(e, h.args))
                })
            }) else {
                continue;
            };
            let hooks = swarm_hooks(&swarm, vendor);
            match install_in(paths, worktree, vendor, place, &hooks) {
                Ok(c) if c.changed.is_empty() => {}
                Ok(c) => notes.push(format!(
                    "added {} {} hook(s) to {}",
                    c.changed.len(),
                    vendor.product(),
                    c.file.display()
                )),
                Err(e) => notes.push(format!(
                    "could not give the worktree {}'s hooks: {e}",
                    vendor.product()
                )),
            }
        }
    }
    notes
}

#[cfg(test)]
#[path = "install_tests.rs"]
mod tests;
