//! Which login an agent runs with, so that agents sharing one hit its
//! usage limit together: the API key or token in its environment (as a
//! fingerprint: a hash, never the key), else the vendor's configuration
//! directory (where a signed-in agent keeps its login).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// One login, as far as usage limits go.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Credential {
    /// Its identity: the vendor and a fingerprint
    /// (`claude:key:3f2a9c1b0d4e`, `codex:dir:...`).
    pub id: String,
    /// The same for people: which variable's key, or which directory.
    pub label: String,
}

/// The variables that hold a vendor's key or token, in the order the
/// agent prefers them, and its configuration directory: the variable that
/// moves it and where it is under `HOME` otherwise.
struct CredentialSource {
    keys: &'static [&'static str],
    dir_var: Option<&'static str>,
    home_dir: &'static str,
}

fn credential_source(profile: &str) -> CredentialSource {
    match profile {
        "claude" => CredentialSource {
            keys: &[
                "ANTHROPIC_API_KEY",
                "ANTHROPIC_AUTH_TOKEN",
                "CLAUDE_CODE_OAUTH_TOKEN",
            ],
            dir_var: Some("CLAUDE_CONFIG_DIR"),
            home_dir: ".claude",
        },
        "codex" => CredentialSource {
            keys: &["CODEX_API_KEY", "OPENAI_API_KEY"],
            dir_var: Some("CODEX_HOME"),
            home_dir: ".codex",
        },
        "gemini" => CredentialSource {
            keys: &["GEMINI_API_KEY", "GOOGLE_API_KEY"],
            dir_var: None,
            home_dir: ".gemini",
        },
        _ => CredentialSource {
            keys: &[],
            dir_var: None,
            home_dir: ".",
        },
    }
}

fn fingerprint(kind: &str, value: &[u8]) -> String {
    let mut h = Sha256::new();
    h.update(kind.as_bytes());
    h.update([0]);
    h.update(value);
    h.finalize()[..6]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The login of an agent of `profile` running with `env`; `None` when
/// the environment names neither a key nor a home.
pub fn credential_of(profile: &str, env: &[(String, String)]) -> Option<Credential> {
    let get = |name: &str| {
        env.iter()
            .find(|(k, v)| k == name && !v.is_empty())
            .map(|(_, v)| v.as_str())
    };
    let v = credential_source(profile);
    for key in v.keys {
        if let Some(value) = get(key) {
            let fp = fingerprint("key", value.as_bytes());
            return Some(Credential {
                id: format!("{profile}:key:{fp}"),
                label: format!("{key} (fingerprint {fp})"),
            });
        }
    }
    let dir: PathBuf = match v.dir_var.and_then(get) {
        Some(d) => PathBuf::from(d),
        None => Path::new(get("HOME")?).join(v.home_dir),
    };
    let shown = dir.to_string_lossy();
    let fp = fingerprint("dir", shown.as_bytes());
    // A vendor swarm knows no configuration directory of: the login is
    // the home the agent runs in, named as such (not as a directory `.`
    // inside it).
    let label = match (v.dir_var, v.home_dir) {
        (None, ".") => format!(
            "the login of home {}",
            crate::support::sanitize::one_line(get("HOME")?)
        ),
        _ => format!(
            "{} (its configuration)",
            crate::support::sanitize::one_line(&shown)
        ),
    };
    Some(Credential {
        id: format!("{profile}:dir:{fp}"),
        label,
    })
}

/// The login of the agent of `profile` in the pane whose root process is
/// `pane_pid`: read from the environment of the program in the pane's
/// foreground (the agent), else of the pane's root process. `None` where
/// processes' environments cannot be read.
pub(crate) fn of_pane(profile: &str, pane_pid: u32) -> Option<Credential> {
    use crate::agents::process::{ProcessView, Processes};
    if pane_pid == 0 {
        return None;
    }
    let survey = Processes::default().survey().ok()?;
    let front = survey
        .info(pane_pid)
        .and_then(|i| i.tpgid)
        .filter(|&p| p != 0);
    let env = front
        .and_then(|p| survey.environment(p))
        .or_else(|| survey.environment(pane_pid))?;
    credential_of(profile, &env)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    #[test]
    fn one_key_is_one_login_and_the_key_never_shows() {
        let a = credential_of(
            "claude",
            &env(&[("HOME", "/h/a"), ("ANTHROPIC_API_KEY", "sk-secret-1")]),
        )
        .expect("a login");
        let b = credential_of(
            "claude",
            &env(&[("HOME", "/h/b"), ("ANTHROPIC_API_KEY", "sk-secret-1")]),
        )
        .expect("a login");
        assert_eq!(a, b);
        assert!(!a.id.contains("secret") && !a.label.contains("secret"));
        let c = credential_of(
            "claude",
            &env(&[("HOME", "/h/a"), ("ANTHROPIC_API_KEY", "sk-secret-2")]),
        )
        .expect("a login");
        assert_ne!(a.id, c.id);
        // Another vendor's key is another login.
        let d = credential_of(
            "codex",
            &env(&[("HOME", "/h/a"), ("OPENAI_API_KEY", "sk-secret-1")]),
        )
        .expect("a login");
        assert_ne!(a.id, d.id);
    }

    #[test]
    fn without_a_key_the_home_decides() {
        let a = credential_of("gemini", &env(&[("HOME", "/h/a")])).expect("a login");
        let b = credential_of("gemini", &env(&[("HOME", "/h/a")])).expect("a login");
        let c = credential_of("gemini", &env(&[("HOME", "/h/c")])).expect("a login");
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert!(a.label.starts_with("/h/a/.gemini"));
        let moved = credential_of(
            "codex",
            &env(&[("HOME", "/h/a"), ("CODEX_HOME", "/elsewhere")]),
        )
        .expect("a login");
        assert!(moved.label.starts_with("/elsewhere"));
        assert_eq!(credential_of("claude", &env(&[("PATH", "/bin")])), None);
    }

    #[test]
    fn a_vendor_without_a_known_directory_is_named_by_its_home() {
        let a = credential_of("demo", &env(&[("HOME", "/h/a")])).expect("a login");
        assert_eq!(a.label, "the login of home /h/a");
        assert!(!a.label.contains("/."), "{}", a.label);
        assert_ne!(
            a,
            credential_of("demo", &env(&[("HOME", "/h/b")])).expect("a login")
        );
    }
}
