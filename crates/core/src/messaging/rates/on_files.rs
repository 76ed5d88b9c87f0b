//! `FileRates`: the `RateStore` kept in `.swarm/rate_limits.json`, the
//! sliding window of each sender's recent sends, read and updated under
//! its lock so that the limit holds across processes.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::domain::{AgentId, Timestamp};
use crate::store::{DEFAULT_LOCK_TIMEOUT, Loaded, Paths, StateFile, StoreError};
use crate::support::json::{self, Layout};

use super::rate_store::{RateDecision, RateLimit, RateStore};

#[derive(Debug, Default, Serialize, Deserialize)]
struct Windows {
    version: u32,
    /// Unix seconds of each recent send, oldest first, per sender.
    senders: BTreeMap<String, Vec<f64>>,
}

/// The persisted windows of a project.
#[derive(Clone, Debug)]
pub(crate) struct FileRates {
    file: StateFile,
}

impl FileRates {
    /// The rate-limit state of the project laid out by `paths`.
    pub(crate) fn new(paths: &Paths) -> FileRates {
        FileRates {
            file: StateFile::new(paths.rate_limits()),
        }
    }
}

impl RateStore for FileRates {
    /// A damaged state file is moved aside and counts as empty (the
    /// returned note says so): it only ever holds the last minute.
    fn check_and_record(
        &self,
        sender: &AgentId,
        limit: RateLimit,
        now: Timestamp,
    ) -> Result<(RateDecision, Option<String>), StoreError> {
        let lock = self.file.lock(DEFAULT_LOCK_TIMEOUT)?;
        let mut note = None;
        let mut windows = match self.file.read_json::<Windows>() {
            Ok(Loaded::Valid(w)) => w,
            Ok(Loaded::Missing) => Windows::default(),
            Ok(Loaded::Corrupt(why)) | Err(StoreError::Corrupt { reason: why, .. }) => {
                let aside = self.file.preserve(&lock)?;
                note = Some(format!(
                    "{} was damaged ({why}); moved aside{} and started a new rate window",
                    self.file.path().display(),
                    aside
                        .map(|p| format!(" to {}", p.display()))
                        .unwrap_or_default()
                ));
                Windows::default()
            }
            Err(e) => return Err(e),
        };
        let now_s = now.unix_seconds();
        let window = limit.window.as_secs_f64();
        // Forget every sender's sends that left the window.
        windows.senders.retain(|_, times| {
            times.retain(|t| t.is_finite() && now_s - *t < window);
            !times.is_empty()
        });
        let times = windows.senders.entry(sender.to_string()).or_default();
        let verdict = limit.admit(times, now_s);
        windows.version = 1;
        let bytes =
            json::to_vec(&windows, Layout::Indent2).map_err(|source| StoreError::Encode {
                path: self.file.path().to_owned(),
                source,
            })?;
        self.file.write_unsynced(&lock, &bytes)?;
        Ok((verdict, note))
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::time::Duration;

    use super::*;
    use crate::messaging::rates::rate_store::contract;

    #[test]
    fn contract_limits_each_sender_in_a_sliding_window() {
        let dir = tempfile::tempdir().expect("tempdir");
        contract::limits_each_sender_in_a_sliding_window(&FileRates::new(&Paths::new(dir.path())));
    }

    #[test]
    fn contract_racing_sends_never_exceed_the_limit() {
        let dir = tempfile::tempdir().expect("tempdir");
        contract::racing_sends_never_exceed_the_limit(Arc::new(FileRates::new(&Paths::new(
            dir.path(),
        ))));
    }

    #[test]
    fn damaged_state_is_moved_aside() {
        let dir = tempfile::tempdir().expect("tempdir");
        let paths = Paths::new(dir.path());
        std::fs::create_dir_all(paths.swarm_dir()).expect("mkdir");
        std::fs::write(paths.rate_limits(), "{{{").expect("write");
        let rl = FileRates::new(&paths);
        let limit = RateLimit {
            max: 1,
            window: Duration::from_secs(60),
        };
        let a = AgentId::parse("a").expect("id");
        let (v, note) = rl
            .check_and_record(&a, limit, Timestamp::now())
            .expect("check");
        assert_eq!(v, RateDecision::Allowed);
        assert!(note.expect("note").contains("damaged"));
    }
}
