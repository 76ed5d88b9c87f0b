//! Validators for untrusted input (docs/FORMATS.md), one function per kind of
//! value: agent ids, recipient lists, message content and types, pane ids,
//! paths, numbers, hosts, lock reasons and the editor command. Each error
//! says what was wrong and what is allowed; none of them panics, whatever
//! the input.

use std::net::IpAddr;

/// Longest agent id accepted.
pub(crate) const MAX_AGENT_ID_LEN: usize = 64;

/// Longest webhook URL accepted.
pub(crate) const MAX_WEBHOOK_URL_LEN: usize = 2048;

/// Longest custom message type name.
pub(crate) const MAX_MESSAGE_TYPE_LEN: usize = 32;

/// The built-in message types (docs/FORMATS.md), as they appear on the wire.
pub(crate) use crate::domain::message::BUILTIN_TYPES as MESSAGE_TYPES;

/// Characters that make `$EDITOR` suspicious (docs/guide/reference.md, Commands): shell syntax that
/// has no business in an editor command.
const EDITOR_FORBIDDEN: &[char] = &[
    ';', '&', '|', '`', '$', '<', '>', '(', ')', '{', '}', '[', ']', '\\', '\'', '"', '\n', '\r',
];

/// What was wrong with a name or value: each message says what is allowed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ValidationError {
    /// An empty agent id.
    #[error("agent id cannot be empty")]
    AgentIdEmpty,
    /// An agent id over `MAX_AGENT_ID_LEN` characters.
    #[error("agent id too long ({0} characters, at most {MAX_AGENT_ID_LEN})")]
    AgentIdTooLong(usize),
    /// An agent id with a character outside `A-Z a-z 0-9 _ -`.
    #[error(
        "agent id {0:?} contains invalid characters (only letters, digits, `-` and `_` are allowed)"
    )]
    AgentIdChars(String),
    /// An agent id starting or ending with `-`.
    #[error("agent id {0:?} cannot start or end with `-`")]
    AgentIdEdge(String),
    /// Not a tmux pane id.
    #[error("invalid tmux pane id {0:?}: expected % followed by a number, e.g. %0 or %12")]
    PaneId(String),
    /// A message type that is neither built in nor configured.
    #[error("invalid message type {input:?}; valid types: {valid} (case-insensitive, `-` or `_`)")]
    MessageType {
        /// What was given.
        input: String,
        /// Every valid type, comma-separated.
        valid: String,
    },
    /// An empty custom type name.
    #[error("a message type name cannot be empty")]
    TypeNameEmpty,
    /// A custom type name over `MAX_MESSAGE_TYPE_LEN` characters.
    #[error("message type {name:?} is too long ({len} characters, at most {MAX_MESSAGE_TYPE_LEN})")]
    TypeNameTooLong {
        /// The name.
        name: String,
        /// Its length in characters.
        len: usize,
    },
    /// A custom type name with a character outside `A-Z 0-9 -`.
    #[error(
        "message type {0:?} may only use upper-case letters A-Z, digits and `-` (e.g. DEPLOY-DONE)"
    )]
    TypeNameChars(String),
    /// A custom type name starting or ending with `-`.
    #[error("message type {0:?} cannot start or end with `-`")]
    TypeNameEdge(String),
    /// A custom type name that is a built-in type.
    #[error("message type {0} is built in already (the built-in types are {types})", types = MESSAGE_TYPES.join(", "))]
    TypeNameBuiltin(String),
    /// An empty host.
    #[error("the host is empty (use e.g. localhost or 127.0.0.1)")]
    HostEmpty,
    /// Neither an IP address nor a valid host name.
    #[error(
        "invalid host {0:?}: use an IP address or a host name (labels of letters, digits \
         and `-`, at most 63 characters each, 253 in all)"
    )]
    Host(String),
    /// `$EDITOR` with shell syntax in it.
    #[error(
        "$EDITOR contains {0:?}, which is shell syntax; give a program name or path and \
         plain options only (e.g. `vim` or `code --wait`)"
    )]
    EditorShellSyntax(char),
    /// An empty `$EDITOR`.
    #[error("$EDITOR is empty")]
    EditorEmpty,
    /// A blank message body.
    #[error("message content cannot be empty")]
    ContentEmpty,
    /// A body made only of control characters and escape sequences.
    #[error("message content is empty once control characters are removed")]
    ContentOnlyControls,
    /// A store URL swarm cannot use.
    #[error(
        "invalid store URL {0}: use redis://host[:port][/db], rediss://host[:port] (TLS) or unix:///path/to/redis.sock"
    )]
    StoreUrl(String),
    /// A swarm or host name swarm cannot use in its keys.
    #[error(
        "invalid name {0:?}: use 1-64 letters, digits, `.`, `_` and `-`, starting with a letter or digit"
    )]
    StoreName(String),
    /// A webhook URL swarm cannot post to; it holds the URL as
    /// `redact_secret_url` shows it.
    #[error(
        "invalid webhook URL {0}: use http:// or https:// followed by a host and an optional path, \
         at most {MAX_WEBHOOK_URL_LEN} characters, no spaces"
    )]
    WebhookUrl(String),
    /// A body over the size limit.
    #[error("message content too long ({0} bytes, at most {max})", max = crate::domain::message::MAX_CONTENT_BYTES)]
    ContentTooLong(usize),
}

