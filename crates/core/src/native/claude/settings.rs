//! What a Claude Code session does with a peer message, from its
//! `crossSessionInbound` setting (`accept`, `hold`, `refuse`) in its
//! settings files, and its permission mode: the managed and the user's
//! settings give the value (the managed one first), the project's
//! `.claude/settings.json` and `.claude/settings.local.json` may only make
//! it stricter. Unset, a session that bypasses permissions
//! (`--dangerously-skip-permissions`, `bypassPermissions`) holds a message
//! from a sender that asserts no permission mode, as swarm's do, for the
//! person's approval. swarm reads these files; it never changes them.

use std::io::Read;
use std::path::{Path, PathBuf};

use serde_json::Value;

/// The most of one settings file read.
const MAX_SETTINGS_BYTES: u64 = 1 << 20;

/// What a session does with a peer message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Inbound {
    /// Takes it as a turn's input.
    Accept,
    /// Holds it for the person's approval (it expires unapproved).
    Hold,
    /// Turns it away.
    Refuse,
}

impl Inbound {
    fn parse(text: &str) -> Option<Inbound> {
        match text {
            "accept" => Some(Inbound::Accept),
            "hold" => Some(Inbound::Hold),
            "refuse" => Some(Inbound::Refuse),
            _ => None,
        }
    }
}

/// The managed settings files, by system.
fn managed() -> PathBuf {
    if cfg!(target_os = "macos") {
        PathBuf::from("/Library/Application Support/ClaudeCode/managed-settings.json")
    } else {
        PathBuf::from("/etc/claude-code/managed-settings.json")
    }
}

/// A settings file as JSON; `None` when it is missing, too large or not
/// JSON (Claude Code then ignores it too).
fn load(path: &Path) -> Option<Value> {
    let mut text = String::new();
    std::fs::File::open(path)
        .ok()?
        .take(MAX_SETTINGS_BYTES)
        .read_to_string(&mut text)
        .ok()?;
    serde_json::from_str(&text).ok()
}

/// What the session of config dir `dir`, started in `cwd` with `argv`,
/// does with swarm's messages.
pub(crate) fn inbound(dir: &Path, cwd: Option<&Path>, argv: &[String]) -> Inbound {
    let user = load(&dir.join("settings.json"));
    let managed = load(&managed());
    let project: Vec<Value> = cwd
        .map(|c| {
            ["settings.json", "settings.local.json"]
                .iter()
                .filter_map(|f| load(&c.join(".claude").join(f)))
                .collect()
        })
        .unwrap_or_default();
    let setting = |v: &Value| {
        v.get("crossSessionInbound")
            .and_then(Value::as_str)
            .map(|s| Inbound::parse(s).unwrap_or(Inbound::Hold))
    };
    let mut explicit = managed.as_ref().and_then(setting);
    if explicit.is_none() {
        explicit = user.as_ref().and_then(setting);
    }
    for p in &project {
        if let Some(s) = setting(p)
            && explicit.is_none_or(|e| s > e)
        {
            explicit = Some(s);
        }
    }
    if let Some(e) = explicit {
        return e;
    }
    let mode = |v: &Value| {
        v.get("permissions")
            .and_then(|p| p.get("defaultMode"))
            .and_then(Value::as_str)
            == Some("bypassPermissions")
    };
    let bypass = bypass_in_argv(argv)
        || user.as_ref().is_some_and(mode)
        || managed.as_ref().is_some_and(mode)
        || project.iter().any(mode);
    if bypass {
        Inbound::Hold
    } else {
        Inbound::Accept
    }
}

/// True when the command line bypasses permissions.
fn bypass_in_argv(argv: &[String]) -> bool {
    argv.iter().enumerate().any(|(i, a)| {
        a == "--dangerously-skip-permissions"
            || a == "--permission-mode=bypassPermissions"
            || (a == "--permission-mode"
                && argv.get(i + 1).is_some_and(|m| m == "bypassPermissions"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().expect("as set up")).expect("as set up");
        std::fs::write(path, text).expect("as set up");
    }

    #[test]
    fn bypass_mode_holds_unless_the_setting_accepts() {
        let home = tempfile::tempdir().expect("as set up");
        let dir = home.path().join(".claude");
        let work = home.path().join("w");
        let argv = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            inbound(&dir, Some(&work), &argv(&["claude"])),
            Inbound::Accept
        );
        let bypass = argv(&["claude", "--dangerously-skip-permissions"]);
        assert_eq!(inbound(&dir, Some(&work), &bypass), Inbound::Hold);
        let mode = argv(&["claude", "--permission-mode", "bypassPermissions"]);
        assert_eq!(inbound(&dir, Some(&work), &mode), Inbound::Hold);
        write(
            &dir.join("settings.json"),
            r#"{"crossSessionInbound":"accept"}"#,
        );
        assert_eq!(inbound(&dir, Some(&work), &bypass), Inbound::Accept);
        // A project may only make it stricter.
        write(
            &work.join(".claude/settings.local.json"),
            r#"{"crossSessionInbound":"hold"}"#,
        );
        assert_eq!(inbound(&dir, Some(&work), &bypass), Inbound::Hold);
        write(
            &dir.join("settings.json"),
            r#"{"crossSessionInbound":"refuse"}"#,
        );
        assert_eq!(inbound(&dir, Some(&work), &bypass), Inbound::Refuse);
    }

    #[test]
    fn a_bypass_default_mode_in_the_settings_holds() {
        let home = tempfile::tempdir().expect("as set up");
        let dir = home.path().join(".claude");
        write(
            &dir.join("settings.json"),
            r#"{"permissions":{"defaultMode":"bypassPermissions"}}"#,
        );
        assert_eq!(inbound(&dir, None, &[]), Inbound::Hold);
        write(
            &dir.join("settings.json"),
            r#"{"crossSessionInbound":"bogus"}"#,
        );
        assert_eq!(inbound(&dir, None, &[]), Inbound::Hold);
    }
}
