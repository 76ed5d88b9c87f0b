//! Which source tells swarm about an agent, and why: its own hooks (they
//! were seen reporting from its pane) or the screen (no hooks for its
//! program, none installed, Codex CLI's not yet trusted, or installed and
//! not yet seen). `swarm doctor` and `swarm agents --json` show it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::install::{self, Place};
use super::payload::Vendor;
use super::sightings::Sighting;
use crate::attention::event::Source;
use crate::store::Paths;

/// The source in use for one agent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InUse {
    /// Hooks or screen.
    pub source: Source,
    /// Why, for a person (with what to do, when something can be done).
    pub why: String,
}

/// Whether Codex CLI trusts the hooks of a project's `.codex/hooks.json`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CodexTrust {
    /// Every swarm hook has a trust record.
    Trusted,
    /// Some have none (`missing` of `of`).
    Untrusted {
        /// How many have none.
        missing: usize,
        /// How many swarm installed.
        of: usize,
    },
    /// Codex's own config could not be read.
    Unknown(String),
}

/// Codex CLI's config directory for a process whose environment has
/// `codex_home` and `home` (`CODEX_HOME`, else `~/.codex`).
pub fn codex_home(codex_home: Option<PathBuf>, home: Option<PathBuf>) -> Option<PathBuf> {
    codex_home.or_else(|| home.map(|h| h.join(".codex")))
}

/// Whether Codex CLI, configured in `codex_dir`, trusts the swarm hooks in
/// `hooks_file`. Codex keeps a `[hooks.state."<file>:<event>:<group>:<n>"]`
/// table with a `trusted_hash` per hook it was told to trust; swarm reads
/// whether each of its events has one (the hash itself is Codex's).
pub fn codex_trust(codex_dir: &Path, hooks_file: &Path, events: &[&str]) -> CodexTrust {
    let config = codex_dir.join("config.toml");
    let text = match std::fs::read_to_string(&config) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return CodexTrust::Unknown(format!("{}: {e}", config.display())),
    };
    let value: toml::Table = match text.parse() {
        Ok(v) => v,
        Err(e) => return CodexTrust::Unknown(format!("{}: {e}", config.display())),
    };
    let state = value
        .get("hooks")
        .and_then(|h| h.get("state"))
        .and_then(toml::Value::as_table);
    let file = std::fs::canonicalize(hooks_file).unwrap_or_else(|_| hooks_file.to_owned());
    let prefixes = [
        format!("{}:", file.display()),
        format!("{}:", hooks_file.display()),
    ];
    let trusted = |event: &str| {
        let label = snake(event);
        state.is_some_and(|s| {
            s.iter().any(|(key, v)| {
                prefixes.iter().any(|p| {
                    key.strip_prefix(p.as_str())
                        .is_some_and(|rest| rest.starts_with(&format!("{label}:")))
                }) && v.get("trusted_hash").is_some()
            })
        })
    };
    let missing = events.iter().filter(|e| !trusted(e)).count();
    if missing == 0 {
        CodexTrust::Trusted
    } else {
        CodexTrust::Untrusted {
            missing,
            of: events.len(),
        }
    }
}

/// `PermissionRequest` -> `permission_request`, as Codex labels events.
fn snake(event: &str) -> String {
    let mut out = String::new();
    for (i, c) in event.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// The facts about one agent that decide its source.
#[derive(Clone, Debug)]
pub struct Agent<'a> {
    /// Its id.
    pub id: &'a str,
    /// Its pane.
    pub pane: Option<&'a str>,
    /// Its profile's name (`claude`, `aider`, `demo`, ...).
    pub profile: &'a str,
    /// Codex CLI's config directory as the agent's process has it (its
    /// `CODEX_HOME` or `HOME`), when known.
    pub codex_dir: Option<PathBuf>,
}