/// Checks an agent id: 1-64 characters of `A-Z a-z 0-9 _ -`, not starting
/// or ending with `-`. Surrounding whitespace is stripped first (parity).
/// Returns the stripped id.
pub fn agent_id(raw: &str) -> Result<String, ValidationError> {
    let id = raw.trim();
    if id.is_empty() {
        return Err(ValidationError::AgentIdEmpty);
    }
    let len = id.chars().count();
    if len > MAX_AGENT_ID_LEN {
        return Err(ValidationError::AgentIdTooLong(len));
    }
    if !id
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    {
        return Err(ValidationError::AgentIdChars(id.to_owned()));
    }
    if id.starts_with('-') || id.ends_with('-') {
        return Err(ValidationError::AgentIdEdge(id.to_owned()));
    }
    Ok(id.to_owned())
}

/// Parses `agent-N` into N (for the id high-water mark).
pub fn agent_number(id: &str) -> Option<u64> {
    let digits = id.strip_prefix("agent-")?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// Checks the name of a custom message type (config
/// `messaging.custom_types`): 1-32 characters of `A-Z`, `0-9` and `-`, not
/// starting or ending with `-`, and not one of the built-in types.
pub(crate) fn message_type_name(raw: &str) -> Result<String, ValidationError> {
    let name = raw.trim();
    if name.is_empty() {
        return Err(ValidationError::TypeNameEmpty);
    }
    let len = name.chars().count();
    if len > MAX_MESSAGE_TYPE_LEN {
        return Err(ValidationError::TypeNameTooLong {
            name: name.to_owned(),
            len,
        });
    }
    if !name
        .bytes()
        .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'-')
    {
        return Err(ValidationError::TypeNameChars(name.to_owned()));
    }
    if name.starts_with('-') || name.ends_with('-') {
        return Err(ValidationError::TypeNameEdge(name.to_owned()));
    }
    if MESSAGE_TYPES.contains(&name) {
        return Err(ValidationError::TypeNameBuiltin(name.to_owned()));
    }
    Ok(name.to_owned())
}

/// A host name or IP address that passed `host`, with a warning to show
/// when binding to it exposes a service beyond this machine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Host {
    /// The host, surrounding whitespace removed.
    pub name: String,
    /// Set for all-interfaces and public addresses.
    pub warning: Option<String>,
}

/// Checks a host (docs/FORMATS.md): an IP address, or an RFC 1123 host name (at
/// most 253 characters, labels of 1-63 letters, digits and `-`, not
/// starting or ending with `-`).
pub fn host(raw: &str) -> Result<Host, ValidationError> {
    let name = raw.trim();
    if name.is_empty() {
        return Err(ValidationError::HostEmpty);
    }
    if let Ok(ip) = name.parse::<IpAddr>() {
        let warning = if ip.is_unspecified() {
            Some(format!(
                "binding to {name} exposes the service on every network interface; \
                 use 127.0.0.1 or localhost for local-only access"
            ))
        } else if is_public(ip) {
            Some(format!(
                "{name} is a public address; make sure a firewall protects it"
            ))
        } else {
            None
        };
        return Ok(Host {
            name: name.to_owned(),
            warning,
        });
    }
    let bare = name.strip_suffix('.').unwrap_or(name);
    let valid_label = |l: &str| {
        (1..=63).contains(&l.len())
            && l.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
            && !l.starts_with('-')
            && !l.ends_with('-')
    };
    if bare.is_empty() || bare.len() > 253 || !bare.split('.').all(valid_label) {
        return Err(ValidationError::Host(name.to_owned()));
    }
    Ok(Host {
        name: name.to_owned(),
        warning: None,
    })
}

