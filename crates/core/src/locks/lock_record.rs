//! `LockRecord`: one lock: the Python tool's four keys of a lock file
//! (docs/FORMATS.md), what a shared store adds (fencing token, host), and
//! swarm's terms (a lease's end, the holders of a shared lock); the checks
//! a stored lock must pass, and when it stops holding anyone.

use serde::{Deserialize, Serialize};

use crate::domain::validate;
use crate::support::json::{self, Layout};

use super::hold::Hold;
use super::lock_key::lock_file_name;

/// Longest reason accepted (parity: 512 characters).
pub const MAX_REASON_CHARS: usize = 512;

/// One lock. The first four fields are the Python tool's, in its order;
/// for a shared lock they are the first holder's.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LockRecord {
    /// The holder (of a shared lock: its first holder).
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
    /// When `agent_id`'s lease ends, Unix seconds; `None`: the stale
    /// timeout applies. (Lock files keep it in swarm's terms beside them,
    /// `lock_terms.rs`, never in the file.)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<f64>,
    /// A shared lock: any number of agents hold it together and none of
    /// them edits under it; an exclusive lock (`false`) has one holder.
    #[serde(default, skip_serializing_if = "is_false")]
    pub shared: bool,
    /// The holders of a shared lock after `agent_id`, in the order they
    /// joined.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sharers: Vec<Hold>,
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// The four keys of the Python tool's lock file, in its order: all a lock
/// file ever holds.
#[derive(Serialize)]
struct PythonShape<'a> {
    agent_id: &'a str,
    filepath: &'a str,
    locked_at: f64,
    reason: &'a str,
}

impl LockRecord {
    /// Parses a stored lock called `file_name`. Unknown extra keys are
    /// tolerated; anything else that is not a lock (not JSON, a missing
    /// key, a wrong type, an invalid agent id, a `filepath` whose hash is
    /// not the file name, holders of a shared lock that do not add up) is
    /// an error saying what is wrong.
    pub fn parse(bytes: &[u8], file_name: &str) -> Result<LockRecord, String> {
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return Err("the file is empty".into());
        }
        let record: LockRecord = serde_json::from_slice(bytes).map_err(|e| e.to_string())?;
        if lock_file_name(&record.filepath) != file_name {
            return Err(format!(
                "its filepath {:?} does not hash to the file name",
                record.filepath
            ));
        }
        record.check()?;
        Ok(record)
    }

    /// Its claims are valid: sharers only on a shared lock, valid agent
    /// ids, finite times, each agent once.
    pub(crate) fn check(&self) -> Result<(), String> {
        if !self.sharers.is_empty() && !self.shared {
            return Err("it lists sharers but is not shared".into());
        }
        check_holds(&self.holds())
    }

    /// A lock on `filepath` held by `holds` (the first becomes `agent_id`),
    /// shared or not; `None` when nobody holds it.
    pub fn from_holds(filepath: &str, shared: bool, holds: Vec<Hold>) -> Option<LockRecord> {
        let mut holds = holds.into_iter();
        let first = holds.next()?;
        Some(LockRecord {
            agent_id: first.agent_id,
            filepath: filepath.to_owned(),
            locked_at: first.locked_at,
            reason: first.reason,
            fence: None,
            host: None,
            expires_at: first.expires_at,
            shared,
            sharers: holds.collect(),
        })
    }

    /// Every holder's claim, `agent_id`'s first.
    pub fn holds(&self) -> Vec<Hold> {
        let first = Hold {
            agent_id: self.agent_id.clone(),
            locked_at: self.locked_at,
            reason: self.reason.clone(),
            expires_at: self.expires_at,
        };
        std::iter::once(first)
            .chain(self.sharers.iter().cloned())
            .collect()
    }

    /// The claims that still hold at `now`.
    pub fn live_holds(&self, now: f64, stale_after: f64) -> Vec<Hold> {
        self.holds()
            .into_iter()
            .filter(|h| !h.has_lapsed(now, stale_after))
            .collect()
    }

    /// True when some claim on it is a lease.
    pub fn has_lease(&self) -> bool {
        self.expires_at.is_some() || self.sharers.iter().any(|h| h.expires_at.is_some())
    }

    /// When its last claim lapses (Unix seconds).
    pub fn lapses_at(&self, stale_after: f64) -> f64 {
        self.holds()
            .iter()
            .map(|h| h.lapses_at(stale_after))
            .fold(f64::NEG_INFINITY, f64::max)
    }

    /// The lock file's content in the Python tool's shape (its four keys
    /// only): Python's `json.dumps(lock, indent=2)`, no trailing newline.
    pub fn to_bytes(&self) -> Vec<u8> {
        let shape = PythonShape {
            agent_id: &self.agent_id,
            filepath: &self.filepath,
            locked_at: self.locked_at,
            reason: &self.reason,
        };
        // Three strings and a finite float cannot fail to encode.
        json::to_vec(&shape, Layout::Indent2).unwrap_or_default()
    }

    /// Seconds since `locked_at` (0 when the clock went backwards).
    pub fn age(&self, now: f64) -> f64 {
        (now - self.locked_at).max(0.0)
    }

    /// True when it holds nobody any more: every claim on it is strictly
    /// older than `stale_after` seconds (parity), or past its lease's end.
    pub fn is_stale(&self, now: f64, stale_after: f64) -> bool {
        self.holds().iter().all(|h| h.has_lapsed(now, stale_after))
    }
}

