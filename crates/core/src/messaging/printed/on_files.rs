//! `FilePrinted`: the `PrintedStore` kept in `.swarm/printed.json`, per
//! agent the keys of its lines already sent, oldest first, every claim
//! made under the file's lock so that of racing watchers exactly one
//! claims a line.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::messaging::printed::printed_store::{KEPT_PER_AGENT, PrintedStore};
use crate::store::{DEFAULT_LOCK_TIMEOUT, Paths, StateFile, StateLock, StoreError};

/// Version of the file's shape.
const VERSION: u32 = 1;

/// What a damaged file's notice ends with.
const PRINTED_LOST: &str = ", and a line still on an agent's screen may be sent again";

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
struct PrintedFile {
    version: u32,
    /// agent -> the keys of its lines sent, oldest first.
    #[serde(default)]
    agents: BTreeMap<String, Vec<String>>,
}

/// The print-to-send claims of a project.
#[derive(Clone, Debug)]
pub(crate) struct FilePrinted {
    file: StateFile,
}

impl FilePrinted {
    /// The claims of `paths`'s project.
    pub(crate) fn new(paths: &Paths) -> FilePrinted {
        FilePrinted {
            file: StateFile::new(paths.printed()),
        }
    }

    /// The claims; a damaged file is moved aside, with a notice, on the
    /// first read that finds it, and the claims start afresh: a line
    /// still on screen may then be sent again, never lost.
    fn load(&self) -> Result<PrintedFile, StoreError> {
        self.file.load_or_set_aside(PRINTED_LOST)
    }

    fn save(&self, lock: &StateLock, data: &PrintedFile) -> Result<(), StoreError> {
        let bytes = serde_json::to_vec_pretty(data).map_err(|e| StoreError::Corrupt {
            path: self.file.path().to_owned(),
            reason: e.to_string(),
        })?;
        self.file.write_unsynced(lock, &bytes)
    }
}

impl PrintedStore for FilePrinted {
    fn claim(&self, agent: &str, key: &str) -> Result<bool, StoreError> {
        let claimed = |d: &PrintedFile| {
            d.agents
                .get(agent)
                .is_some_and(|k| k.iter().any(|k| k == key))
        };
        // Most lines read were sent rounds ago: answer those without the
        // lock.
        if claimed(&self.load()?) {
            return Ok(false);
        }
        let lock = self.file.lock(DEFAULT_LOCK_TIMEOUT)?;
        let mut data: PrintedFile = self.file.load_for_change(&lock, PRINTED_LOST)?;
        if claimed(&data) {
            return Ok(false);
        }
        data.version = VERSION;
        let keys = data.agents.entry(agent.to_owned()).or_default();
        keys.push(key.to_owned());
        let over = keys.len().saturating_sub(KEPT_PER_AGENT);
        keys.drain(..over);
        self.save(&lock, &data)?;
        Ok(true)
    }

    fn forget(&self, agents: &[String]) -> Result<(), StoreError> {
        let current = self.load()?;
        if !agents.iter().any(|a| current.agents.contains_key(a)) {
            return Ok(());
        }
        let lock = self.file.lock(DEFAULT_LOCK_TIMEOUT)?;
        let mut data: PrintedFile = self.file.load_for_change(&lock, PRINTED_LOST)?;
        data.version = VERSION;
        for a in agents {
            data.agents.remove(a);
        }
        self.save(&lock, &data)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::messaging::printed::printed_store::contract;

    #[test]
    fn of_racing_watchers_one_claims_each_line() {
        let dir = tempfile::tempdir().expect("tempdir");
        let paths = Paths::new(dir.path());
        std::fs::create_dir_all(paths.swarm_dir()).expect("mkdir");
        contract::each_line_is_claimed_once(|| Box::new(FilePrinted::new(&paths)));
    }
}