fn is_public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => {
            let o = v4.octets();
            !(v4.is_private()
                || v4.is_loopback()
                || v4.is_link_local()
                || v4.is_broadcast()
                || v4.is_documentation()
                || v4.is_unspecified()
                || o[0] == 0
                // 100.64.0.0/10, carrier-grade NAT.
                || (o[0] == 100 && (64..128).contains(&o[1]))
                || o[0] >= 224)
        }
        IpAddr::V6(v6) => {
            if let Some(v4) = v6.to_ipv4_mapped() {
                return is_public(IpAddr::V4(v4));
            }
            let s = v6.segments();
            !(v6.is_loopback()
                || v6.is_unspecified()
                || v6.is_multicast()
                // fc00::/7 unique local, fe80::/10 link local, 2001:db8::/32
                // documentation.
                || (s[0] & 0xfe00) == 0xfc00
                || (s[0] & 0xffc0) == 0xfe80
                || (s[0] == 0x2001 && s[1] == 0x0db8))
        }
    }
}

/// Longest swarm or host name.
pub(crate) const MAX_STORE_NAME_LEN: usize = 64;

/// Checks a store server URL: `redis://`, `rediss://` or `unix://` with
/// something after it. The error never repeats a password: it shows the
/// URL with its credentials replaced.
pub(crate) fn store_url(raw: &str) -> Result<String, ValidationError> {
    let url = raw.trim();
    let ok = ["redis://", "rediss://", "unix://", "redis+unix://"]
        .iter()
        .any(|scheme| url.len() > scheme.len() && url.starts_with(scheme))
        && !url.chars().any(|c| c.is_control() || c.is_whitespace());
    if ok {
        Ok(url.to_owned())
    } else {
        Err(ValidationError::StoreUrl(format!("{:?}", redact_url(url))))
    }
}

/// The URL with any `user:password@` replaced by `***@`, for display.
pub fn redact_url(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return if url.contains('@') {
            "***".into()
        } else {
            url.to_owned()
        };
    };
    let authority_end = rest.find('/').unwrap_or(rest.len());
    match rest[..authority_end].rfind('@') {
        Some(at) => format!("{scheme}://***@{}", &rest[at + 1..]),
        None => url.to_owned(),
    }
}

/// Checks a webhook URL: `http://` or `https://` (any case), a host, then
/// an optional path and query; no whitespace or control characters.
/// Returns it trimmed. The error shows it as `redact_secret_url` does,
/// since the path of a webhook is often its only secret.
pub(crate) fn webhook_url(raw: &str) -> Result<String, ValidationError> {
    let url = raw.trim();
    let bad = || ValidationError::WebhookUrl(format!("{:?}", redact_secret_url(url)));
    let Some((scheme, rest)) = url.split_once("://") else {
        return Err(bad());
    };
    let ok = (scheme.eq_ignore_ascii_case("http") || scheme.eq_ignore_ascii_case("https"))
        && !url_host(url).is_empty()
        && !rest.starts_with(['/', '?', '#', '@'])
        && url.len() <= MAX_WEBHOOK_URL_LEN
        && !url.chars().any(|c| c.is_control() || c.is_whitespace());
    if ok { Ok(url.to_owned()) } else { Err(bad()) }
}

/// A secret URL as it may be shown (in `config show`, an error, a failed
/// delivery): its scheme and host only, `https://ntfy.sh/…`. The path,
/// query and fragment are dropped (for a webhook they are the secret),
/// and so is any `user:password@` (shown as `***@`). Unlike
/// `redact_url`, which keeps a store URL's path: there it names a
/// database or a socket, never a secret.
pub(crate) fn redact_secret_url(url: &str) -> String {
    let url = url.trim();
    let Some((scheme, rest)) = url.split_once("://") else {
        return "…".into();
    };
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, after) = rest.split_at(end);
    let (userinfo, host) = match authority.rfind('@') {
        Some(at) => ("***@", &authority[at + 1..]),
        None => ("", authority),
    };
    let tail = match after {
        "" => "",
        "/" => "/",
        _ => "/…",
    };
    format!("{scheme}://{userinfo}{host}{tail}")
}

/// The host of a URL, with its port when it has one (`ntfy.sh`,
/// `127.0.0.1:8080`), without any `user:password@`; empty when there is
/// none. What a failed delivery names, never the whole URL.
pub(crate) fn url_host(url: &str) -> &str {
    let rest = url.trim().split_once("://").map_or("", |(_, r)| r);
    let authority = &rest[..rest.find(['/', '?', '#']).unwrap_or(rest.len())];
    authority
        .rfind('@')
        .map_or(authority, |at| &authority[at + 1..])
}

