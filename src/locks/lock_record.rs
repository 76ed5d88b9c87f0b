//! `LockRecord`: the content of one lock file, in exactly the Python tool's
//! shape (docs/FORMATS.md), and the checks a file must pass to count as a lock.

use serde::{Deserialize, Serialize};

use crate::domain::validate;
use crate::support::json::{self, Layout};

use super::lock_key::lock_file_name;

/// Longest reason accepted (parity: 512 characters).
pub(crate) const MAX_REASON_CHARS: usize = 512;

/// One lock. Field names and order are the Python tool's.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LockRecord {
    /// The holder.
    pub agent_id: String,
    /// The normalised path or pattern (its SHA-256 names the file).
    pub filepath: String,
    /// When it was taken or last refreshed, Unix seconds.
    pub locked_at: f64,
    /// Why, as the holder said (may be empty).
    pub reason: String,
    /// The fencing token of this acquisition: a number that only grows
    /// across the swarm. Only a shared store (Redis) hands them out; lock
    /// files never carry one, so the Python tool's shape is kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fence: Option<u64>,
    /// The host whose command took it (shared store only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
}

impl LockRecord {
    /// Parses a lock file called `file_name`. Unknown extra keys are
    /// tolerated; anything else that is not a lock (not JSON, a missing
    /// key, a wrong type, an invalid agent id, a `filepath` whose hash is
    /// not the file name) is an error saying what is wrong.
    pub fn parse(bytes: &[u8], file_name: &str) -> Result<LockRecord, String> {
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return Err("the file is empty".into());
        }
        let record: LockRecord = serde_json::from_slice(bytes).map_err(|e| e.to_string())?;
        validate::agent_id(&record.agent_id).map_err(|e| format!("agent_id: {e}"))?;
        if !record.locked_at.is_finite() {
            return Err("locked_at is not a finite number".into());
        }
        if lock_file_name(&record.filepath) != file_name {
            return Err(format!(
                "its filepath {:?} does not hash to the file name",
                record.filepath
            ));
        }
        Ok(record)
    }

    /// The file content: Python's `json.dumps(lock, indent=2)`, no
    /// trailing newline.
    pub fn to_bytes(&self) -> Vec<u8> {
        // Four strings and a finite float cannot fail to encode.
        json::to_vec(self, Layout::Indent2).unwrap_or_default()
    }

    /// Seconds since `locked_at` (0 when the clock went backwards).
    pub fn age(&self, now: f64) -> f64 {
        (now - self.locked_at).max(0.0)
    }

    /// Stale means strictly older than `stale_after` seconds (parity).
    pub fn is_stale(&self, now: f64, stale_after: f64) -> bool {
        now - self.locked_at > stale_after
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn name() -> String {
        lock_file_name("src/a.py")
    }

    #[test]
    fn writes_the_python_shape() {
        let r = LockRecord {
            agent_id: "agent-1".into(),
            filepath: "src/a.py".into(),
            locked_at: 1795267578.9710896,
            reason: "editing a".into(),
            fence: None,
            host: None,
        };
        assert_eq!(
            String::from_utf8(r.to_bytes()).expect("utf-8"),
            "{\n  \"agent_id\": \"agent-1\",\n  \"filepath\": \"src/a.py\",\n  \"locked_at\": 1795267578.9710896,\n  \"reason\": \"editing a\"\n}"
        );
        assert_eq!(LockRecord::parse(&r.to_bytes(), &name()), Ok(r));
    }

    #[test]
    fn tolerates_extra_keys_and_integer_times() {
        let text = r#"{"agent_id": "agent-1", "filepath": "src/a.py", "locked_at": 17, "reason": "", "x": 1}"#;
        let r = LockRecord::parse(text.as_bytes(), &name()).expect("valid");
        assert_eq!(r.locked_at, 17.0);
    }

    #[test]
    fn rejects_every_wrong_shape_with_a_reason() {
        for bad in [
            "",
            "not json",
            "[1, 2]",
            "{}",
            r#"{"agent_id": "agent-1", "filepath": "src/a.py", "locked_at": "now", "reason": ""}"#,
            r#"{"agent_id": "agent-1", "filepath": "src/a.py", "locked_at": 1}"#,
            r#"{"agent_id": "bad id", "filepath": "src/a.py", "locked_at": 1, "reason": ""}"#,
            r#"{"agent_id": "agent-1", "filepath": "src/b.py", "locked_at": 1, "reason": ""}"#,
        ] {
            let err = LockRecord::parse(bad.as_bytes(), &name()).expect_err(bad);
            assert!(!err.is_empty(), "{bad}");
        }
    }

    #[test]
    fn staleness_is_strict() {
        let r = LockRecord {
            agent_id: "a".into(),
            filepath: "f".into(),
            locked_at: 1000.0,
            reason: String::new(),
            fence: None,
            host: None,
        };
        assert!(!r.is_stale(1300.0, 300.0));
        assert!(r.is_stale(1300.5, 300.0));
        assert_eq!(r.age(900.0), 0.0);
    }
}
