//! `FileAcks`: the `AckStore` kept in `PENDING_ACKS.json` (project root)
//! and `.swarm/ack_due` (docs/FORMATS.md), the files the Python tool
//! shares.
//!
//! Every change to the pending file happens under its sidecar lock
//! (read, modify, write), so no acknowledgement or retry is lost; due work
//! is claimed under the same lock, which is what makes each claim happen
//! once. `.swarm/ack_due` holds the earliest due time so that every
//! command can check for due work by reading one small file.

use crate::domain::{AgentId, Timestamp};
use crate::store::{
    DEFAULT_LOCK_TIMEOUT, Loaded, Paths, StateFile, StateLock, StoreError, ensure_private_dir,
};
use crate::support::json::{self, Layout};

use super::ack_store::{AckResult, AckStore, Claim, Claimed, NextDue, PendingDoc, PendingList};
use super::pending::PendingEntry;

/// The pending list of one project, in its files.
#[derive(Clone, Debug)]
pub(crate) struct FileAcks {
    file: StateFile,
    due: StateFile,
}

impl FileAcks {
    /// The files of the project laid out by `paths`.
    pub(crate) fn new(paths: &Paths) -> FileAcks {
        FileAcks {
            file: StateFile::new(paths.pending_acks()),
            due: StateFile::new(paths.ack_due()),
        }
    }

    /// Reads under the lock; a damaged file is moved aside (kept for
    /// inspection) and reported, and the list starts empty.
    fn load(&self, lock: &StateLock) -> Result<(PendingDoc, Vec<String>), StoreError> {
        let why = match self.file.read_json::<PendingDoc>() {
            Ok(Loaded::Valid(p)) => return Ok((p, Vec::new())),
            Ok(Loaded::Missing) => return Ok((PendingDoc::default(), Vec::new())),
            Ok(Loaded::Corrupt(why)) | Err(StoreError::Corrupt { reason: why, .. }) => why,
            Err(e) => return Err(e),
        };
        let aside = self.file.preserve(lock)?;
        let warning = format!(
            "{} was damaged ({why}); {} and started an empty list of pending acknowledgements",
            self.file.path().display(),
            aside
                .map(|p| format!("moved it to {}", p.display()))
                .unwrap_or_else(|| "it could not be moved aside".into())
        );
        Ok((PendingDoc::default(), vec![warning]))
    }

    fn save(&self, lock: &StateLock, pending: &mut PendingDoc) -> Result<(), StoreError> {
        pending.version += 1;
        let bytes =
            json::to_vec(pending, Layout::Indent2).map_err(|source| StoreError::Encode {
                path: self.file.path().to_owned(),
                source,
            })?;
        self.file.write(lock, &bytes)?;
        // The earliest due time, for the cheap check every command makes.
        let earliest = pending
            .pending_acks
            .iter()
            .map(|e| e.next_retry_at)
            .min()
            .map(|t| format!("{}", t.unix_seconds()))
            .unwrap_or_else(|| "none".into());
        if let Some(dir) = self.due.path().parent() {
            ensure_private_dir(dir).map_err(|source| StoreError::Write {
                path: dir.to_owned(),
                source,
            })?;
        }
        let due_lock = self.due.lock(DEFAULT_LOCK_TIMEOUT)?;
        self.due.write_unsynced(&due_lock, earliest.as_bytes())
    }

    /// The earliest due time from `.swarm/ack_due`: `Some(None)` when
    /// nothing is pending, `None` when unknown (no file, or anything but a
    /// small regular file holding a time: links are never followed, FIFOs
    /// never waited on; the next save replaces it).
    fn earliest_due(&self) -> Option<Option<Timestamp>> {
        let bytes = self.due.read().ok()??;
        let text = std::str::from_utf8(bytes[..bytes.len().min(64)].trim_ascii()).ok()?;
        if text == "none" {
            return Some(None);
        }
        text.parse()
            .ok()
            .and_then(Timestamp::from_unix_seconds)
            .map(Some)
    }
}

impl AckStore for FileAcks {
    fn record(&self, entry: PendingEntry) -> Result<Vec<String>, StoreError> {
        let lock = self.file.lock(DEFAULT_LOCK_TIMEOUT)?;
        let (mut pending, warnings) = self.load(&lock)?;
        pending.pending_acks.push(entry);
        self.save(&lock, &mut pending)?;
        Ok(warnings)
    }

    fn acknowledge(
        &self,
        prefix: &str,
        agent: &AgentId,
    ) -> Result<(AckResult, Vec<String>), StoreError> {
        let lock = self.file.lock(DEFAULT_LOCK_TIMEOUT)?;
        let (mut pending, warnings) = self.load(&lock)?;
        let result = pending.acknowledge(prefix, agent);
        if matches!(result, AckResult::Acknowledged(_)) {
            self.save(&lock, &mut pending)?;
        }
        Ok((result, warnings))
    }

    /// Read without locking: writes are atomic renames.
    fn list(&self) -> Result<PendingList, StoreError> {
        Ok(match self.file.read_json::<PendingDoc>() {
            Ok(Loaded::Valid(p)) => PendingList {
                entries: p.pending_acks,
                problem: None,
            },
            Ok(Loaded::Missing) => PendingList::default(),
            Ok(Loaded::Corrupt(why)) | Err(StoreError::Corrupt { reason: why, .. }) => {
                PendingList {
                    entries: Vec::new(),
                    problem: Some(format!("{} is damaged ({why})", self.file.path().display())),
                }
            }
            Err(e) => return Err(e),
        })
    }