/// Checks a swarm or host name: it becomes part of every key and of
/// consumer group names, so 1-64 of `A-Z a-z 0-9 . _ -`, starting with a
/// letter or digit.
pub(crate) fn store_name(raw: &str) -> Result<String, ValidationError> {
    let name = raw.trim();
    let ok = !name.is_empty()
        && name.chars().count() <= MAX_STORE_NAME_LEN
        && name.starts_with(|c: char| c.is_ascii_alphanumeric())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'));
    if ok {
        Ok(name.to_owned())
    } else {
        Err(ValidationError::StoreName(name.to_owned()))
    }
}

/// Checks `$EDITOR` (docs/guide/reference.md, Commands) and splits it into a program and its
/// options (`code --wait`). It must contain no shell syntax: swarm runs
/// the program directly, never through a shell.
pub fn editor_command(raw: &str) -> Result<Vec<String>, ValidationError> {
    if let Some(c) = raw.chars().find(|c| EDITOR_FORBIDDEN.contains(c)) {
        return Err(ValidationError::EditorShellSyntax(c));
    }
    let words: Vec<String> = raw.split_whitespace().map(str::to_owned).collect();
    if words.is_empty() {
        return Err(ValidationError::EditorEmpty);
    }
    Ok(words)
}

#[cfg(test)]
mod store_tests {
    use super::*;

    #[test]
    fn store_urls() {
        for good in [
            "redis://127.0.0.1:6379",
            "rediss://cache.example:6380/2",
            "unix:///run/redis.sock",
            "redis://:secret@host",
        ] {
            assert!(store_url(good).is_ok(), "{good}");
        }
        for bad in ["", "http://x", "redis://", "127.0.0.1:6379", "redis://a b"] {
            assert!(store_url(bad).is_err(), "{bad:?}");
        }
        let e = store_url("http://user:hunter2@host").expect_err("bad scheme");
        assert!(!e.to_string().contains("hunter2"), "{e}");
        assert_eq!(redact_url("redis://u:p@h:1/0"), "redis://***@h:1/0");
        assert_eq!(redact_url("redis://h:1"), "redis://h:1");
    }

    #[test]
    fn webhook_urls() {
        for good in [
            "https://ntfy.sh/my-topic",
            "http://127.0.0.1:8080/topic",
            "HTTPS://hooks.slack.com/services/T0/B0/XYZ",
            "https://user:pw@example.com",
            "  https://example.com/a?b=c  ",
        ] {
            assert!(webhook_url(good).is_ok(), "{good}");
        }
        for bad in [
            "",
            "ntfy.sh/topic",
            "ftp://example.com/x",
            "https://",
            "https:///path",
            "https://a b/c",
            "https://h/\u{7}",
        ] {
            assert!(webhook_url(bad).is_err(), "{bad:?}");
        }
        let long = format!("https://h/{}", "x".repeat(MAX_WEBHOOK_URL_LEN));
        assert!(webhook_url(&long).is_err());
        let e = webhook_url("ftp://u:hunter2@host/secret-topic").expect_err("bad scheme");
        assert!(!e.to_string().contains("hunter2"), "{e}");
        assert!(!e.to_string().contains("secret-topic"), "{e}");
        assert!(e.to_string().contains("ftp://***@host/…"), "{e}");
    }

    #[test]
    fn secret_urls_show_their_scheme_and_host_only() {
        for (url, shown) in [
            ("https://ntfy.sh/my-secret-topic", "https://ntfy.sh/…"),
            ("https://ntfy.sh", "https://ntfy.sh"),
            ("https://ntfy.sh/", "https://ntfy.sh/"),
            ("https://h.example?token=abc", "https://h.example/…"),
            (
                "https://u:pw@h.example:8443/x",
                "https://***@h.example:8443/…",
            ),
            ("https://u@h/x#frag", "https://***@h/…"),
            ("not a url", "…"),
            ("", "…"),
        ] {
            assert_eq!(redact_secret_url(url), shown, "{url}");
        }
        assert_eq!(url_host("https://u:pw@ntfy.sh:443/t?x"), "ntfy.sh:443");
        assert_eq!(url_host("http://127.0.0.1:9/t"), "127.0.0.1:9");
        assert_eq!(url_host("nothing"), "");
    }

