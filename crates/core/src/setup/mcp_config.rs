//! swarm's MCP server in each agent CLI's project configuration, merged
//! into whatever the file already holds (never replacing it) and removed
//! again exactly. Where each CLI reads a project's servers
//! (docs/AGENTS-MCP.md):
//!
//! * Claude Code: `.mcp.json`, `{"mcpServers": {NAME: {"command", "args"}}}`;
//!   a project server is used only once approved, which
//!   `"enabledMcpjsonServers": [NAME]` in `.claude/settings.local.json`
//!   does ahead of time (else a dialog asks at start-up).
//! * Codex CLI: `.codex/config.toml`, `[mcp_servers.NAME]` with `command`
//!   and `args` (read for a trusted project). Codex gives a server only a
//!   few environment variables of its own; `env_vars` passes the pane's
//!   `TMUX` and `TMUX_PANE`, without which the server is no agent.
//! * Gemini CLI: `.gemini/settings.json`, `{"mcpServers": {NAME: {...}}}`.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};

use crate::store::{DEFAULT_LOCK_TIMEOUT, ForeignDocument, Loaded, Paths, StateLock, StoreError};
use crate::support::json::{self as pyjson, Layout};

/// The name swarm's server goes by in every configuration (tools reach the
/// model as `mcp__swarm__send_message`, `mcp_swarm_send_message`).
pub(crate) const SERVER_NAME: &str = "swarm";

/// An agent CLI that can start MCP servers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Client {
    /// Claude Code.
    Claude,
    /// Codex CLI.
    Codex,
    /// Gemini CLI.
    Gemini,
}

impl Client {
    /// Every client, in the order they are reported.
    pub const ALL: [Client; 3] = [Client::Claude, Client::Codex, Client::Gemini];

    /// Its name for people.
    pub fn name(self) -> &'static str {
        match self {
            Client::Claude => "Claude Code",
            Client::Codex => "Codex CLI",
            Client::Gemini => "Gemini CLI",
        }
    }

    /// The program that runs it.
    pub fn program(self) -> &'static str {
        match self {
            Client::Claude => "claude",
            Client::Codex => "codex",
            Client::Gemini => "gemini",
        }
    }

    /// The file of `root` that lists its MCP servers.
    pub(crate) fn config_file(self, root: &Path) -> PathBuf {
        match self {
            Client::Claude => root.join(".mcp.json"),
            Client::Codex => root.join(".codex").join("config.toml"),
            Client::Gemini => root.join(".gemini").join("settings.json"),
        }
    }
}

/// Claude Code's per-project approvals.
fn claude_local_settings(root: &Path) -> PathBuf {
    root.join(".claude").join("settings.local.json")
}

/// The file at `path`, one of an agent CLI's, in the project at `root`.
fn document(root: &Path, path: PathBuf) -> ForeignDocument {
    ForeignDocument::new(&Paths::new(root), path)
}

/// What happened to one file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Done {
    /// The entry was added.
    Added,
    /// swarm's entry was there with another command; it now runs this one.
    Updated,
    /// Already as wanted.
    Unchanged,
    /// The entry was removed.
    Removed,
    /// There was nothing to remove.
    Absent,
}

impl Done {
    /// How it reads after the file name.
    pub fn as_str(self) -> &'static str {
        match self {
            Done::Added => "added",
            Done::Updated => "updated",
            Done::Unchanged => "already there",
            Done::Removed => "removed",
            Done::Absent => "not there",
        }
    }
}

/// What `install` or `uninstall` did for one client.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Change {
    /// The client.
    pub client: Client,
    /// Each file touched (or looked at), with what happened to it.
    pub files: Vec<(PathBuf, Done)>,
}

/// What a client's configuration says about swarm's server.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Installed {
    /// No entry.
    No,
    /// An entry running this command with these arguments; for Claude
    /// Code, whether the project approves it ahead of time.
    Yes {
        /// The program.
        command: String,
        /// Its arguments.
        args: Vec<String>,
        /// Approved ahead of time (always true for the other clients).
        approved: bool,
    },
    /// The file cannot be read as the client's format.
    Unreadable(String),
}

/// The arguments swarm's entry runs the binary with.
pub(crate) const SERVER_ARGS: [&str; 1] = ["mcp"];

