//! `SessionStore`: the storage seam for recorded sessions, and the
//! guarantees any place that keeps them must give. `FileSessions`
//! (`on_files.rs`) keeps them in `.swarm/sessions.json`; the Redis store
//! in one hash.

use crate::store::StoreError;

use super::record::SessionRecord;

/// Where recorded sessions are kept.
pub trait SessionStore: Send + Sync {
    /// Every recorded session, by name. A damaged store reads as empty
    /// (what was there is kept aside, never silently overwritten).
    fn list(&self) -> Result<Vec<SessionRecord>, StoreError>;

    /// The session called `name`, if recorded.
    fn get(&self, name: &str) -> Result<Option<SessionRecord>, StoreError> {
        Ok(self.list()?.into_iter().find(|s| s.name == name))
    }

    /// Records `session`, replacing any record of the same name, in one
    /// atomic step.
    fn put(&self, session: &SessionRecord) -> Result<(), StoreError>;

    /// Changes the record called `name` in one atomic step (no other
    /// change of it can come between the read and the write); false when
    /// there is none.
    fn update(
        &self,
        name: &str,
        change: &mut dyn FnMut(&mut SessionRecord),
    ) -> Result<bool, StoreError>;

    /// Drops the record called `name`; false when there was none.
    fn forget(&self, name: &str) -> Result<bool, StoreError>;
}
