//! `Records`: one A2A collection seen as typed records (`Entries<T>`)
//! over any `A2aStore`. Records it cannot read are kept as found and
//! named in the notes; a damaged collection reads as empty.

use super::a2a_store::{A2aStore, Collection, Stored};
use super::entries::{Entries, Record};
use super::error::{A2aError, Result};

/// One collection of a store, typed on use.
#[derive(Clone, Copy)]
pub(crate) struct Records<'a> {
    store: &'a dyn A2aStore,
    which: Collection,
}

impl std::fmt::Debug for Records<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Records")
            .field("which", &self.which)
            .finish_non_exhaustive()
    }
}

impl<'a> Records<'a> {
    /// The collection `which` of `store`.
    pub(crate) fn new(store: &'a dyn A2aStore, which: Collection) -> Records<'a> {
        Records { store, which }
    }

    /// Where it lives, for messages.
    pub(crate) fn location(&self) -> String {
        self.store.location(self.which)
    }

    /// The records. A damaged collection reads as empty; `notes` says so,
    /// and names every record that could not be read.
    pub(crate) fn read<T: Record>(&self, notes: &mut Vec<String>) -> Result<Entries<T>> {
        match self.store.read(self.which)? {
            Stored::Damaged(why) => {
                notes.push(format!(
                    "{} is damaged ({why}); reading it as empty",
                    self.location()
                ));
                Ok(Entries::empty(self.which.keyed()))
            }
            stored => {
                let (entries, problems) = self.entries::<T>(stored)?;
                self.note_problems(notes, &problems, "skipped");
                Ok(entries)
            }
        }
    }

    /// Reads the records under the store's exclusion (see
    /// `A2aStore::update`), lets `change` modify them and stores them when
    /// it succeeds; nothing is stored when it fails.
    pub(crate) fn update<T: Record, R>(
        &self,
        notes: &mut Vec<String>,
        change: impl FnOnce(&mut Entries<T>) -> Result<R>,
    ) -> Result<R> {
        let mut change = Some(change);
        let mut out = None;
        let mut problems = Vec::new();
        self.store.update(self.which, notes, &mut |stored| {
            let mut entries = match stored {
                Stored::Damaged(_) => Entries::empty(self.which.keyed()),
                stored => {
                    let (entries, found) = self.entries::<T>(stored)?;
                    problems = found;
                    entries
                }
            };
            let change = change
                .take()
                .ok_or_else(|| A2aError::Invalid("the store ran one change twice".into()))?;
            out = Some(change(&mut entries)?);
            let value = entries
                .to_value()
                .map_err(|e| A2aError::Invalid(format!("could not encode the records: {e}")))?;
            Ok(Some(value))
        })?;
        self.note_problems(notes, &problems, "kept as it is");
        out.ok_or_else(|| A2aError::Invalid("the store skipped the change".into()))
    }

    fn entries<T: Record>(&self, stored: Stored) -> Result<(Entries<T>, Vec<String>)> {
        let keyed = self.which.keyed();
        match stored {
            Stored::Records(value) => Entries::from_value(keyed, value)
                .map_err(|why| A2aError::Invalid(format!("{}: {why}", self.location()))),
            Stored::Missing | Stored::Damaged(_) => Ok((Entries::empty(keyed), Vec::new())),
        }
    }

    fn note_problems(&self, notes: &mut Vec<String>, problems: &[String], fate: &str) {
        for p in problems {
            notes.push(format!("{}: {p} (the record was {fate})", self.location()));
        }
    }
}