/// The variables Codex is told to pass on: the pane identifies the agent,
/// the others choose the tmux server and the project as on the command
/// line.
const CODEX_ENV_VARS: [&str; 4] = ["TMUX", "TMUX_PANE", "SWARM_TMUX_SOCKET", "CLAUDESWARM_ROOT"];

fn refuse(file: &ForeignDocument, why: impl Into<String>) -> StoreError {
    StoreError::Corrupt {
        path: file.path().to_owned(),
        reason: format!(
            "{}; fix or move the file, swarm will not overwrite it",
            why.into()
        ),
    }
}

fn load_json(file: &ForeignDocument) -> Result<Map<String, Value>, StoreError> {
    match file.read_json::<Value>()? {
        Loaded::Missing => Ok(Map::new()),
        Loaded::Valid(Value::Object(map)) => Ok(map),
        Loaded::Valid(_) => Err(refuse(file, "expected a JSON object")),
        Loaded::Corrupt(why) => Err(refuse(file, why)),
    }
}

fn save_json(
    file: &ForeignDocument,
    lock: &StateLock,
    map: &Map<String, Value>,
) -> Result<(), StoreError> {
    if map.is_empty() {
        file.remove(lock)?;
        return Ok(());
    }
    let mut bytes = pyjson::to_vec(map, Layout::Indent2).map_err(|source| StoreError::Encode {
        path: file.path().to_owned(),
        source,
    })?;
    bytes.push(b'\n');
    file.write(lock, &bytes)
}

/// The `mcpServers` object of a JSON config, created when missing.
fn servers_mut<'a>(
    file: &ForeignDocument,
    map: &'a mut Map<String, Value>,
) -> Result<&'a mut Map<String, Value>, StoreError> {
    map.entry("mcpServers")
        .or_insert_with(|| json!({}))
        .as_object_mut()
        .ok_or_else(|| refuse(file, "`mcpServers` is not an object"))
}

fn json_install(file: ForeignDocument, command: &str) -> Result<Done, StoreError> {
    let lock = file.lock(DEFAULT_LOCK_TIMEOUT)?;
    let mut map = load_json(&file)?;
    let servers = servers_mut(&file, &mut map)?;
    let args = json!(SERVER_ARGS);
    let done = match servers.get_mut(SERVER_NAME) {
        Some(Value::Object(entry)) => {
            if entry.get("command").and_then(Value::as_str) == Some(command)
                && entry.get("args") == Some(&args)
            {
                Done::Unchanged
            } else {
                // Ours: point it at this binary, keeping anything the user
                // added to it (env, timeout, ...).
                entry.insert("command".into(), json!(command));
                entry.insert("args".into(), args);
                Done::Updated
            }
        }
        Some(_) => {
            return Err(refuse(
                &file,
                format!("`mcpServers.{SERVER_NAME}` is not an object"),
            ));
        }
        None => {
            servers.insert(
                SERVER_NAME.into(),
                json!({ "command": command, "args": args }),
            );
            Done::Added
        }
    };
    if done != Done::Unchanged {
        save_json(&file, &lock, &map)?;
    }
    Ok(done)
}

fn json_uninstall(file: ForeignDocument) -> Result<Done, StoreError> {
    if !file.path().exists() {
        return Ok(Done::Absent);
    }
    let lock = file.lock(DEFAULT_LOCK_TIMEOUT)?;
    let mut map = load_json(&file)?;
    let Some(servers) = map.get_mut("mcpServers").and_then(Value::as_object_mut) else {
        return Ok(Done::Absent);
    };
    if servers.shift_remove(SERVER_NAME).is_none() {
        return Ok(Done::Absent);
    }
    if servers.is_empty() {
        map.shift_remove("mcpServers");
    }
    save_json(&file, &lock, &map)?;
    Ok(Done::Removed)
}

