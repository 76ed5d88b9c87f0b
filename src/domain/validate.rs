//! Validators for untrusted input (spec 13), one function per kind of
//! value: agent ids, recipient lists, message content and types, pane ids,
//! paths, numbers, hosts, lock reasons and the editor command. Each error
//! says what was wrong and what is allowed; none of them panics, whatever
//! the input.

use std::net::IpAddr;

use crate::tmux::PaneId;

/// Longest agent id accepted.
pub const MAX_AGENT_ID_LEN: usize = 64;

/// Largest message body, in UTF-8 bytes (parity: 10 240).
pub const MAX_MESSAGE_BYTES: usize = 10_240;

/// Most recipients one message may name.
pub const MAX_RECIPIENTS: usize = 100;

/// Longest lock reason, in characters (parity: 512).
pub const MAX_LOCK_REASON_CHARS: usize = 512;

/// Longest file path accepted, in bytes (Linux `PATH_MAX`).
pub const MAX_PATH_BYTES: usize = 4096;

/// Longest custom message type name.
pub const MAX_MESSAGE_TYPE_LEN: usize = 32;

/// The built-in message types (spec 7.1), as they appear on the wire.
pub use crate::domain::message::BUILTIN_TYPES as MESSAGE_TYPES;

/// Characters that make `$EDITOR` suspicious (spec 4.17): shell syntax that
/// has no business in an editor command.
const EDITOR_FORBIDDEN: &[char] = &[
    ';', '&', '|', '`', '$', '<', '>', '(', ')', '{', '}', '[', ']', '\\', '\'', '"', '\n', '\r',
];

