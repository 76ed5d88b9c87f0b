//! `FileHeld`: the `HeldStore` kept in `.swarm/held.json`. Each entry keeps
//! the exact text to type, in the order the messages were sent; they go
//! out in that order, each exactly once, when the pane is safe again (see
//! `release.rs`). Every change is made under the file's lock. A
//! missing file means nothing is held, so the check after every command
//! costs one failed `open`. A damaged one is moved aside, with a notice,
//! on the first read that finds it (`StateFile::load_or_set_aside`).

use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::domain::{AgentId, Timestamp};
use crate::store::{Paths, StateFile, StateLock, StoreError};

use super::held_store::{HeldMessage, HeldQueue, HeldStore, Holding, ToHold};

/// How long a writer waits for another process.
const LOCK_TIMEOUT: Duration = Duration::from_secs(10);

/// Version of the file's shape.
const VERSION: u32 = 1;

/// What a damaged file's notice ends with.
const HELD_LOST: &str =
    ", and no message is held now (those it held were not typed in; their text is in the copy)";

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
struct HeldFile {
    version: u32,
    next_seq: u64,
    /// The queue (`held`, `notified`).
    #[serde(flatten)]
    queue: HeldQueue,
}

/// The held-messages file of a project.
#[derive(Clone, Debug)]
pub(crate) struct FileHeld {
    file: StateFile,
}

impl FileHeld {
    /// The queue of `paths`'s project.
    pub(crate) fn new(paths: &Paths) -> FileHeld {
        FileHeld {
            file: StateFile::new(paths.held()),
        }
    }

    /// Reads the queue under its lock, lets `change` change it, and writes
    /// it when `change` says it changed something.
    fn update<T>(&self, change: impl FnOnce(&mut HeldFile) -> (T, bool)) -> Result<T, StoreError> {
        let lock = self.file.lock(LOCK_TIMEOUT)?;
        let mut data: HeldFile = self.file.load_for_change(&lock, HELD_LOST)?;
        let (out, changed) = change(&mut data);
        if changed {
            data.version = VERSION;
            self.save(&lock, &data)?;
        }
        Ok(out)
    }

    fn save(&self, lock: &StateLock, data: &HeldFile) -> Result<(), StoreError> {
        let bytes = serde_json::to_vec_pretty(data).map_err(|e| StoreError::Corrupt {
            path: self.file.path().to_owned(),
            reason: e.to_string(),
        })?;
        self.file.write(lock, &bytes)
    }
}

impl HeldStore for FileHeld {
    fn list(&self) -> Result<Vec<HeldMessage>, StoreError> {
        Ok(self
            .file
            .load_or_set_aside::<HeldFile>(HELD_LOST)?
            .queue
            .held)
    }

    fn any(&self) -> bool {
        self.list().is_ok_and(|l| !l.is_empty())
    }

    fn hold(&self, msg: ToHold<'_>) -> Result<Holding, StoreError> {
        self.update(|data| {
            let seq = data.next_seq;
            data.next_seq += 1;
            (data.queue.hold(seq, msg, Timestamp::now()), true)
        })
    }

    fn set_reason(&self, agent: &AgentId, reason: &str) -> Result<(), StoreError> {
        self.update(|data| {
            data.queue.set_reason(agent, reason);
            ((), true)
        })
    }

    fn release(&self, seq: u64) -> Result<bool, StoreError> {
        self.update(|data| (data.queue.release(seq), true))
    }

    fn release_all(&self, agent: &AgentId) -> Result<Vec<HeldMessage>, StoreError> {
        self.update(|data| (data.queue.release_all(agent), true))
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::messaging::held::held_store::contract;

    #[test]
    fn contract_holds_in_order_and_releases_once() {
        let dir = tempfile::tempdir().expect("tempdir");
        contract::holds_in_order_and_releases_once(&FileHeld::new(&Paths::new(dir.path())));
    }

    #[test]
    fn contract_racing_releases_have_one_winner() {
        let dir = tempfile::tempdir().expect("tempdir");
        contract::racing_releases_have_one_winner(Arc::new(FileHeld::new(&Paths::new(dir.path()))));
    }

    #[test]
    fn the_file_keeps_its_shape() {
        let dir = tempfile::tempdir().expect("tempdir");
        let paths = Paths::new(dir.path());
        let store = FileHeld::new(&paths);
        let agent = AgentId::parse("agent-1").expect("id");
        store
            .hold(ToHold {
                msg_id: &crate::domain::MessageId::from_stored("m1"),
                agent: &agent,
                text: "one",
                marker: "[h1]",
                reason: "typing",
                urgency: crate::domain::message::Urgency::Normal,
            })
            .expect("hold");
        let text = std::fs::read_to_string(paths.held()).expect("held.json");
        let v: serde_json::Value = serde_json::from_str(&text).expect("json");
        let keys: Vec<&str> = v["held"][0]
            .as_object()
            .expect("entry")
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(
            keys,
            [
                "seq", "msg_id", "agent", "text", "marker", "reason", "since"
            ]
        );
        assert!(
            v["held"][0]["since"]
                .as_str()
                .is_some_and(|s| s.ends_with("+00:00")),
            "{text}"
        );
        assert_eq!(
            (v["version"].as_u64(), v["next_seq"].as_u64()),
            (Some(1), Some(1))
        );
        assert_eq!(v["notified"], serde_json::json!(["agent-1"]));
    }
}