    fn next_due(&self) -> NextDue {
        match self.earliest_due() {
            Some(Some(t)) => NextDue::At(t),
            Some(None) => NextDue::Nothing,
            // No due file (first use, or a pending file written by the
            // Python tool): look once; claiming writes the due file.
            None if self.file.path().exists() => NextDue::Unknown,
            None => NextDue::Nothing,
        }
    }

    fn claim_due(
        &self,
        now: Timestamp,
        decide: &dyn Fn(&PendingEntry) -> Claim,
    ) -> Result<(Vec<Claimed>, Vec<String>), StoreError> {
        let lock = self.file.lock(DEFAULT_LOCK_TIMEOUT)?;
        let (mut pending, warnings) = self.load(&lock)?;
        let claimed = pending.claim_due(now, decide);
        if !claimed.is_empty() || !warnings.is_empty() || self.earliest_due().is_none() {
            self.save(&lock, &mut pending)?;
        }
        Ok((claimed, warnings))
    }
}

#[cfg(test)]
mod tests {
    use std::fs;
    use std::sync::Arc;
    use std::time::Duration;

    use super::*;
    use crate::acks::ack_store::contract;

    fn store() -> (tempfile::TempDir, FileAcks) {
        let dir = tempfile::tempdir().expect("tempdir");
        let acks = FileAcks::new(&Paths::new(dir.path()));
        (dir, acks)
    }

    #[test]
    fn contract_records_and_acknowledges() {
        let (_dir, s) = store();
        contract::records_and_acknowledges(&s);
    }

    #[test]
    fn contract_claims_on_time_and_once() {
        let (_dir, s) = store();
        contract::claims_on_time_and_once(&s);
    }

    #[test]
    fn contract_claims_oldest_first_and_leaves_the_rest() {
        let (_dir, s) = store();
        contract::claims_oldest_first_and_leaves_the_rest(&s);
    }

    #[test]
    fn contract_racing_claims_have_one_winner() {
        let (_dir, s) = store();
        contract::racing_claims_have_one_winner(Arc::new(s));
    }

    #[test]
    fn every_save_bumps_the_version_and_rewrites_the_due_file() {
        let (dir, s) = store();
        let e = contract::entry("agent-1", Timestamp::now(), Duration::from_secs(30));
        s.record(e.clone()).expect("record");
        let text = fs::read_to_string(dir.path().join("PENDING_ACKS.json")).expect("read");
        assert!(
            text.starts_with("{\n  \"version\": 1,\n  \"pending_acks\": ["),
            "{text}"
        );
        let due = fs::read_to_string(dir.path().join(".swarm/ack_due")).expect("due");
        assert_eq!(due, format!("{}", e.next_retry_at.unix_seconds()));
    }

    #[test]
    fn unknown_keys_in_a_python_message_dict_survive_a_rewrite() {
        let (dir, s) = store();
        let python = r#"{
  "version": 4,
  "pending_acks": [
    {
      "msg_id": "9c2c68bd-7f2c-490f-a333-2015aba90f22",
      "sender_id": "agent-0",
      "recipient_id": "agent-1",
      "message": {
        "sender_id": "agent-0",
        "timestamp": "2026-11-21T13:27:14",
        "msg_type": "QUESTION",
        "content": "[REQUIRES-ACK] ok?",
        "recipients": [
          "agent-1"
        ],
        "msg_id": "9c2c68bd-7f2c-490f-a333-2015aba90f22",
        "signature": "c2lnbmVk",
        "delivery_status": {
          "agent-1": true
        },
        "metadata": {
          "k": 1
        }
      },
      "sent_at": "2026-11-21T13:27:14.941981",
      "retry_count": 0,
      "next_retry_at": "2026-11-21T13:27:44.941959"
    },
    {
      "msg_id": "temp-0123456789abcdef0123456789abcdef",
      "sender_id": "agent-0",
      "recipient_id": "agent-2",
      "message": {},
      "sent_at": "2026-11-21T13:28:14.000001",
      "retry_count": 0,
      "next_retry_at": "2026-11-21T13:28:44.000001"
    }
  ]
}"#;
        let path = dir.path().join("PENDING_ACKS.json");
        fs::write(&path, python).expect("write");
        let listed = s.list().expect("list").entries;
        assert_eq!(listed[0].message().content, "[REQUIRES-ACK] ok?");
        assert_eq!(listed[1].message().msg_type.as_str(), "INFO");
        // A change to the list (a new entry, then its removal) rewrites the
        // file: the Python entries come back byte for byte.
        let e = contract::entry("agent-3", Timestamp::now(), Duration::from_secs(30));
        s.record(e.clone()).expect("record");
        let (r, _) = s
            .acknowledge(e.msg_id.as_str(), &AgentId::parse("agent-3").expect("id"))
            .expect("ack");
        assert!(matches!(r, AckResult::Acknowledged(_)));
        let after = fs::read_to_string(&path).expect("read");
        assert_eq!(after, python.replace("\"version\": 4", "\"version\": 6"));
    }
}
