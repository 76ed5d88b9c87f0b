//! `FileSessions`: the `SessionStore` kept in `.swarm/sessions.json`, each
//! change made under the file's lock.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::store::{DEFAULT_LOCK_TIMEOUT, Paths, StateFile, StateLock, StoreError};

use super::record::{SessionRecord, VERSION};
use super::session_store::SessionStore;

/// What a damaged file's notice ends with.
const SESSIONS_LOST: &str = ", and no session is recorded now (`swarm resume` cannot find the ones it \
     listed; they are in the copy)";

/// The file's shape.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
struct SessionsFile {
    version: u32,
    /// Name -> record.
    #[serde(default)]
    sessions: BTreeMap<String, SessionRecord>,
}

/// The sessions file of a project.
#[derive(Clone, Debug)]
pub(crate) struct FileSessions {
    file: StateFile,
}

impl FileSessions {
    /// The sessions of `paths`'s project.
    pub(crate) fn new(paths: &Paths) -> FileSessions {
        FileSessions {
            file: StateFile::new(paths.sessions()),
        }
    }

    /// The sessions; a damaged file is moved aside, with a notice, on
    /// the first read that finds it.
    fn load(&self) -> Result<SessionsFile, StoreError> {
        self.file.load_or_set_aside(SESSIONS_LOST)
    }

    fn save(&self, lock: &StateLock, data: &SessionsFile) -> Result<(), StoreError> {
        let bytes = serde_json::to_vec_pretty(data).map_err(|e| StoreError::Corrupt {
            path: self.file.path().to_owned(),
            reason: e.to_string(),
        })?;
        self.file.write(lock, &bytes)
    }

    /// Runs `change` on the file under its lock and writes it back when
    /// `change` says it changed something.
    fn change<T>(
        &self,
        change: impl FnOnce(&mut BTreeMap<String, SessionRecord>) -> (T, bool),
    ) -> Result<T, StoreError> {
        let lock = self.file.lock(DEFAULT_LOCK_TIMEOUT)?;
        let mut data: SessionsFile = self.file.load_for_change(&lock, SESSIONS_LOST)?;
        let (out, changed) = change(&mut data.sessions);
        if changed {
            data.version = VERSION;
            self.save(&lock, &data)?;
        }
        Ok(out)
    }
}

impl SessionStore for FileSessions {
    fn list(&self) -> Result<Vec<SessionRecord>, StoreError> {
        Ok(self.load()?.sessions.into_values().collect())
    }

    fn put(&self, session: &SessionRecord) -> Result<(), StoreError> {
        self.change(|all| {
            all.insert(session.name.clone(), session.clone());
            ((), true)
        })
    }

    fn update(
        &self,
        name: &str,
        change: &mut dyn FnMut(&mut SessionRecord),
    ) -> Result<bool, StoreError> {
        self.change(|all| match all.get_mut(name) {
            Some(record) => {
                change(record);
                (true, true)
            }
            None => (false, false),
        })
    }

    fn forget(&self, name: &str) -> Result<bool, StoreError> {
        self.change(|all| {
            let gone = all.remove(name).is_some();
            (gone, gone)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agents::sessions::record::{RecordedState, sample};

    fn record(name: &str) -> SessionRecord {
        sample(name, "swarm-demo")
    }

    #[test]
    fn put_update_forget() {
        let tmp = tempfile::tempdir().expect("test value");
        let store = FileSessions::new(&Paths::new(tmp.path()));
        assert!(store.list().expect("list").is_empty());
        store.put(&record("a")).expect("put");
        store.put(&record("b")).expect("put");
        assert!(
            store
                .update("a", &mut |r| r.state = RecordedState::Stopped)
                .expect("update")
        );
        assert!(!store.update("zz", &mut |_| {}).expect("update"));
        let a = store.get("a").expect("get").expect("a");
        assert_eq!(a.state, RecordedState::Stopped);
        assert!(store.forget("a").expect("forget"));
        assert!(!store.forget("a").expect("forget"));
        let names: Vec<String> = store
            .list()
            .expect("list")
            .into_iter()
            .map(|r| r.name)
            .collect();
        assert_eq!(names, ["b"]);
    }

    #[test]
    fn a_damaged_file_reads_as_empty_and_is_kept_aside() {
        let tmp = tempfile::tempdir().expect("test value");
        let paths = Paths::new(tmp.path());
        std::fs::create_dir_all(paths.swarm_dir()).expect("mkdir");
        std::fs::write(paths.sessions(), b"{not json").expect("write");
        let store = FileSessions::new(&paths);
        assert!(store.list().expect("list").is_empty());
        store.put(&record("a")).expect("put");
        assert_eq!(store.list().expect("list").len(), 1);
    }
}
