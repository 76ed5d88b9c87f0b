//! Validators for untrusted input (spec 13), one function per kind of
//! value. Each error says what was wrong and what is allowed.

/// Longest agent id accepted.
pub const MAX_AGENT_ID_LEN: usize = 64;

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

    proptest! {
        #[test]
        fn never_panics_and_accepted_ids_are_clean(s in "\\PC*") {
            if let Ok(id) = agent_id(&s) {
                prop_assert!(!id.is_empty() && id.len() <= 64);
                prop_assert!(id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'));
            }
        }
    }
}
