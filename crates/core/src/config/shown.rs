//! The config as people see it (`config show`, `--json`): the store URL's
//! password and every secret (`Key::is_secret`) replaced, so that showing
//! the config never leaks one.

use serde_json::Value;

use crate::domain::validate;

use super::keys::{KEYS, Kind};
use super::model::Config;

/// The config as `config show` prints it: the store URL without its
/// password, a webhook URL as its scheme and host
/// (`validate::redact_secret_url`), a command as its program
/// (`shown_command`).
pub fn shown(config: &Config) -> Value {
    let mut doc = serde_json::to_value(config).unwrap_or(Value::Null);
    if let Some(url) = doc.pointer_mut("/store/url")
        && let Some(text) = url.as_str()
    {
        *url = Value::String(validate::redact_url(text));
    }
    for key in KEYS.iter().filter(|k| k.is_secret()) {
        let Some(value) = doc.pointer_mut(&format!("/{}/{}", key.section, key.name)) else {
            continue;
        };
        let Some(text) = value.as_str() else {
            continue;
        };
        let redacted = match key.kind {
            Kind::SecretUrl => validate::redact_secret_url(text),
            _ => shown_command(text),
        };
        *value = Value::String(redacted);
    }
    doc
}

/// A command as it may be shown: its first word (the program) and `…`
/// for the rest, which may hold a token or a URL.
pub fn shown_command(command: &str) -> String {
    let mut words = command.split_whitespace();
    match (words.next(), words.next()) {
        (Some(program), None) => program.to_owned(),
        (Some(program), Some(_)) => format!("{program} …"),
        (None, _) => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_are_shown_redacted() {
        let mut c = Config::default();
        c.notify.webhook = Some("https://u:pw@ntfy.sh/my-secret-topic".into());
        c.notify.command = Some("curl -H 'Authorization: Bearer t0ken' https://x/y".into());
        c.store.url = Some("redis://:hunter2@cache:6379/0".into());
        let doc = shown(&c);
        let text = doc.to_string();
        for secret in ["pw@", "my-secret-topic", "t0ken", "hunter2", "x/y"] {
            assert!(!text.contains(secret), "{secret} in {text}");
        }
        assert_eq!(doc["notify"]["webhook"], "https://***@ntfy.sh/…");
        assert_eq!(doc["notify"]["command"], "curl …");
        assert_eq!(doc["store"]["url"], "redis://***@cache:6379/0");
        assert_eq!(doc["notify"]["tmux"], true);
        assert_eq!(shown(&Config::default())["notify"]["webhook"], Value::Null);
        assert_eq!(shown_command("notify-send"), "notify-send");
    }
}
