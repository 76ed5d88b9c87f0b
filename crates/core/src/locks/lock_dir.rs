//! `LockDir`: the lock files of `.agent_locks/` together with their terms
//! in `.swarm/lock_terms/` (`lock_terms.rs`): a lock is read as its file
//! joined with the terms that belong to it, and written as both, terms
//! first, so that a reader between the two writes sees the old lock file
//! alone, which is never less strict than the lock it was. Writing needs
//! the lock directory's lock (the caller's guard).

use std::collections::BTreeSet;
use std::path::PathBuf;

use crate::store::{Paths, StateDir, StateLock, StoreError};
use crate::support::json::{self, Layout};

use super::error::LockError;
use super::held_lock::HeldLock;
use super::lock_entry::LockEntry;
use super::lock_record::LockRecord;
use super::lock_terms::{self, LockTerms, terms_name};

/// The lock files of one project and their terms.
#[derive(Clone, Debug)]
pub(super) struct LockDir {
    root: PathBuf,
    dir: StateDir,
    terms: StateDir,
    /// The stale timeout the Python tool applies (lock files of leases
    /// and shared locks are written to go stale when they end).
    stale_after: f64,
}

impl LockDir {
    /// The lock files of the project laid out by `paths`.
    pub(super) fn new(paths: &Paths, stale_after: f64) -> LockDir {
        LockDir {
            root: paths.root().to_owned(),
            dir: StateDir::new(paths.locks_dir()),
            terms: StateDir::new(paths.lock_terms_dir()),
            stale_after,
        }
    }

    /// Where the lock file `name` lives.
    pub(super) fn file(&self, name: &str) -> PathBuf {
        self.dir.file(name)
    }

    /// The names of the lock files (`*.lock`), in directory order.
    pub(super) fn names(&self) -> Result<Vec<String>, LockError> {
        Ok(self.dir.names(".lock")?)
    }

    /// Reads one lock file, with its terms: `None` when it does not exist.
    pub(super) fn entry(&self, name: &str) -> Result<Option<LockEntry>, LockError> {
        self.entry_with(name, None)
    }

    /// Reads one lock file; its terms only when `with_terms` (the names
    /// in the terms directory, when known) has them.
    fn entry_with(
        &self,
        name: &str,
        with_terms: Option<&BTreeSet<String>>,
    ) -> Result<Option<LockEntry>, LockError> {
        let damaged = |problem: String| LockEntry::Damaged {
            file_name: name.to_owned(),
            problem,
            modified: self.dir.modified(name),
        };
        Ok(match self.dir.read(name) {
            Ok(None) => None,
            Ok(Some(bytes)) => Some(match LockRecord::parse(&bytes, name) {
                Ok(file) => {
                    // Only the terms say what the Python shape cannot.
                    let file = LockRecord {
                        expires_at: None,
                        shared: false,
                        sharers: Vec::new(),
                        ..file
                    };
                    let tname = terms_name(name);
                    let terms = match with_terms {
                        Some(known) if !known.contains(&tname) => None,
                        _ => self.read_terms(&tname),
                    };
                    let record = lock_terms::join(file, terms);
                    LockEntry::Held(HeldLock::new(name.to_owned(), record, &self.root))
                }
                Err(problem) => damaged(problem),
            }),
            Err(StoreError::Corrupt { reason, .. }) => Some(damaged(reason)),
            // Something else in the directory's place must not make every
            // listing fail.
            Err(StoreError::Read { source, .. }) if source.raw_os_error() == Some(libc::EISDIR) => {
                Some(damaged("it is a directory".into()))
            }
            Err(e) => return Err(e.into()),
        })
    }

    /// Reads every named lock file (those that vanished meanwhile are
    /// skipped).
    pub(super) fn scan(&self, names: &[String]) -> Result<Vec<LockEntry>, LockError> {
        let terms: BTreeSet<String> = self.terms.names(".json")?.into_iter().collect();
        let mut all = Vec::with_capacity(names.len());
        for name in names {
            if let Some(entry) = self.entry_with(name, Some(&terms))? {
                all.push(entry);
            }
        }
        Ok(all)
    }

    /// The terms called `name`, when they exist and parse (terms that do
    /// not are ignored: the lock file alone is then the lock).
    fn read_terms(&self, name: &str) -> Option<LockTerms> {
        let bytes = self.terms.read(name).ok()??;
        serde_json::from_slice(&bytes).ok()
    }

    /// Creates the lock file `name` for `record` (terms first) unless the
    /// name exists: `Ok(true)` when this call created it.
    pub(super) fn write_new(
        &self,
        guard: &StateLock,
        name: &str,
        record: &LockRecord,
    ) -> Result<bool, LockError> {
        let (file, terms) = lock_terms::split(record, self.stale_after);
        let tname = terms_name(name);
        if let Some(terms) = &terms {
            self.terms
                .replace(guard, &tname, &self.encode_terms(terms)?)?;
        }
        let created = self.dir.create_new(name, &file.to_bytes())?;
        if !created || terms.is_none() {
            // Terms left by a lock file the Python tool replaced, or ours
            // for a file another writer won: they belong to nothing now.
            self.terms.remove(guard, &tname)?;
        }
        Ok(created)
    }

    /// Replaces the lock file `name` with `record`: new terms first, then
    /// the file; terms no longer needed go after it.
    pub(super) fn write_over(
        &self,
        guard: &StateLock,
        name: &str,
        record: &LockRecord,
    ) -> Result<(), LockError> {
        let (file, terms) = lock_terms::split(record, self.stale_after);
        let tname = terms_name(name);
        if let Some(terms) = &terms {
            self.terms
                .replace(guard, &tname, &self.encode_terms(terms)?)?;
        }
        self.dir.replace(guard, name, &file.to_bytes())?;
        if terms.is_none() {
            self.terms.remove(guard, &tname)?;
        }
        Ok(())
    }

    /// Removes the lock file `name`, then its terms: `Ok(true)` when the
    /// file was there.
    pub(super) fn remove(&self, guard: &StateLock, name: &str) -> Result<bool, LockError> {
        let removed = self.dir.remove(guard, name)?;
        self.terms.remove(guard, &terms_name(name))?;
        Ok(removed)
    }

    /// The terms as they are stored (one line).
    fn encode_terms(&self, terms: &LockTerms) -> Result<Vec<u8>, LockError> {
        json::to_vec(terms, Layout::Line).map_err(|source| {
            LockError::Store(StoreError::Encode {
                path: self.terms.path().to_owned(),
                source,
            })
        })
    }

    /// Removes the terms of every lock file not among the live ones in
    /// `keep` that need them (terms whose lock file is gone, or says
    /// something else now), and the temp files a crashed writer left.
    pub(super) fn tidy(&self, guard: &StateLock, keep: &[LockEntry]) -> Result<(), LockError> {
        let needed: BTreeSet<String> = keep
            .iter()
            .filter_map(|e| match e {
                LockEntry::Held(h) if h.record.shared || h.record.has_lease() => {
                    Some(terms_name(&h.file_name))
                }
                _ => None,
            })
            .collect();
        for name in self.terms.names(".json")? {
            if !needed.contains(&name) {
                self.terms.remove(guard, &name)?;
            }
        }
        self.dir.remove_temps(guard)?;
        self.terms.remove_temps(guard)?;
        Ok(())
    }
}