/// Checks an agent id: 1-64 characters of `A-Z a-z 0-9 _ -`, not starting
/// or ending with `-`. Surrounding whitespace is stripped first (parity).
/// Returns the stripped id.
pub fn agent_id(raw: &str) -> Result<String, String> {
    let id = raw.trim();
    if id.is_empty() {
        return Err("agent id cannot be empty".into());
    }
    let len = id.chars().count();
    if len > MAX_AGENT_ID_LEN {
        return Err(format!(
            "agent id too long ({len} characters, at most {MAX_AGENT_ID_LEN})"
        ));
    }
    if !id
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    {
        return Err(format!(
            "agent id {:?} contains invalid characters (only letters, digits, `-` and `_` are allowed)",
            id
        ));
    }
    if id.starts_with('-') || id.ends_with('-') {
        return Err(format!("agent id {id:?} cannot start or end with `-`"));
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

/// Checks a recipient list (spec 13.6): at least one, at most
/// `MAX_RECIPIENTS`, each a valid agent id, none twice. Returns the
/// stripped ids in order.
pub fn recipients(ids: &[String]) -> Result<Vec<String>, String> {
    if ids.is_empty() {
        return Err("the recipient list is empty (name at least one agent)".into());
    }
    if ids.len() > MAX_RECIPIENTS {
        return Err(format!(
            "too many recipients ({}, at most {MAX_RECIPIENTS})",
            ids.len()
        ));
    }
    let mut out: Vec<String> = Vec::with_capacity(ids.len());
    for (i, raw) in ids.iter().enumerate() {
        let id = agent_id(raw).map_err(|e| format!("recipient {}: {e}", i + 1))?;
        if out.contains(&id) {
            return Err(format!("recipient {}: {id:?} is named twice", i + 1));
        }
        out.push(id);
    }
    Ok(out)
}

/// Checks a message body (spec 13.2): not blank, at most
/// `MAX_MESSAGE_BYTES` UTF-8 bytes. Returns it unchanged (sanitising is
/// `sanitize::message`'s job).
pub fn message_content(content: &str) -> Result<&str, String> {
    if content.trim().is_empty() {
        return Err("the message is empty (it needs some text)".into());
    }
    if content.len() > MAX_MESSAGE_BYTES {
        return Err(format!(
            "the message is too long ({} bytes, at most {MAX_MESSAGE_BYTES})",
            content.len()
        ));
    }
    Ok(content)
}

/// Checks the name of a custom message type (config
/// `messaging.custom_types`): 1-32 characters of `A-Z`, `0-9` and `-`, not
/// starting or ending with `-`, and not one of the built-in types.
pub fn message_type_name(raw: &str) -> Result<String, String> {
    let name = raw.trim();
    if name.is_empty() {
        return Err("a message type name cannot be empty".into());
    }
    let len = name.chars().count();
    if len > MAX_MESSAGE_TYPE_LEN {
        return Err(format!(
            "message type {:?} is too long ({len} characters, at most {MAX_MESSAGE_TYPE_LEN})",
            name
        ));
    }
    if !name
        .bytes()
        .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'-')
    {
        return Err(format!(
            "message type {name:?} may only use upper-case letters A-Z, digits and `-` (e.g. DEPLOY-DONE)"
        ));
    }
    if name.starts_with('-') || name.ends_with('-') {
        return Err(format!(
            "message type {name:?} cannot start or end with `-`"
        ));
    }
    if MESSAGE_TYPES.contains(&name) {
        return Err(format!(
            "message type {name} is built in already (the built-in types are {})",
            MESSAGE_TYPES.join(", ")
        ));
    }
    Ok(name.to_owned())
}

/// Checks a tmux pane id (spec 13.4): exactly `%` and ASCII digits.
pub fn pane_id(raw: &str) -> Result<PaneId, String> {
    raw.parse()
}

/// Checks the text of a file path given on the command line (spec 13.5,
/// the checks that need no project root): not blank, no NUL or other
/// control characters, at most `MAX_PATH_BYTES`. A backslash is taken as a
/// Windows separator and becomes `/`, except in `..\` patterns, which are
/// refused. Whether the path stays inside the project is the caller's
/// check, which knows the root.
pub fn path_text(raw: &str) -> Result<String, String> {
    if raw.trim().is_empty() {
        return Err("the file path is empty".into());
    }
    if raw.contains('\0') {
        return Err(format!("the file path {raw:?} contains a NUL byte"));
    }
    if raw.chars().any(char::is_control) {
        return Err(format!(
            "the file path {raw:?} contains control characters (line breaks, escapes, ...)"
        ));
    }
    if raw.len() > MAX_PATH_BYTES {
        return Err(format!(
            "the file path is too long ({} bytes, at most {MAX_PATH_BYTES})",
            raw.len()
        ));
    }
    if raw.contains('\\') {
        if raw.contains("..\\") || raw.ends_with("\\..") {
            return Err(format!(
                "the file path {raw:?} climbs out with `..\\`; use a path inside the project"
            ));
        }
        return Ok(raw.replace('\\', "/"));
    }
    Ok(raw.to_owned())
}

/// Parses a whole number named `what` and checks it lies in
/// `min..=max` (spec 13.7).
pub fn integer(what: &str, raw: &str, min: i64, max: i64) -> Result<i64, String> {
    let v: i64 = raw
        .trim()
        .parse()
        .map_err(|_| format!("{what} must be a whole number, got {raw:?}"))?;
    in_range(what, v, min, max)
}

/// Checks that `v` lies in `min..=max`.
pub fn in_range(what: &str, v: i64, min: i64, max: i64) -> Result<i64, String> {
    if v < min || v > max {
        return Err(format!("{what} must be between {min} and {max}, got {v}"));
    }
    Ok(v)
}

/// A timeout in seconds, 1..=3600 (spec 13.7).
pub fn timeout_seconds(raw: &str) -> Result<u64, String> {
    integer("the timeout (seconds)", raw, 1, 3600).map(|v| v.unsigned_abs())
}

/// A retry count, 0..=5 (spec 13.7).
pub fn retry_count(raw: &str) -> Result<u32, String> {
    integer("the retry count", raw, 0, 5).map(|v| v.unsigned_abs() as u32)
}

/// A TCP port, 1..=65535 (spec 13.7).
pub fn port(raw: &str) -> Result<u16, String> {
    integer("the port", raw, 1, 65_535).map(|v| v.unsigned_abs() as u16)
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

/// Checks a host (spec 13.8): an IP address, or an RFC 1123 host name (at
/// most 253 characters, labels of 1-63 letters, digits and `-`, not
/// starting or ending with `-`).
pub fn host(raw: &str) -> Result<Host, String> {
    let name = raw.trim();
    if name.is_empty() {
        return Err("the host is empty (use e.g. localhost or 127.0.0.1)".into());
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
        return Err(format!(
            "invalid host {name:?}: use an IP address or a host name (labels of letters, digits \
             and `-`, at most 63 characters each, 253 in all)"
        ));
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

/// Checks a lock reason (spec 13.9): at most `MAX_LOCK_REASON_CHARS`
/// characters. Returns it unchanged; it is sanitised where it is shown.
pub fn lock_reason(raw: &str) -> Result<&str, String> {
    let n = raw.chars().count();
    if n > MAX_LOCK_REASON_CHARS {
        return Err(format!(
            "the lock reason is too long ({n} characters, at most {MAX_LOCK_REASON_CHARS})"
        ));
    }
    Ok(raw)
}

/// Checks `$EDITOR` (spec 4.17) and splits it into a program and its
/// options (`code --wait`). It must contain no shell syntax: swarm runs
/// the program directly, never through a shell.
pub fn editor_command(raw: &str) -> Result<Vec<String>, String> {
    if let Some(c) = raw.chars().find(|c| EDITOR_FORBIDDEN.contains(c)) {
        return Err(format!(
            "$EDITOR contains {c:?}, which is shell syntax; give a program name or path and \
             plain options only (e.g. `vim` or `code --wait`)"
        ));
    }
    let words: Vec<String> = raw.split_whitespace().map(str::to_owned).collect();
    if words.is_empty() {
        return Err("$EDITOR is empty".into());
    }
    Ok(words)
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
        let err = |s: &str| agent_id(s).expect_err(s);
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
    fn recipient_lists() {
        let ids = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            recipients(&ids(&[" agent-1", "agent-2"])),
            Ok(ids(&["agent-1", "agent-2"]))
        );
        assert!(recipients(&[]).expect_err("empty").contains("empty"));
        assert!(
            recipients(&ids(&["agent-1", "agent-1 "]))
                .expect_err("dup")
                .contains("recipient 2: \"agent-1\" is named twice")
        );
        assert!(
            recipients(&ids(&["ok", "b;d"]))
                .expect_err("bad")
                .starts_with("recipient 2: ")
        );
        let many: Vec<String> = (0..=MAX_RECIPIENTS).map(|i| format!("a{i}")).collect();
        assert!(recipients(&many).expect_err("many").contains("at most 100"));
    }

    #[test]
    fn message_contents() {
        assert_eq!(message_content(" hi\n"), Ok(" hi\n"));
        assert!(
            message_content(" \n\t")
                .expect_err("blank")
                .contains("empty")
        );
        let max = "é".repeat(MAX_MESSAGE_BYTES / 2);
        assert!(message_content(&max).is_ok());
        let over = format!("{max}x");
        assert!(
            message_content(&over)
                .expect_err("long")
                .contains("10241 bytes, at most 10240")
        );
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
            let e = message_type_name(bad).expect_err(bad);
            assert!(e.contains(why), "{bad:?}: {e}");
        }
    }

    #[test]
    fn pane_ids() {
        assert_eq!(pane_id("%3").map(|p| p.number()), Ok(3));
        let e = pane_id("3").expect_err("no %");
        assert!(e.contains("expected % followed by a number"), "{e}");
    }

    #[test]
    fn path_texts() {
        assert_eq!(path_text("src/a.rs").as_deref(), Ok("src/a.rs"));
        assert_eq!(path_text("src\\a.rs").as_deref(), Ok("src/a.rs"));
        for (bad, why) in [
            ("", "empty"),
            ("  ", "empty"),
            ("a\0b", "NUL"),
            ("a\nb", "control"),
            ("..\\etc", "climbs out"),
            ("a\\..", "climbs out"),
        ] {
            let e = path_text(bad).expect_err(bad);
            assert!(e.contains(why), "{bad:?}: {e}");
        }
        assert!(path_text(&"a".repeat(MAX_PATH_BYTES + 1)).is_err());
    }

    #[test]
    fn numbers() {
        assert_eq!(timeout_seconds(" 30 "), Ok(30));
        assert_eq!(
            timeout_seconds("0"),
            Err("the timeout (seconds) must be between 1 and 3600, got 0".into())
        );
        assert!(
            timeout_seconds("3.5")
                .expect_err("float")
                .contains("whole number")
        );
        assert_eq!(retry_count("5"), Ok(5));
        assert!(retry_count("6").is_err());
        assert!(retry_count("-1").is_err());
        assert_eq!(port("65535"), Ok(65535));
        assert!(port("0").is_err());
        assert!(port("99999999999999999999").is_err());
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
    fn lock_reasons() {
        assert_eq!(lock_reason("JWT refactor"), Ok("JWT refactor"));
        assert_eq!(lock_reason(""), Ok(""));
        assert!(
            lock_reason(&"x".repeat(513))
                .expect_err("long")
                .contains("513")
        );
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
                let _ = recipients(&[input.to_owned(), input.to_owned()]);
                let _ = message_content(input);
                let _ = pane_id(input);
                let _ = path_text(input);
                let _ = integer("n", input, -5, 5);
                let _ = timeout_seconds(input);
                let _ = retry_count(input);
                let _ = port(input);
                let _ = host(input);
                let _ = lock_reason(input);
                let _ = editor_command(input);
                if let Ok(name) = message_type_name(input) {
                    prop_assert!(!MESSAGE_TYPES.contains(&name.as_str()));
                    prop_assert!(name.bytes().all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'-'));
                }
                if let Ok(p) = path_text(input) {
                    prop_assert!(!p.contains('\0') && !p.contains('\\'));
                }
            }
        }

        #[test]
        fn numbers_in_range_are_accepted(n in 1i64..=3600) {
            prop_assert_eq!(timeout_seconds(&n.to_string()), Ok(n.unsigned_abs()));
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
