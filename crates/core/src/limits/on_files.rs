//! `FileLimits`: the `LimitStore` kept in `.swarm/limits.json`, each change
//! made under the file's lock. A missing file means no login is at its
//! limit, so the check before a delivery costs one failed `open`.

use serde::{Deserialize, Serialize};

use crate::store::{DEFAULT_LOCK_TIMEOUT, Paths, StateFile, StateLock, StoreError};

use super::limit_store::{LimitStore, Limits};

/// Version of the file's shape.
const VERSION: u32 = 1;

/// What a damaged file's notice ends with.
const LIMITS_LOST: &str = ", and no login is at its usage limit now until one is seen again";

/// The file's shape.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
struct LimitsFile {
    version: u32,
    #[serde(flatten)]
    limits: Limits,
}

/// The limits file of a project.
#[derive(Clone, Debug)]
pub(crate) struct FileLimits {
    file: StateFile,
}

impl FileLimits {
    /// The limits of `paths`'s project.
    pub(crate) fn new(paths: &Paths) -> FileLimits {
        FileLimits {
            file: StateFile::new(paths.limits()),
        }
    }

    /// The limits; a damaged file is moved aside, with a notice, on the
    /// first read that finds it.
    fn load(&self) -> Result<Limits, StoreError> {
        Ok(self
            .file
            .load_or_set_aside::<LimitsFile>(LIMITS_LOST)?
            .limits)
    }

    fn save(&self, lock: &StateLock, limits: &Limits) -> Result<(), StoreError> {
        let data = LimitsFile {
            version: VERSION,
            limits: limits.clone(),
        };
        let bytes = serde_json::to_vec_pretty(&data).map_err(|e| StoreError::Corrupt {
            path: self.file.path().to_owned(),
            reason: e.to_string(),
        })?;
        self.file.write(lock, &bytes)
    }
}

impl LimitStore for FileLimits {
    fn read(&self) -> Result<Limits, StoreError> {
        self.load()
    }

    fn update(&self, change: &mut dyn FnMut(&mut Limits) -> bool) -> Result<bool, StoreError> {
        let lock = self.file.lock(DEFAULT_LOCK_TIMEOUT)?;
        let mut limits = self
            .file
            .load_for_change::<LimitsFile>(&lock, LIMITS_LOST)?
            .limits;
        let changed = change(&mut limits);
        if changed {
            self.save(&lock, &limits)?;
        }
        Ok(changed)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::limits::limit_store::contract;

    fn store() -> (tempfile::TempDir, FileLimits) {
        let dir = tempfile::tempdir().expect("tempdir");
        let paths = Paths::new(dir.path());
        std::fs::create_dir_all(paths.swarm_dir()).expect("mkdir");
        let store = FileLimits::new(&paths);
        (dir, store)
    }

    #[test]
    fn contract_keeps_what_it_is_given() {
        let (_dir, store) = store();
        contract::keeps_what_it_is_given(&store);
    }

    #[test]
    fn contract_no_change_is_lost() {
        let (_dir, store) = store();
        contract::no_change_is_lost(Arc::new(store));
    }

    #[test]
    fn a_damaged_file_reads_as_no_limits() {
        let (dir, store) = store();
        std::fs::write(dir.path().join(".swarm/limits.json"), "{not json").expect("write");
        assert!(store.read().expect("read").is_empty());
    }
}
