//! What the status panel shows, read from the state files: the agents (the
//! registry), the file locks and the pending acknowledgements; and what
//! changed between two readings, for the plain stream. Reading is
//! tolerant: a damaged file shows as empty with a note, never as an error
//! that stops the monitor.

use std::collections::BTreeMap;
use std::fmt;
use std::time::{Duration, SystemTime};

use chrono::{DateTime, Utc};

use crate::acks::{self, AckStore, PendingEntry};
use crate::agents::registry::{AgentStatus, Registry};
use crate::agents::registry_store::{RegistryState, RegistryStore};
use crate::error::Error;
use crate::locks::{DAMAGED_GRACE, LockEntry, LockStore};
use crate::support::sanitize;
use crate::support::time;
use crate::worktrees::Overlap;

/// One file lock, as its lock file records it (docs/FORMATS.md).
#[derive(Clone, Debug, PartialEq)]
pub struct LockView {
    /// The locked path or glob, relative to the project root.
    pub filepath: String,
    /// Who holds it.
    pub agent_id: String,
    /// When it was taken (Unix seconds).
    pub locked_at: f64,
    /// Why, possibly empty.
    pub reason: String,
}

impl LockView {
    /// Seconds since it was taken (never negative).
    pub fn age(&self, now: DateTime<Utc>) -> f64 {
        (time::unix_seconds(now) - self.locked_at).max(0.0)
    }

    /// True when it is older than `stale_after` (anyone may take it over).
    pub fn is_stale(&self, now: DateTime<Utc>, stale_after: Duration) -> bool {
        self.age(now) > stale_after.as_secs_f64()
    }
}

/// Everything the status panel shows.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SwarmStatus {
    /// The registry, when there is a readable one.
    pub registry: Option<Registry>,
    /// Locks, sorted by path.
    pub locks: Vec<LockView>,
    /// Pending acknowledgements, in file order.
    pub acks: Vec<PendingEntry>,
    /// Files changed on two or more agents' worktree branches, as the
    /// project's watcher (or `swarm changes`) last found them.
    pub overlaps: Vec<Overlap>,
}

/// The registry, and a note when it could not be used.
pub fn read_registry(store: &dyn RegistryStore) -> (Option<Registry>, Option<String>) {
    try_read_registry(store)
        .unwrap_or_else(|e| (None, Some(format!("could not read the registry: {e}"))))
}

/// The registry and a note on what of it could not be used, or the error
/// when the store could not be read at all (for a caller that tells an
/// outage of the shared store apart from a damaged file).
pub fn try_read_registry(
    store: &dyn RegistryStore,
) -> Result<(Option<Registry>, Option<String>), Error> {
    Ok(match store.read()? {
        RegistryState::Missing => (None, None),
        RegistryState::Valid(registry, skipped) => {
            let note = (!skipped.is_empty())
                .then(|| format!("{}: ignored {}", store.location(), skipped.join("; ")));
            (Some(registry), note)
        }
        RegistryState::Corrupt(why) => (
            None,
            Some(format!("{} is damaged ({why})", store.location())),
        ),
    })
}

/// The pending acknowledgements, and a note when the file could not be
/// used.
pub fn read_acks(store: &dyn AckStore) -> (Vec<PendingEntry>, Option<String>) {
    try_read_acks(store).unwrap_or_else(|e| {
        (
            Vec::new(),
            Some(format!("could not read the pending acknowledgements: {e}")),
        )
    })
}

/// The pending acknowledgements and a note, or the error when the store
/// could not be read at all.
pub fn try_read_acks(store: &dyn AckStore) -> Result<(Vec<PendingEntry>, Option<String>), Error> {
    let pending = store.list()?;
    Ok((pending.entries, pending.problem))
}

/// Every valid lock, sorted by path, from the locks module's listing (the
/// same files `swarm locks` shows); damaged lock files are counted in the
/// note, since they block their paths until `swarm locks --clean`.
pub fn read_locks(store: &dyn LockStore) -> (Vec<LockView>, Option<String>) {
    try_read_locks(store)
        .unwrap_or_else(|e| (Vec::new(), Some(format!("could not list the locks: {e}"))))
}