/// The source in use for `agent` in the project of `paths`.
pub fn source_for(paths: &Paths, agent: &Agent<'_>, seen: &BTreeMap<String, Sighting>) -> InUse {
    let screen = |why: String| InUse {
        source: Source::Screen,
        why,
    };
    // Hooks seen reporting from its pane are in use, whatever its profile
    // (a program started through a wrapper, the demo agent in tests).
    if let Some(s) = seen.get(agent.id)
        && s.serves(agent.pane)
        && (s.turn_end.is_some() || s.prompt.is_some())
    {
        let product = Vendor::parse(&s.vendor).map_or("its", Vendor::product);
        return InUse {
            source: Source::Hook,
            why: format!(
                "{product} hooks report (last: {} at {}); dialogs are also read off the screen",
                s.event,
                crate::support::time::for_people(s.last.utc(), chrono::Utc::now())
            ),
        };
    }
    let Some(vendor) = Vendor::parse(agent.profile) else {
        return screen(if agent.profile.is_empty() {
            "no agent program is seen in its pane: its screen is read".to_owned()
        } else {
            format!(
                "{} has no hooks swarm installs: its screen is read",
                agent.profile
            )
        });
    };
    let events = install::installed_events(paths, vendor);
    let file = install::settings_path(paths.root(), vendor, Place::Shared);
    if events.is_empty() {
        return screen(format!(
            "no swarm hooks in {}: run `swarm hooks install --{vendor}`, then restart the agent",
            file.display()
        ));
    }
    if vendor == Vendor::Codex {
        let dir = agent
            .codex_dir
            .clone()
            .or_else(|| codex_home(env_dir("CODEX_HOME"), env_dir("HOME")));
        if let Some(dir) = dir {
            match codex_trust(&dir, &file, &events) {
                CodexTrust::Trusted => {}
                CodexTrust::Untrusted { .. } => {
                    return screen(
                        "Codex hooks installed but not trusted: run codex and accept them \
                         (its \"hooks need review\" screen)"
                            .into(),
                    );
                }
                CodexTrust::Unknown(why) => {
                    return screen(format!(
                        "Codex hooks installed; whether Codex trusts them is unknown ({why})"
                    ));
                }
            }
        }
    }
    screen(format!(
        "{} hooks installed in {} but not seen from this agent yet: they report once it \
         starts a turn (an agent started before they were installed needs a restart)",
        vendor.product(),
        file.display()
    ))
}

fn env_dir(name: &str) -> Option<PathBuf> {
    std::env::var_os(name)
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codex_trust_is_read_from_its_hook_state_table() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let hooks = tmp.path().join("hooks.json");
        std::fs::write(&hooks, "{}").expect("write");
        let file = std::fs::canonicalize(&hooks).expect("canonical");
        let events = ["UserPromptSubmit", "PermissionRequest", "Stop"];
        assert_eq!(
            codex_trust(tmp.path(), &hooks, &events),
            CodexTrust::Untrusted { missing: 3, of: 3 }
        );
        let mut config = String::from("model = \"x\"\n");
        for label in ["user_prompt_submit", "permission_request"] {
            config.push_str(&format!(
                "[hooks.state.\"{}:{label}:0:0\"]\ntrusted_hash = \"sha256:00\"\n",
                file.display()
            ));
        }
        std::fs::write(tmp.path().join("config.toml"), &config).expect("write");
        assert_eq!(
            codex_trust(tmp.path(), &hooks, &events),
            CodexTrust::Untrusted { missing: 1, of: 3 }
        );
        config.push_str(&format!(
            "[hooks.state.\"{}:stop:0:0\"]\ntrusted_hash = \"sha256:01\"\n",
            file.display()
        ));
        std::fs::write(tmp.path().join("config.toml"), &config).expect("write");
        assert_eq!(
            codex_trust(tmp.path(), &hooks, &events),
            CodexTrust::Trusted
        );
        std::fs::write(tmp.path().join("config.toml"), "not = [toml").expect("write");
        assert!(matches!(
            codex_trust(tmp.path(), &hooks, &events),
            CodexTrust::Unknown(_)
        ));
    }

    #[test]
    fn an_agent_without_hooks_uses_the_screen_and_says_why() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let paths = Paths::new(tmp.path());
        let seen = BTreeMap::new();
        let agent = |profile| Agent {
            id: "agent-1",
            pane: Some("%1"),
            profile,
            codex_dir: Some(tmp.path().to_owned()),
        };
        let demo = source_for(&paths, &agent("demo"), &seen);
        assert_eq!(demo.source, Source::Screen);
        assert!(demo.why.contains("no hooks swarm installs"), "{}", demo.why);
        let claude = source_for(&paths, &agent("claude"), &seen);
        assert!(
            claude.why.contains("swarm hooks install --claude"),
            "{}",
            claude.why
        );
        let hooks = install::swarm_hooks("swarm", Vendor::Codex);
        install::install(&paths, Vendor::Codex, Place::Shared, &hooks).expect("install");
        let codex = source_for(&paths, &agent("codex"), &seen);
        assert!(
            codex.why.contains("not trusted: run codex"),
            "{}",
            codex.why
        );
    }
}