/// Adds (`approve`) or removes swarm from Claude Code's
/// `enabledMcpjsonServers`.
fn claude_approval(root: &Path, approve: bool) -> Result<Done, StoreError> {
    let file = document(root, claude_local_settings(root));
    if !approve && !file.path().exists() {
        return Ok(Done::Absent);
    }
    let lock = file.lock(DEFAULT_LOCK_TIMEOUT)?;
    let mut map = load_json(&file)?;
    let list = map
        .entry("enabledMcpjsonServers")
        .or_insert_with(|| json!([]));
    let Value::Array(list) = list else {
        return Err(refuse(&file, "`enabledMcpjsonServers` is not a list"));
    };
    let present = list.iter().any(|v| v.as_str() == Some(SERVER_NAME));
    let done = match (approve, present) {
        (true, true) => Done::Unchanged,
        (true, false) => {
            list.push(json!(SERVER_NAME));
            Done::Added
        }
        (false, true) => {
            list.retain(|v| v.as_str() != Some(SERVER_NAME));
            Done::Removed
        }
        (false, false) => Done::Absent,
    };
    if list.is_empty() {
        map.shift_remove("enabledMcpjsonServers");
    }
    if matches!(done, Done::Added | Done::Removed) {
        save_json(&file, &lock, &map)?;
    }
    Ok(done)
}

fn load_toml(file: &ForeignDocument) -> Result<toml_edit::DocumentMut, StoreError> {
    match file.read()? {
        None => Ok(toml_edit::DocumentMut::new()),
        Some(bytes) => String::from_utf8(bytes)
            .map_err(|e| refuse(file, e.to_string()))?
            .parse::<toml_edit::DocumentMut>()
            .map_err(|e| refuse(file, crate::support::sanitize::one_line(&e.to_string()))),
    }
}

fn save_toml(
    file: &ForeignDocument,
    lock: &StateLock,
    doc: &toml_edit::DocumentMut,
) -> Result<(), StoreError> {
    let text = doc.to_string();
    if text.trim().is_empty() {
        file.remove(lock)?;
        return Ok(());
    }
    file.write(lock, text.as_bytes())
}

fn toml_install(file: ForeignDocument, command: &str) -> Result<Done, StoreError> {
    use toml_edit::{Array, Item, Table, value};
    let lock = file.lock(DEFAULT_LOCK_TIMEOUT)?;
    let mut doc = load_toml(&file)?;
    let servers = doc
        .entry("mcp_servers")
        .or_insert_with(|| {
            let mut t = Table::new();
            t.set_implicit(true);
            Item::Table(t)
        })
        .as_table_like_mut()
        .ok_or_else(|| refuse(&file, "`mcp_servers` is not a table"))?;
    let args: Array = SERVER_ARGS.iter().copied().collect();
    let env_vars: Array = CODEX_ENV_VARS.iter().copied().collect();
    let done = match servers.get_mut(SERVER_NAME) {
        Some(item) => {
            let entry = item.as_table_like_mut().ok_or_else(|| {
                refuse(&file, format!("`mcp_servers.{SERVER_NAME}` is not a table"))
            })?;
            let same_command = entry.get("command").and_then(Item::as_str) == Some(command);
            let same = |key: &str, want: &[&str]| {
                entry.get(key).and_then(Item::as_array).is_some_and(|a| {
                    a.iter()
                        .map(|v| v.as_str())
                        .eq(want.iter().map(|s| Some(*s)))
                })
            };
            if same_command && same("args", &SERVER_ARGS) && same("env_vars", &CODEX_ENV_VARS) {
                Done::Unchanged
            } else {
                entry.insert("command", value(command));
                entry.insert("args", value(args));
                entry.insert("env_vars", value(env_vars));
                Done::Updated
            }
        }
        None => {
            let mut t = Table::new();
            t.insert("command", value(command));
            t.insert("args", value(args));
            t.insert("env_vars", value(env_vars));
            servers.insert(SERVER_NAME, Item::Table(t));
            Done::Added
        }
    };
    if done != Done::Unchanged {
        save_toml(&file, &lock, &doc)?;
    }
    Ok(done)
}

fn toml_uninstall(file: ForeignDocument) -> Result<Done, StoreError> {
    if !file.path().exists() {
        return Ok(Done::Absent);
    }
    let lock = file.lock(DEFAULT_LOCK_TIMEOUT)?;
    let mut doc = load_toml(&file)?;
    let Some(servers) = doc
        .get_mut("mcp_servers")
        .and_then(toml_edit::Item::as_table_like_mut)
    else {
        return Ok(Done::Absent);
    };
    if servers.remove(SERVER_NAME).is_none() {
        return Ok(Done::Absent);
    }
    if servers.is_empty() {
        doc.remove("mcp_servers");
    }
    save_toml(&file, &lock, &doc)?;
    Ok(Done::Removed)
}

