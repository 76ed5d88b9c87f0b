//! `.swarm/held.json`: messages held back from a pane because its agent's
//! screen was not safe to type into (someone typing, a dialog open, a
//! screen swarm cannot read). Each entry keeps the exact text to type, in
//! the order the messages were sent; they go out in that order, each
//! exactly once, when the pane is safe again (see `send::release_held`).
//! A missing file means nothing is held, so the check after every command
//! costs one failed `open`.

use std::time::Duration;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::store::{Loaded, Paths, StateFile, StateLock, StoreError};
use crate::support::time;

/// How long a writer waits for another process.
const LOCK_TIMEOUT: Duration = Duration::from_secs(10);

/// Version of the file's shape.
const VERSION: u32 = 1;

/// One held message for one recipient.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct HeldMessage {
    /// Order of holding, across all agents.
    pub seq: u64,
    /// The message.
    pub msg_id: String,
    /// The recipient.
    pub agent: String,
    /// Exactly what will be typed into the pane.
    pub text: String,
    /// A piece of the text that identifies it on screen (its header).
    pub marker: String,
    /// Why it waits, for a person.
    pub reason: String,
    /// When it was first held (UTC, ISO 8601).
    pub since: String,
}

impl HeldMessage {
    /// How long it has waited.
    pub(crate) fn age(&self, now: DateTime<Utc>) -> Duration {
        time::parse_iso(&self.since)
            .and_then(|t| (now - t).to_std().ok())
            .unwrap_or_default()
    }
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
struct HeldFile {
    version: u32,
    next_seq: u64,
    held: Vec<HeldMessage>,
    /// Agents whose pane was told that messages wait (told once per
    /// episode: the mark goes when nothing is held for them any more).
    #[serde(default)]
    notified: Vec<String>,
}

/// The held-messages file of a project.
pub(crate) struct HeldQueue {
    file: StateFile,
}

/// Changes to the queue are made while holding this.
pub(crate) struct HeldGuard<'a> {
    queue: &'a HeldQueue,
    lock: StateLock,
    data: HeldFile,
}

impl HeldQueue {
    /// The queue of `paths`'s project.
    pub(crate) fn new(paths: &Paths) -> HeldQueue {
        HeldQueue {
            file: StateFile::new(paths.swarm_dir().join("held.json")),
        }
    }

    /// Everything held, in order (empty when the file is missing; a
    /// damaged file reads as empty and is replaced at the next change).
    pub(crate) fn list(&self) -> Result<Vec<HeldMessage>, StoreError> {
        Ok(match self.file.read_json::<HeldFile>()? {
            Loaded::Valid(f) => f.held,
            Loaded::Missing | Loaded::Corrupt(_) => Vec::new(),
        })
    }

    /// True when anything is held (one small read; none without a file).
    pub(crate) fn any(&self) -> bool {
        self.list().is_ok_and(|l| !l.is_empty())
    }

    /// Locks the queue for a change.
    pub(crate) fn lock(&self) -> Result<HeldGuard<'_>, StoreError> {
        let lock = self.file.lock(LOCK_TIMEOUT)?;
        let data = match self.file.read_json::<HeldFile>()? {
            Loaded::Valid(f) => f,
            Loaded::Missing | Loaded::Corrupt(_) => HeldFile {
                version: VERSION,
                ..HeldFile::default()
            },
        };
        Ok(HeldGuard {
            queue: self,
            lock,
            data,
        })
    }
}

impl HeldGuard<'_> {
    /// The messages held for `agent`, in order.
    pub(crate) fn for_agent(&self, agent: &str) -> Vec<HeldMessage> {
        self.data
            .held
            .iter()
            .filter(|h| h.agent == agent)
            .cloned()
            .collect()
    }

    /// Holds one more message for `agent`, after the ones already held.
    pub(crate) fn push(
        &mut self,
        msg_id: &str,
        agent: &str,
        text: &str,
        marker: &str,
        reason: &str,
    ) {
        let seq = self.data.next_seq;
        self.data.next_seq += 1;
        self.data.held.push(HeldMessage {
            seq,
            msg_id: msg_id.to_owned(),
            agent: agent.to_owned(),
            text: text.to_owned(),
            marker: marker.to_owned(),
            reason: reason.to_owned(),
            since: time::utc_iso(time::now()),
        });
    }

    /// Updates the reason of everything held for `agent`.
    pub(crate) fn set_reason(&mut self, agent: &str, reason: &str) {
        for h in self.data.held.iter_mut().filter(|h| h.agent == agent) {
            h.reason = reason.to_owned();
        }
    }

    /// Removes one entry; false when it was not there (someone else
    /// delivered it already).
    pub(crate) fn remove(&mut self, seq: u64) -> bool {
        let before = self.data.held.len();
        self.data.held.retain(|h| h.seq != seq);
        let removed = self.data.held.len() != before;
        let agents: Vec<String> = self.data.held.iter().map(|h| h.agent.clone()).collect();
        self.data.notified.retain(|a| agents.contains(a));
        removed
    }

    /// Marks `agent`'s pane as told; true when it had not been told yet.
    pub(crate) fn mark_notified(&mut self, agent: &str) -> bool {
        if self.data.notified.iter().any(|a| a == agent) {
            return false;
        }
        self.data.notified.push(agent.to_owned());
        true
    }

    /// Writes the changes (the file goes when nothing is held).
    pub(crate) fn save(self) -> Result<(), StoreError> {
        let bytes = serde_json::to_vec_pretty(&self.data).map_err(|e| StoreError::Corrupt {
            path: self.queue.file.path().to_owned(),
            reason: e.to_string(),
        })?;
        self.queue.file.write(&self.lock, &bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn held_messages_keep_their_order_and_go_once() {
        let dir = tempfile::tempdir().expect("tempdir");
        let paths = Paths::new(dir.path());
        let q = HeldQueue::new(&paths);
        assert!(!q.any());
        let mut g = q.lock().expect("lock");
        g.push("m1", "agent-1", "one", "[h1]", "typing");
        g.push("m2", "agent-2", "two", "[h2]", "dialog");
        g.push("m3", "agent-1", "three", "[h3]", "typing");
        assert!(g.mark_notified("agent-1"));
        assert!(!g.mark_notified("agent-1"));
        g.save().expect("save");
        let mut g = q.lock().expect("lock");
        let mine: Vec<String> = g
            .for_agent("agent-1")
            .into_iter()
            .map(|h| h.msg_id)
            .collect();
        assert_eq!(mine, ["m1", "m3"]);
        let first = g.for_agent("agent-1")[0].seq;
        assert!(g.remove(first));
        assert!(!g.remove(first));
        g.save().expect("save");
        let left: Vec<String> = q
            .list()
            .expect("list")
            .into_iter()
            .map(|h| h.msg_id)
            .collect();
        assert_eq!(left, ["m2", "m3"]);
    }
}
