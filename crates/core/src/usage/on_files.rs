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
        let before = (note.is_none() && ledger.version == LEDGER_VERSION).then(|| ledger.clone());
        let out = change(&mut ledger);
        // A look that found nothing new (a monitor's every few seconds)
        // writes nothing.
        if before.as_ref() == Some(&ledger) {
            return Ok((out, note));
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_look_that_changes_nothing_writes_nothing() {
        let dir = tempfile::tempdir().expect("tempdir");
        let paths = Paths::new(dir.path());
        let file = LedgerFile::new(&paths);
        file.update(|l| {
            l.agents.entry("agent-1".into()).or_default().session_start = Some(5);
        })
        .expect("update");
        // The same ledger, written by hand on one line.
        let one_line = r#"{"version":1,"files":{},"retired":[],"agents":{"agent-1":{"reset_base":{},"reset_base_cost":0.0,"session_start":5}},"elsewhere":{}}"#;
        std::fs::write(paths.usage(), one_line).expect("write");
        let ((), note) = file.update(|_| {}).expect("update");
        assert_eq!(note, None);
        assert_eq!(
            std::fs::read_to_string(paths.usage()).expect("read"),
            one_line
        );
        // A change is written.
        file.update(|l| {
            l.agents.entry("agent-2".into()).or_default();
        })
        .expect("update");
        let now = std::fs::read_to_string(paths.usage()).expect("read");
        assert!(now.contains("agent-2"), "{now}");
    }
}