/// Adds swarm's server, run as `command mcp`, to `client`'s configuration
/// in `root`.
pub fn install(root: &Path, client: Client, command: &str) -> Result<Change, StoreError> {
    let path = client.config_file(root);
    let mut files = Vec::new();
    match client {
        Client::Claude => {
            files.push((path.clone(), json_install(document(root, path), command)?));
            files.push((claude_local_settings(root), claude_approval(root, true)?));
        }
        Client::Gemini => files.push((path.clone(), json_install(document(root, path), command)?)),
        Client::Codex => files.push((path.clone(), toml_install(document(root, path), command)?)),
    }
    Ok(Change { client, files })
}

/// Removes swarm's server from `client`'s configuration in `root`, and
/// nothing else.
pub fn uninstall(root: &Path, client: Client) -> Result<Change, StoreError> {
    let path = client.config_file(root);
    let mut files = Vec::new();
    match client {
        Client::Claude => {
            files.push((path.clone(), json_uninstall(document(root, path))?));
            files.push((claude_local_settings(root), claude_approval(root, false)?));
        }
        Client::Gemini => files.push((path.clone(), json_uninstall(document(root, path))?)),
        Client::Codex => files.push((path.clone(), toml_uninstall(document(root, path))?)),
    }
    Ok(Change { client, files })
}