/// The claims of one stored lock are valid: agent ids, finite times, each
/// agent once.
fn check_holds(holds: &[Hold]) -> Result<(), String> {
    let mut seen = std::collections::BTreeSet::new();
    for h in holds {
        validate::agent_id(&h.agent_id).map_err(|e| format!("agent_id: {e}"))?;
        if !h.locked_at.is_finite() || h.expires_at.is_some_and(|t| !t.is_finite()) {
            return Err("locked_at or expires_at is not a finite number".into());
        }
        if !seen.insert(h.agent_id.as_str()) {
            return Err(format!("{} holds it twice", h.agent_id));
        }
    }
    Ok(())
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
            ..LockRecord::default()
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
            ..LockRecord::default()
        };
        assert!(!r.is_stale(1300.0, 300.0));
        assert!(r.is_stale(1300.5, 300.0));
        assert_eq!(r.age(900.0), 0.0);
    }

    #[test]
    fn a_shared_lock_holds_while_any_claim_does_and_files_never_see_its_terms() {
        let hold = |agent: &str, at: f64, end: Option<f64>| Hold {
            agent_id: agent.into(),
            locked_at: at,
            reason: String::new(),
            expires_at: end,
        };
        let r = LockRecord::from_holds(
            "src/a.py",
            true,
            vec![
                hold("agent-1", 1000.0, Some(1010.0)),
                hold("agent-2", 1005.0, None),
            ],
        )
        .expect("held");
        assert_eq!(r.agent_id, "agent-1");
        assert!(r.has_lease());
        assert_eq!(r.lapses_at(300.0), 1305.0);
        assert_eq!(r.live_holds(1020.0, 300.0).len(), 1);
        assert!(!r.is_stale(1300.0, 300.0));
        assert!(r.is_stale(1305.5, 300.0));
        assert_eq!(
            String::from_utf8(r.to_bytes()).expect("utf-8"),
            "{\n  \"agent_id\": \"agent-1\",\n  \"filepath\": \"src/a.py\",\n  \"locked_at\": 1000.0,\n  \"reason\": \"\"\n}"
        );
        // A shared store keeps all of it.
        let stored = json::to_vec(&r, Layout::Line).expect("json");
        assert_eq!(LockRecord::parse(&stored, &name()), Ok(r.clone()));
        let twice = LockRecord {
            sharers: vec![hold("agent-1", 1.0, None)],
            ..r
        };
        let stored = json::to_vec(&twice, Layout::Line).expect("json");
        assert!(LockRecord::parse(&stored, &name()).is_err());
    }
}