/// Every valid lock and a note on damaged ones, or the error when the
/// store could not be listed at all.
pub fn try_read_locks(store: &dyn LockStore) -> Result<(Vec<LockView>, Option<String>), Error> {
    // Listing does not judge staleness: the monitor does, against the time
    // it shows.
    let entries = store.list()?;
    let now = SystemTime::now();
    let mut locks = Vec::new();
    let mut damaged = 0;
    for entry in entries {
        match entry {
            LockEntry::Held(held) => locks.push(LockView {
                filepath: held.record.filepath,
                agent_id: held.record.agent_id,
                locked_at: held.record.locked_at,
                reason: held.record.reason,
            }),
            // A lock file being written is empty for a moment: only one
            // that stays damaged is worth a word.
            LockEntry::Damaged { modified, .. } => {
                let settled = modified
                    .and_then(|m| now.duration_since(m).ok())
                    .is_none_or(|age| age >= DAMAGED_GRACE);
                damaged += usize::from(settled);
            }
        }
    }
    let note = (damaged > 0).then(|| {
        format!(
            "{damaged} damaged lock file{} block{} {} path{}; `swarm locks --clean` removes {}",
            if damaged == 1 { "" } else { "s" },
            if damaged == 1 { "s" } else { "" },
            if damaged == 1 { "its" } else { "their" },
            if damaged == 1 { "" } else { "s" },
            if damaged == 1 { "it" } else { "them" },
        )
    });
    Ok((locks, note))
}

/// One change between two readings of the status, for the plain stream.
#[derive(Clone, Debug, PartialEq)]
pub enum StatusChange {
    /// A new agent is registered.
    AgentJoined {
        /// Its id.
        id: String,
        /// Its pane address.
        pane: String,
    },
    /// An agent left the registry.
    AgentLeft {
        /// Its id.
        id: String,
    },
    /// An agent's status changed (active, stale).
    AgentStatus {
        /// Its id.
        id: String,
        /// The new status.
        status: AgentStatus,
    },
    /// A lock was taken (or taken over).
    LockTaken {
        /// The path.
        path: String,
        /// The new holder.
        holder: String,
        /// The reason given.
        reason: String,
    },
    /// A lock was released.
    LockReleased {
        /// The path.
        path: String,
        /// Who held it.
        holder: String,
    },
    /// A lock became stale.
    LockStale {
        /// The path.
        path: String,
        /// Who holds it.
        holder: String,
    },
    /// A message now waits for an acknowledgement.
    AckPending {
        /// The message.
        msg_id: String,
        /// Its sender.
        from: String,
        /// Who must answer.
        to: String,
    },
    /// A retry of a message waiting for its acknowledgement was sent.
    AckRetried {
        /// The message.
        msg_id: String,
        /// Who must answer.
        to: String,
        /// Retries sent so far.
        count: u32,
    },
    /// A message no longer waits (acknowledged, or escalated).
    AckClosed {
        /// The message.
        msg_id: String,
        /// Who was to answer.
        to: String,
    },
}

impl fmt::Display for StatusChange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Everything here comes from files anyone can write: one line,
        // no controls.
        let c = |s: &str| sanitize::one_line(s);
        match self {
            StatusChange::AgentJoined { id, pane } => {
                write!(f, "agent {} joined ({})", c(id), c(pane))
            }
            StatusChange::AgentLeft { id } => write!(f, "agent {} left", c(id)),
            StatusChange::AgentStatus { id, status } => {
                write!(f, "agent {} is {}", c(id), status.as_str())
            }
            StatusChange::LockTaken {
                path,
                holder,
                reason,
            } => {
                write!(f, "lock {} taken by {}", c(path), c(holder))?;
                if !reason.is_empty() {
                    write!(f, " ({})", c(reason))?;
                }
                Ok(())
            }
            StatusChange::LockReleased { path, holder } => {
                write!(f, "lock {} released by {}", c(path), c(holder))
            }
            StatusChange::LockStale { path, holder } => {
                write!(f, "lock {} held by {} is stale", c(path), c(holder))
            }
            StatusChange::AckPending { msg_id, from, to } => write!(
                f,
                "ACK {} from {} to {} pending",
                acks::short(&c(msg_id)),
                c(from),
                c(to)
            ),
            StatusChange::AckRetried { msg_id, to, count } => write!(
                f,
                "ACK {} to {}: retry {count} sent",
                acks::short(&c(msg_id)),
                c(to)
            ),
            StatusChange::AckClosed { msg_id, to } => write!(
                f,
                "ACK {} to {} no longer pending",
                acks::short(&c(msg_id)),
                c(to)
            ),
        }
    }
}

