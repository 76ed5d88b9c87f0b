//! The ledger's file, `.swarm/usage.json`: read and changed under its
//! lock, so that two commands reading the same records at once do not
//! count them twice. A damaged ledger is moved aside and read again from
//! the agents' records, which costs one full read and loses only the
//! budget periods' resets.

use crate::store::{DEFAULT_LOCK_TIMEOUT, Loaded, Paths, StateFile, StoreError};
use crate::support::json::{self, Layout};

use super::ledger::{LEDGER_VERSION, Ledger};

/// The usage ledger of one project (on this host: the records it reads
/// are this host's files).
#[derive(Clone, Debug)]
pub(crate) struct LedgerFile {
    file: StateFile,
}

impl LedgerFile {
    /// The ledger of the project laid out by `paths`.
    pub(crate) fn new(paths: &Paths) -> LedgerFile {
        LedgerFile {
            file: StateFile::new(paths.usage()),
        }
    }

    /// Runs `change` on the ledger under its lock and stores the result.
    /// Returns what `change` returned, and a note when the stored ledger
    /// was damaged and moved aside.
    pub(crate) fn update<T>(
        &self,
        change: impl FnOnce(&mut Ledger) -> T,
    ) -> Result<(T, Option<String>), StoreError> {
        let lock = self.file.lock(DEFAULT_LOCK_TIMEOUT)?;
        let mut note = None;
        let mut ledger = match self.file.read_json::<Ledger>() {
            Ok(Loaded::Valid(l)) => l,
            Ok(Loaded::Missing) => Ledger::default(),
            Ok(Loaded::Corrupt(why)) | Err(StoreError::Corrupt { reason: why, .. }) => {
                let aside = self.file.preserve(&lock)?;
                note = Some(format!(
                    "{} was damaged ({why}); moved aside{} and read the agents' records again",
                    self.file.path().display(),
                    aside
                        .map(|p| format!(" to {}", p.display()))
                        .unwrap_or_default()
                ));
                Ledger::default()
            }
            Err(e) => return Err(e),
        };
        let out = change(&mut ledger);
        ledger.version = LEDGER_VERSION;
        let bytes =
            json::to_vec(&ledger, Layout::Indent2).map_err(|source| StoreError::Encode {
                path: self.file.path().to_owned(),
                source,
            })?;
        // Cheap to lose: the records it was read from are still there.
        self.file.write_unsynced(&lock, &bytes)?;
        Ok((out, note))
    }
}