fn string_list(v: Option<&Value>) -> Vec<String> {
    v.and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

/// What `client`'s configuration in `root` says about swarm's server.
pub(crate) fn status(root: &Path, client: Client) -> Installed {
    let file = document(root, client.config_file(root));
    let entry = match client {
        Client::Claude | Client::Gemini => match load_json(&file) {
            Err(e) => return Installed::Unreadable(e.to_string()),
            Ok(map) => map
                .get("mcpServers")
                .and_then(|s| s.get(SERVER_NAME))
                .cloned(),
        },
        Client::Codex => match load_toml(&file) {
            Err(e) => return Installed::Unreadable(e.to_string()),
            Ok(doc) => doc
                .get("mcp_servers")
                .and_then(|s| s.get(SERVER_NAME))
                .map(|e| {
                    json!({
                        "command": e.get("command").and_then(toml_edit::Item::as_str),
                        "args": e.get("args").and_then(toml_edit::Item::as_array).map(|a| {
                            a.iter().filter_map(|v| v.as_str().map(str::to_owned)).collect::<Vec<_>>()
                        }),
                    })
                }),
        },
    };
    let Some(entry) = entry else {
        return Installed::No;
    };
    let approved = client != Client::Claude
        || load_json(&document(root, claude_local_settings(root)))
            .map(|m| {
                string_list(m.get("enabledMcpjsonServers"))
                    .iter()
                    .any(|s| s == SERVER_NAME)
            })
            .unwrap_or(false);
    Installed::Yes {
        command: entry
            .get("command")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned(),
        args: string_list(entry.get("args")),
        approved,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    const EXE: &str = "/opt/swarm/bin/swarm";

    #[test]
    fn json_configs_are_merged_and_restored() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path();
        let before = "{\n  \"mcpServers\": {\n    \"other\": {\n      \"command\": \"x\"\n    }\n  },\n  \"keep\": 1\n}\n";
        fs::write(root.join(".mcp.json"), before).expect("write");
        fs::create_dir(root.join(".claude")).expect("mkdir");
        fs::write(
            root.join(".claude/settings.local.json"),
            r#"{"enabledMcpjsonServers": ["other"], "permissions": {"allow": []}}"#,
        )
        .expect("write");
        let c = install(root, Client::Claude, EXE).expect("install");
        assert_eq!(c.files[0].1, Done::Added);
        assert_eq!(c.files[1].1, Done::Added);
        let mcp: Value =
            serde_json::from_str(&fs::read_to_string(root.join(".mcp.json")).expect("read"))
                .expect("json");
        assert_eq!(mcp["mcpServers"]["other"]["command"], "x");
        assert_eq!(
            mcp["mcpServers"]["swarm"],
            json!({"command": EXE, "args": ["mcp"]})
        );
        assert_eq!(mcp["keep"], 1);
        assert_eq!(
            status(root, Client::Claude),
            Installed::Yes {
                command: EXE.into(),
                args: vec!["mcp".into()],
                approved: true
            }
        );
        let again = install(root, Client::Claude, EXE).expect("again");
        assert!(again.files.iter().all(|(_, d)| *d == Done::Unchanged));
        let moved = install(root, Client::Claude, "/new/swarm").expect("moved");
        assert_eq!(moved.files[0].1, Done::Updated);

        let gone = uninstall(root, Client::Claude).expect("uninstall");
        assert!(gone.files.iter().all(|(_, d)| *d == Done::Removed));
        let mcp: Value =
            serde_json::from_str(&fs::read_to_string(root.join(".mcp.json")).expect("read"))
                .expect("json");
        assert_eq!(
            mcp,
            json!({"mcpServers": {"other": {"command": "x"}}, "keep": 1})
        );
        let local: Value = serde_json::from_str(
            &fs::read_to_string(root.join(".claude/settings.local.json")).expect("read"),
        )
        .expect("json");
        assert_eq!(local["enabledMcpjsonServers"], json!(["other"]));
        assert_eq!(status(root, Client::Claude), Installed::No);
        let twice = uninstall(root, Client::Claude).expect("twice");
        assert!(twice.files.iter().all(|(_, d)| *d == Done::Absent));
    }

    #[test]
    fn files_swarm_created_are_removed_again() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path();
        install(root, Client::Gemini, EXE).expect("install");
        let g: Value = serde_json::from_str(
            &fs::read_to_string(root.join(".gemini/settings.json")).expect("read"),
        )
        .expect("json");
        assert_eq!(
            g,
            json!({"mcpServers": {"swarm": {"command": EXE, "args": ["mcp"]}}})
        );
        uninstall(root, Client::Gemini).expect("uninstall");
        assert!(!root.join(".gemini/settings.json").exists());
    }

    #[test]
    fn codex_toml_keeps_comments_and_other_servers() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path();
        fs::create_dir(root.join(".codex")).expect("mkdir");
        let before =
            "# my settings\nmodel = \"o5\"\n\n[mcp_servers.other]\ncommand = \"x\" # keep me\n";
        fs::write(root.join(".codex/config.toml"), before).expect("write");
        let c = install(root, Client::Codex, EXE).expect("install");
        assert_eq!(c.files[0].1, Done::Added);
        let text = fs::read_to_string(root.join(".codex/config.toml")).expect("read");
        assert!(text.starts_with(before), "{text}");
        let parsed: toml::Table = text.parse().expect("toml");
        assert_eq!(
            parsed["mcp_servers"]["swarm"]["command"].as_str(),
            Some(EXE)
        );
        assert_eq!(
            parsed["mcp_servers"]["swarm"]["env_vars"]
                .as_array()
                .map(|a| a.iter().filter_map(|v| v.as_str()).collect::<Vec<_>>()),
            Some(CODEX_ENV_VARS.to_vec())
        );
        assert_eq!(
            status(root, Client::Codex),
            Installed::Yes {
                command: EXE.into(),
                args: vec!["mcp".into()],
                approved: true
            }
        );
        assert_eq!(
            install(root, Client::Codex, EXE).expect("again").files[0].1,
            Done::Unchanged
        );
        uninstall(root, Client::Codex).expect("uninstall");
        assert_eq!(
            fs::read_to_string(root.join(".codex/config.toml")).expect("read"),
            before
        );
    }

    #[test]
    fn a_broken_file_is_never_overwritten() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path();
        fs::write(root.join(".mcp.json"), "{ not json").expect("write");
        assert!(install(root, Client::Claude, EXE).is_err());
        assert_eq!(
            fs::read_to_string(root.join(".mcp.json")).expect("read"),
            "{ not json"
        );
        assert!(matches!(
            status(root, Client::Claude),
            Installed::Unreadable(_)
        ));
    }
}