    #[test]
    fn store_names() {
        for good in ["proj", "my-project.2", "host_1"] {
            assert!(store_name(good).is_ok(), "{good}");
        }
        for bad in ["", "-x", ".x", "a b", "a{b}", "a:b", &"x".repeat(65)] {
            assert!(store_name(bad).is_err(), "{bad:?}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn accepts_valid_ids() {
        for id in ["agent-0", "a", "_x", "A_b-9", &"x".repeat(64)] {
            assert_eq!(agent_id(id).as_deref(), Ok(id));
        }
        assert_eq!(agent_id("  agent-1 \n").as_deref(), Ok("agent-1"));
    }

    #[test]
    fn rejects_invalid_ids_with_reasons() {
        let err = |s: &str| agent_id(s).expect_err(s).to_string();
        assert!(err("").contains("empty"));
        assert!(err("   ").contains("empty"));
        assert!(err(&"x".repeat(65)).contains("too long"));
        assert!(err("a;b").contains("invalid characters"));
        assert!(err("#{pane_id}").contains("invalid characters"));
        assert!(err("%1").contains("invalid characters"));
        assert!(err("agent 1").contains("invalid characters"));
        assert!(err("agént").contains("invalid characters"));
        assert!(err("-a").contains("start or end"));
        assert!(err("a-").contains("start or end"));
    }

    #[test]
    fn agent_numbers() {
        assert_eq!(agent_number("agent-0"), Some(0));
        assert_eq!(agent_number("agent-17"), Some(17));
        for bad in [
            "agent-",
            "agent-x",
            "agent--1",
            "agent-+1",
            "bob",
            "agent-99999999999999999999999",
        ] {
            assert_eq!(agent_number(bad), None, "{bad}");
        }
    }

    #[test]
    fn message_type_names() {
        assert_eq!(message_type_name(" DEPLOY-DONE "), Ok("DEPLOY-DONE".into()));
        assert_eq!(message_type_name("V2"), Ok("V2".into()));
        for (bad, why) in [
            ("", "empty"),
            ("deploy", "upper-case"),
            ("DEPLOY_DONE", "upper-case"),
            ("-X", "start or end"),
            ("INFO", "built in"),
            ("REVIEW-REQUEST", "built in"),
            (&"X".repeat(33), "too long"),
        ] {
            let e = message_type_name(bad).expect_err(bad).to_string();
            assert!(e.contains(why), "{bad:?}: {e}");
        }
    }

    #[test]
    fn hosts() {
        assert_eq!(host(" localhost ").map(|h| h.name), Ok("localhost".into()));
        assert_eq!(host("127.0.0.1").map(|h| h.warning), Ok(None));
        assert_eq!(host("example.com.").map(|h| h.warning), Ok(None));
        assert!(
            host("0.0.0.0")
                .expect("any")
                .warning
                .is_some_and(|w| w.contains("every network interface"))
        );
        assert!(host("::").expect("any").warning.is_some());
        assert!(
            host("8.8.8.8")
                .expect("public")
                .warning
                .is_some_and(|w| w.contains("public"))
        );
        assert_eq!(host("192.168.1.2").map(|h| h.warning), Ok(None));
        assert_eq!(host("fd00::1").map(|h| h.warning), Ok(None));
        for bad in [
            "",
            "a..b",
            "-a.com",
            "a-.com",
            "a_b",
            "a b",
            &"a".repeat(64),
            "host:80",
        ] {
            assert!(host(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn editor_commands() {
        assert_eq!(editor_command("vim"), Ok(vec!["vim".to_string()]));
        assert_eq!(
            editor_command(" code  --wait "),
            Ok(vec!["code".to_string(), "--wait".to_string()])
        );
        assert_eq!(
            editor_command("/usr/bin/nano"),
            Ok(vec!["/usr/bin/nano".to_string()])
        );
        for bad in [
            "",
            "  ",
            "vim; rm -rf ~",
            "$(evil)",
            "vi|x",
            "a\nb",
            "'vim'",
        ] {
            assert!(editor_command(bad).is_err(), "{bad:?}");
        }
    }

    proptest! {
        #[test]
        fn no_validator_panics(s in "\\PC*", bytes in proptest::collection::vec(any::<u8>(), 0..64)) {
            let raw = String::from_utf8_lossy(&bytes).into_owned();
            for input in [s.as_str(), raw.as_str()] {
                let _ = agent_id(input);
                let _ = host(input);
                let _ = editor_command(input);
                if let Ok(name) = message_type_name(input) {
                    prop_assert!(!MESSAGE_TYPES.contains(&name.as_str()));
                    prop_assert!(name.bytes().all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'-'));
                }
            }
        }

        #[test]
        fn never_panics_and_accepted_ids_are_clean(s in "\\PC*") {
            if let Ok(id) = agent_id(&s) {
                prop_assert!(!id.is_empty() && id.len() <= 64);
                prop_assert!(id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'));
            }
        }
    }
}