/// What changed from `old` (read at `old_at`) to `new` (read at `new_at`),
/// in a stable order: agents, locks, acknowledgements.
pub fn status_changes(
    old: &SwarmStatus,
    old_at: DateTime<Utc>,
    new: &SwarmStatus,
    new_at: DateTime<Utc>,
    stale_after: Duration,
) -> Vec<StatusChange> {
    let mut out = Vec::new();
    let agents = |s: &SwarmStatus| -> BTreeMap<String, (AgentStatus, String)> {
        s.registry
            .iter()
            .flat_map(|r| r.agents.iter())
            .map(|a| (a.id.to_string(), (a.status, a.pane_index.clone())))
            .collect()
    };
    let (was, now) = (agents(old), agents(new));
    for (id, (status, pane)) in &now {
        match was.get(id) {
            None => out.push(StatusChange::AgentJoined {
                id: id.clone(),
                pane: pane.clone(),
            }),
            Some((before, _)) if before != status => out.push(StatusChange::AgentStatus {
                id: id.clone(),
                status: *status,
            }),
            Some(_) => {}
        }
    }
    for id in was.keys().filter(|id| !now.contains_key(*id)) {
        out.push(StatusChange::AgentLeft { id: id.clone() });
    }

    let locks = |s: &SwarmStatus| -> BTreeMap<String, LockView> {
        s.locks
            .iter()
            .map(|l| (l.filepath.clone(), l.clone()))
            .collect()
    };
    let (was, now) = (locks(old), locks(new));
    for (path, lock) in &now {
        let before = was.get(path);
        let same =
            before.is_some_and(|b| b.agent_id == lock.agent_id && b.locked_at == lock.locked_at);
        if !same {
            if let Some(b) = before.filter(|b| b.agent_id != lock.agent_id) {
                out.push(StatusChange::LockReleased {
                    path: path.clone(),
                    holder: b.agent_id.clone(),
                });
            }
            if before.is_none_or(|b| b.agent_id != lock.agent_id) {
                out.push(StatusChange::LockTaken {
                    path: path.clone(),
                    holder: lock.agent_id.clone(),
                    reason: lock.reason.clone(),
                });
            }
        }
        let stale_before = before.is_some_and(|b| b.is_stale(old_at, stale_after));
        if lock.is_stale(new_at, stale_after) && !(same && stale_before) {
            out.push(StatusChange::LockStale {
                path: path.clone(),
                holder: lock.agent_id.clone(),
            });
        }
    }
    for (path, lock) in was.iter().filter(|(p, _)| !now.contains_key(*p)) {
        out.push(StatusChange::LockReleased {
            path: path.clone(),
            holder: lock.agent_id.clone(),
        });
    }

    let acks = |s: &SwarmStatus| -> BTreeMap<(String, String), PendingEntry> {
        s.acks
            .iter()
            .map(|e| {
                (
                    (e.msg_id.to_string(), e.recipient_id.to_string()),
                    e.clone(),
                )
            })
            .collect()
    };
    let (was, now) = (acks(old), acks(new));
    for (key, entry) in &now {
        match was.get(key) {
            None => out.push(StatusChange::AckPending {
                msg_id: entry.msg_id.to_string(),
                from: entry.sender_id.to_string(),
                to: entry.recipient_id.to_string(),
            }),
            Some(before) if entry.retry_count > before.retry_count => {
                out.push(StatusChange::AckRetried {
                    msg_id: entry.msg_id.to_string(),
                    to: entry.recipient_id.to_string(),
                    count: entry.retry_count,
                });
            }
            Some(_) => {}
        }
    }
    for (key, entry) in was.iter().filter(|(k, _)| !now.contains_key(*k)) {
        out.push(StatusChange::AckClosed {
            msg_id: key.0.clone(),
            to: entry.recipient_id.to_string(),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agents::registry::AgentRecord;
    use crate::locks::lock_file_name;
    use crate::store::Paths;
    use std::fs;

    fn agent(id: &str, status: AgentStatus) -> AgentRecord {
        AgentRecord {
            id: id.parse().expect("agent id"),
            pane_index: "s:0.1".into(),
            pid: 1,
            status,
            last_seen: String::new(),
            session_name: "s".into(),
            tmux_pane_id: Some("%1".parse().expect("pane id")),
            host: None,
        }
    }

    fn lock(path: &str, who: &str, at: f64) -> LockView {
        LockView {
            filepath: path.into(),
            agent_id: who.into(),
            locked_at: at,
            reason: "why".into(),
        }
    }

    fn pending(id: &str, retries: u32) -> PendingEntry {
        serde_json::from_value(serde_json::json!({
            "msg_id": id,
            "sender_id": "agent-0",
            "recipient_id": "agent-1",
            "message": {},
            "sent_at": "2026-11-21T13:27:14.941981",
            "retry_count": retries,
            "next_retry_at": "2026-11-21T13:27:44.941981",
        }))
        .expect("entry")
    }

    #[test]
    fn locks_are_listed_and_damaged_files_counted() {
        let dir = tempfile::tempdir().expect("tempdir");
        let paths = Paths::new(dir.path());
        let store = crate::locks::FileLocks::new(&paths, 300);
        assert_eq!(read_locks(&store), (Vec::new(), None));
        fs::create_dir(paths.locks_dir()).expect("mkdir");
        let file = |path: &str| paths.locks_dir().join(lock_file_name(path));
        let good = r#"{"agent_id": "agent-1", "filepath": "src/a.py", "locked_at": 1795267578.97, "reason": "editing"}"#;
        fs::write(file("src/a.py"), good).expect("write");
        // An extra key does not stop a file being a lock.
        let other = r#"{"agent_id": "agent-2", "filepath": "docs/*", "locked_at": 1795267000, "reason": "", "x": 1}"#;
        fs::write(file("docs/*"), other).expect("write");
        fs::write(file("c"), "not json").expect("write");
        fs::write(file("d"), r#"{"agent_id": "a", "filepath": "d"}"#).expect("write");
        let old = SystemTime::now() - DAMAGED_GRACE - Duration::from_secs(1);
        for name in ["c", "d"] {
            fs::File::options()
                .write(true)
                .open(file(name))
                .and_then(|f| f.set_modified(old))
                .expect("age the file");
        }
        // Being written right now: not counted yet.
        fs::write(file("e"), "").expect("write");
        let (locks, note) = read_locks(&store);
        assert_eq!(
            locks,
            vec![
                LockView {
                    filepath: "docs/*".into(),
                    agent_id: "agent-2".into(),
                    locked_at: 1_795_267_000.0,
                    reason: String::new(),
                },
                LockView {
                    reason: "editing".into(),
                    ..lock("src/a.py", "agent-1", 1_795_267_578.97)
                },
            ]
        );
        let note = note.expect("damaged files are mentioned");
        assert!(
            note.starts_with("2 damaged lock files block their paths"),
            "{note}"
        );
    }

    #[test]
    fn staleness_follows_the_age() {
        let l = lock("a", "agent-1", 1000.0);
        let at = |s: f64| time::from_unix_seconds(s).expect("time");
        assert!(!l.is_stale(at(1300.0), Duration::from_secs(300)));
        assert!(l.is_stale(at(1300.5), Duration::from_secs(300)));
        assert_eq!(l.age(at(900.0)), 0.0);
    }

    #[test]
    fn changes_name_every_difference_once() {
        let t0 = time::from_unix_seconds(1000.0).expect("time");
        let t1 = time::from_unix_seconds(1400.0).expect("time");
        let stale = Duration::from_secs(300);
        let mut reg = Registry {
            agents: vec![
                agent("agent-0", AgentStatus::Active),
                agent("agent-1", AgentStatus::Active),
            ],
            ..Registry::default()
        };
        let old = SwarmStatus {
            registry: Some(reg.clone()),
            locks: vec![lock("a", "agent-0", 990.0), lock("b", "agent-1", 1200.0)],
            acks: vec![pending("m1", 0), pending("m2", 0)],
            overlaps: Vec::new(),
        };
        reg.agents = vec![
            agent("agent-1", AgentStatus::Stale),
            agent("agent-2", AgentStatus::Active),
        ];
        let new = SwarmStatus {
            registry: Some(reg),
            locks: vec![lock("b", "agent-2", 1390.0), lock("c", "agent-1", 1050.0)],
            acks: vec![pending("m2", 1), pending("m3", 0)],
            overlaps: Vec::new(),
        };
        let lines: Vec<String> = status_changes(&old, t0, &new, t1, stale)
            .iter()
            .map(|c| c.to_string())
            .collect();
        assert_eq!(
            lines,
            [
                "agent agent-1 is stale",
                "agent agent-2 joined (s:0.1)",
                "agent agent-0 left",
                "lock b released by agent-1",
                "lock b taken by agent-2 (why)",
                "lock c taken by agent-1 (why)",
                "lock c held by agent-1 is stale",
                "lock a released by agent-0",
                "ACK m2 to agent-1: retry 1 sent",
                "ACK m3 from agent-0 to agent-1 pending",
                "ACK m1 to agent-1 no longer pending",
            ]
        );
        // Nothing changed, and a stale lock is reported once.
        assert!(status_changes(&new, t1, &new, t1, stale).is_empty());
        let later = time::from_unix_seconds(1700.0).expect("time");
        let aged: Vec<String> = status_changes(&new, t1, &new, later, stale)
            .iter()
            .map(|c| c.to_string())
            .collect();
        assert_eq!(aged, ["lock b held by agent-2 is stale"]);
    }

    #[test]
    fn hostile_text_in_files_is_one_harmless_line() {
        let c = StatusChange::LockTaken {
            path: "a\x1b]0;pwned\x07\nb".into(),
            holder: "x\x1b[2J".into(),
            reason: "r\r\n".into(),
        };
        assert_eq!(c.to_string(), "lock a b taken by x (r )");
    }
}
