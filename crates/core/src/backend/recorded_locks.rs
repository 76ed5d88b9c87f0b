//! `RecordedLocks`: any `LockStore` with its changes written to the
//! activity feed. Every front door (a command, the MCP server, the
//! dashboard, `down`) takes and releases locks through the backend, so
//! wrapping the store there records a lock taken, released or forced
//! whoever did it. Stale locks the watcher removes are recorded by the
//! watcher (`lock_expired`). A feed that cannot be written never fails
//! the lock change itself: the lock is the state, the feed its story. It
//! is said, as a notice (`store::notices`), since a lock store's answers
//! carry no warnings.

use std::sync::Arc;
use std::time::Duration;

use crate::attention::event::{EventKind, FeedEntry};
use crate::attention::feed::feed_store::FeedStore;
use crate::locks::{
    Acquired, AcquiredLock, CleanReport, LockError, LockKey, LockRecord, LockRequest, LockStore,
    Related, Released,
};
use crate::locks::{Conflict, LockEntry};

/// A lock store whose changes go to the feed too.
pub(crate) struct RecordedLocks {
    inner: Box<dyn LockStore>,
    feed: Arc<dyn FeedStore>,
}

impl RecordedLocks {
    /// `inner`, recording into `feed`.
    pub(crate) fn new(inner: Box<dyn LockStore>, feed: Arc<dyn FeedStore>) -> RecordedLocks {
        RecordedLocks { inner, feed }
    }

    fn record(&self, entries: &[FeedEntry]) {
        if !entries.is_empty()
            && let Err(e) = self.feed.append(entries)
        {
            crate::store::notices::report(format!("could not write the activity feed: {e}"));
        }
    }
}

impl LockStore for RecordedLocks {
    fn acquire(
        &self,
        keys: &[LockKey],
        request: &LockRequest<'_>,
    ) -> Result<Vec<AcquiredLock>, LockError> {
        let got = self.inner.acquire(keys, request)?;
        let entries: Vec<FeedEntry> = got
            .iter()
            .filter(|a| {
                matches!(
                    a.how,
                    Acquired::Created | Acquired::Joined | Acquired::TookOver(_)
                )
            })
            .map(|a| {
                FeedEntry::new(
                    EventKind::LockTaken,
                    Some(request.agent),
                    a.record.filepath.clone(),
                )
            })
            .collect();
        self.record(&entries);
        Ok(got)
    }

    fn renew(
        &self,
        keys: &[LockKey],
        agent: &str,
        ttl: Option<Duration>,
    ) -> Result<Vec<AcquiredLock>, LockError> {
        self.inner.renew(keys, agent, ttl)
    }

    fn release(
        &self,
        keys: &[LockKey],
        agent: &str,
        force: bool,
    ) -> Result<Vec<(LockKey, Released)>, LockError> {
        let done = self.inner.release(keys, agent, force)?;
        let entries: Vec<FeedEntry> = done
            .iter()
            .filter_map(|(_, how)| match how {
                Released::Removed(held) | Released::Left(held) => Some(FeedEntry::new(
                    EventKind::LockReleased,
                    Some(agent),
                    held.record.filepath.clone(),
                )),
                Released::Forced(held) => Some(
                    FeedEntry::new(
                        EventKind::LockForced,
                        Some(&held.record.agent_id),
                        held.record.filepath.clone(),
                    )
                    .by(agent),
                ),
                Released::ForcedDamaged(name) => {
                    Some(FeedEntry::new(EventKind::LockForced, None, name.clone()).by(agent))
                }
                Released::NotLocked => None,
            })
            .collect();
        self.record(&entries);
        Ok(done)
    }

    fn related(&self, key: &LockKey) -> Result<Related, LockError> {
        self.inner.related(key)
    }

    fn blocking(&self, keys: &[LockKey], agent: Option<&str>) -> Result<Vec<Conflict>, LockError> {
        self.inner.blocking(keys, agent)
    }

    fn list(&self) -> Result<Vec<LockEntry>, LockError> {
        self.inner.list()
    }

    fn clean(&self, by: Option<&str>) -> Result<CleanReport, LockError> {
        self.inner.clean(by)
    }

    fn is_stale(&self, record: &LockRecord, now: f64) -> bool {
        self.inner.is_stale(record, now)
    }

    fn location(&self, key: &LockKey) -> String {
        self.inner.location(key)
    }
}
