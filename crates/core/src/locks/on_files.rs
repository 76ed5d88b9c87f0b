//! `FileLocks`: the project's file locks in `.agent_locks/` and every
//! operation on them.
//!
//! Every change (acquire, release, takeover, clean) happens under one
//! lock, the sidecar of `.swarm/lock_index.json`, so checking for
//! conflicts and creating the lock file are one step for all swarm
//! processes: two agents can never both get overlapping locks. Lock files
//! are still created exclusively (a hard link that fails when the name
//! exists), which keeps "one winner" true against the Python tool too,
//! which does not take that lock. Listing and `who` read without any lock
//! and never change anything.
//!
//! A shared lock or a lease keeps its terms beside its lock file, in
//! `.swarm/lock_terms/`, written under the same lock (`lock_dir.rs`).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use crate::store::audit::{AuditEvent, AuditKind, AuditLog};
use crate::store::{DEFAULT_LOCK_TIMEOUT, Loaded, Paths, StateFile, StateLock, StoreError};

use super::conflict::Conflict;
use super::error::LockError;
use super::held_lock::HeldLock;
use super::lock_dir::LockDir;
use super::lock_entry::LockEntry;
use super::lock_events::{lapse_event, lock_event, renew_event};
use super::lock_index::LockIndex;
use super::lock_key::{KeyKind, LockKey, lock_file_name};
use super::lock_plan::{self, Pruned, Release};
use super::lock_record::LockRecord;
use super::lock_request::LockRequest;
use super::lock_store::{
    Acquired, AcquiredLock, CleanReport, LockStore, Related, Released, unix_now,
};

/// How old a damaged lock file must be before `clean` removes it: the
/// Python tool creates a lock file first and writes it afterwards, so a
/// young empty file may be a lock being born.
pub(crate) const DAMAGED_GRACE: Duration = Duration::from_secs(10);

/// The lock directory and the index describing it, as one operation saw
/// them.
struct View {
    index: LockIndex,
    /// The index changed and should be saved (only under the lock).
    dirty: bool,
    /// Every lock file, once something needed them all.
    all: Option<Vec<LockEntry>>,
}

/// The file locks of one project.
#[derive(Clone, Debug)]
pub struct FileLocks {
    root: PathBuf,
    files: LockDir,
    index: StateFile,
    audit: AuditLog,
    stale_after: f64,
}

impl FileLocks {
    /// The locks of the project laid out by `paths`; locks older than
    /// `stale_after` seconds are stale.
    pub fn new(paths: &Paths, stale_after: u32) -> FileLocks {
        FileLocks {
            root: paths.root().to_owned(),
            files: LockDir::new(paths, f64::from(stale_after)),
            index: StateFile::new(paths.lock_index()),
            audit: AuditLog::new(paths),
            stale_after: f64::from(stale_after),
        }
    }

    /// The project root the keys are relative to.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Where the lock file of `key` lives.
    pub fn file_of(&self, key: &LockKey) -> PathBuf {
        self.files.file(&key.file_name())
    }

    /// True when `record` is stale at `now`.
    pub fn is_stale(&self, record: &LockRecord, now: f64) -> bool {
        record.is_stale(now, self.stale_after)
    }

    /// Takes exclusive locks on all of `keys` for `agent`, or on none of
    /// them (`LockStore::acquire` with `LockRequest::exclusive`).
    pub fn acquire(
        &self,
        keys: &[LockKey],
        agent: &str,
        reason: Option<&str>,
        default_reason: &str,
    ) -> Result<Vec<AcquiredLock>, LockError> {
        self.take(keys, &LockRequest::exclusive(agent, reason, default_reason))
    }

    /// Takes locks on all of `keys` as `request` asks, or on none of them:
    /// when a live lock of another agent overlaps any key (and not both
    /// are shared), nothing changes and the error lists every such lock.
    /// The agent's own locks never stand in its way; locking its own lock
    /// again renews its claim with the request's terms; a lock whose
    /// claims have all lapsed is taken over, and lapsed claims of others
    /// are dropped (both recorded first).
    pub(crate) fn take(
        &self,
        keys: &[LockKey],
        request: &LockRequest<'_>,
    ) -> Result<Vec<AcquiredLock>, LockError> {
        let guard = self.index.lock(DEFAULT_LOCK_TIMEOUT)?;
        let now = unix_now();
        let mut view = self.view()?;
        let mut plans = Vec::new();
        let mut conflicts = Vec::new();
        for key in dedup(keys) {
            let related = self.related_in(&mut view, key)?;
            for held in related.others {
                if lock_plan::blocks(&held.record, request, now, self.stale_after) {
                    conflicts.push(self.conflict(key, held, now));
                }
            }
            let exact = match related.exact {
                None => None,
                Some(LockEntry::Damaged { problem, .. }) => {
                    self.save_if_dirty(&guard, &view)?;
                    return Err(self.damaged(key, problem));
                }
                Some(LockEntry::Held(held))
                    if lock_plan::blocks(&held.record, request, now, self.stale_after) =>
                {
                    conflicts.push(self.conflict(key, held, now));
                    continue;
                }
                Some(LockEntry::Held(held)) => Some(held),
            };
            plans.push((key, exact));
        }
        if !conflicts.is_empty() {
            self.save_if_dirty(&guard, &view)?;
            return Err(LockError::Held(conflicts));
        }
        // New files first: if a writer outside swarm wins one of them, the
        // files this call created are removed again before any existing
        // lock was changed.
        plans.sort_by_key(|(_, exact)| exact.is_some());
        let mut done = Vec::new();
        let mut created: Vec<LockEntry> = Vec::new();
        for (key, exact) in plans {
            let taken =
                lock_plan::take(key.as_str(), exact.as_ref(), request, now, self.stale_after);
            let name = key.file_name();
            if exact.is_none() {
                if !self.files.write_new(&guard, &name, &taken.record)? {
                    // A writer that does not take our lock (the Python
                    // tool) won the race: undo this call and report it.
                    for entry in &created {
                        self.files.remove(&guard, entry.file_name())?;
                    }
                    self.save_if_dirty(&guard, &view)?;
                    return Err(self.lost_race(key, now)?);
                }
                created.push(LockEntry::Held(HeldLock::new(
                    name,
                    taken.record.clone(),
                    &self.root,
                )));
            } else {
                // Recorded before it happens: an unrecorded takeover is
                // worse than a record of one that then failed.
                let events: Vec<AuditEvent> = taken
                    .dropped
                    .iter()
                    .map(|h| {
                        lapse_event(
                            AuditKind::StaleTakeover,
                            Some(request.agent),
                            key.as_str(),
                            h,
                        )
                    })
                    .collect();
                self.audit.record(&events)?;
                // Replacing (not remove + create) leaves no moment in
                // which the path looks free.
                self.files.write_over(&guard, &name, &taken.record)?;
            }
            done.push(AcquiredLock {
                record: taken.record,
                how: taken.how,
            });
        }
        for entry in &created {
            view.index.add(entry);
            view.dirty = true;
        }
        self.save_if_dirty(&guard, &view)?;
        Ok(done)
    }

    /// Renews `agent`'s claims on all of `keys` (its own locks, by their
    /// exact paths), or none: each counts from now, for `ttl`, else for
    /// the length of its lease. Refused when the agent holds no live
    /// claim on one of them. Renewed leases are recorded.
    pub(crate) fn renew(
        &self,
        keys: &[LockKey],
        agent: &str,
        ttl: Option<Duration>,
    ) -> Result<Vec<AcquiredLock>, LockError> {
        let guard = self.index.lock(DEFAULT_LOCK_TIMEOUT)?;
        let now = unix_now();
        let mut plans = Vec::new();
        for key in dedup(keys) {
            let exact = match self.files.entry(&key.file_name())? {
                None => None,
                Some(LockEntry::Held(held)) => Some(held),
                Some(LockEntry::Damaged { problem, .. }) => return Err(self.damaged(key, problem)),
            };
            let (record, hold) = lock_plan::renew(
                key.as_str(),
                exact.as_ref(),
                agent,
                ttl,
                now,
                self.stale_after,
            )?;
            plans.push((key, record, hold));
        }
        let events: Vec<AuditEvent> = plans
            .iter()
            .filter(|(_, _, hold)| hold.expires_at.is_some())
            .map(|(key, _, hold)| renew_event(key.as_str(), hold))
            .collect();
        self.audit.record(&events)?;
        let mut done = Vec::new();
        for (key, record, _) in plans {
            self.files.write_over(&guard, &key.file_name(), &record)?;
            done.push(AcquiredLock {
                record,
                how: Acquired::Renewed,
            });
        }
        Ok(done)
    }

    /// Releases `agent`'s locks on `keys`. A lock held by another agent (or
    /// a damaged lock file) is only released with `force`, which is
    /// recorded in the audit log first; without it nothing is released
    /// and the error names the holder.
    pub fn release(
        &self,
        keys: &[LockKey],
        agent: &str,
        force: bool,
    ) -> Result<Vec<(LockKey, Released)>, LockError> {
        let guard = self.index.lock(DEFAULT_LOCK_TIMEOUT)?;
        let mut plans = Vec::new();
        for key in dedup(keys) {
            let plan = match self.files.entry(&key.file_name())? {
                None => Release::Remove(Released::NotLocked),
                Some(LockEntry::Damaged { problem, .. }) if force => {
                    Release::Remove(Released::ForcedDamaged(problem))
                }
                Some(LockEntry::Damaged { problem, .. }) => return Err(self.damaged(key, problem)),
                Some(LockEntry::Held(held)) => lock_plan::release(key, &held, agent, force)?,
            };
            plans.push((key.clone(), plan));
        }
        let events: Vec<AuditEvent> = plans
            .iter()
            .filter_map(|(key, plan)| match plan {
                Release::Remove(Released::Forced(held)) => {
                    Some(lock_event(AuditKind::ForceUnlock, Some(agent), held))
                }
                Release::Remove(Released::ForcedDamaged(problem)) => {
                    let mut e = AuditEvent::new(AuditKind::ForceUnlock, Some(agent));
                    e.path = Some(key.as_str().to_owned());
                    e.detail = Some(format!("damaged lock file: {problem}"));
                    Some(e)
                }
                _ => None,
            })
            .collect();
        self.audit.record(&events)?;
        let mut index = match self.index.read_json::<LockIndex>()? {
            Loaded::Valid(index) => Some(index),
            // Rebuilt by the next operation that needs it.
            Loaded::Missing | Loaded::Corrupt(_) => None,
        };
        let mut changed = false;
        let mut out = Vec::new();
        for (key, plan) in plans {
            let released = match plan {
                Release::Rewrite(record, released) => {
                    self.files.write_over(&guard, &key.file_name(), &record)?;
                    out.push((key, released));
                    continue;
                }
                Release::Remove(released) => released,
            };
            let entry = match &released {
                Released::Removed(held) | Released::Forced(held) => LockEntry::Held(held.clone()),
                Released::ForcedDamaged(problem) => LockEntry::Damaged {
                    file_name: key.file_name(),
                    problem: problem.clone(),
                    modified: None,
                },
                Released::NotLocked | Released::Left(_) => {
                    out.push((key, released));
                    continue;
                }
            };
            if self.files.remove(&guard, entry.file_name())?
                && let Some(index) = index.as_mut()
            {
                index.remove(&entry);
                changed = true;
            }
            out.push((key, released));
        }
        if let Some(index) = index.filter(|_| changed) {
            self.save(&guard, &index)?;
        }
        Ok(out)
    }

    /// The locks related to `key`, read without taking any lock.
    pub fn related(&self, key: &LockKey) -> Result<Related, LockError> {
        let mut view = self.view()?;
        self.related_in(&mut view, key)
    }

    /// The live locks overlapping any of `keys` that stop `agent` (anyone
    /// when `None`) from changing those paths (`lock_plan::edit_blockers`).
    /// Reads without taking any lock.
    pub fn blocking(
        &self,
        keys: &[LockKey],
        agent: Option<&str>,
    ) -> Result<Vec<Conflict>, LockError> {
        let now = unix_now();
        let mut view = self.view()?;
        let mut found = Vec::new();
        for key in dedup(keys) {
            let related = self.related_in(&mut view, key)?;
            let mut locks = related.others;
            if let Some(LockEntry::Held(held)) = related.exact {
                locks.push(held);
            }
            found.extend(lock_plan::edit_blockers(
                key,
                &locks,
                agent,
                now,
                self.stale_after,
            ));
        }
        Ok(found)
    }

    /// Every lock file, valid locks sorted by path, then damaged ones.
    pub fn list(&self) -> Result<Vec<LockEntry>, LockError> {
        let names = self.files.names()?;
        let mut all = self.files.scan(&names)?;
        all.sort_by(|a, b| match (a, b) {
            (LockEntry::Held(x), LockEntry::Held(y)) => x
                .record
                .filepath
                .cmp(&y.record.filepath)
                .then_with(|| x.file_name.cmp(&y.file_name)),
            (LockEntry::Held(_), LockEntry::Damaged { .. }) => std::cmp::Ordering::Less,
            (LockEntry::Damaged { .. }, LockEntry::Held(_)) => std::cmp::Ordering::Greater,
            (x, y) => x.file_name().cmp(y.file_name()),
        });
        Ok(all)
    }

    /// Removes every stale lock (and ended lease), the lapsed claims of
    /// shared locks others still hold, and every damaged lock file older
    /// than `DAMAGED_GRACE`, recording each in the audit log first; and
    /// terms that belong to no lock file.
    pub fn clean(&self, by: Option<&str>) -> Result<CleanReport, LockError> {
        let guard = self.index.lock(DEFAULT_LOCK_TIMEOUT)?;
        let now = unix_now();
        let names = self.files.names()?;
        let all = self.files.scan(&names)?;
        let mut report = CleanReport::default();
        let mut keep = Vec::new();
        let mut rewrite = Vec::new();
        let mut events = Vec::new();
        for entry in all {
            match &entry {
                LockEntry::Held(held) => {
                    match lock_plan::prune(&held.record, now, self.stale_after) {
                        Pruned::Unchanged => keep.push(entry),
                        Pruned::Removed(lapsed) => {
                            events.extend(lapsed.iter().map(|h| {
                                lapse_event(AuditKind::CleanStale, by, &held.record.filepath, h)
                            }));
                            report.stale.push(held.clone());
                        }
                        Pruned::Rewritten(record, lapsed) => {
                            events.extend(lapsed.iter().map(|h| {
                                lapse_event(AuditKind::CleanStale, by, &held.record.filepath, h)
                            }));
                            report.pruned.push(held.clone());
                            let now_held = HeldLock {
                                record,
                                ..held.clone()
                            };
                            rewrite.push(now_held.clone());
                            keep.push(LockEntry::Held(now_held));
                        }
                    }
                }
                LockEntry::Damaged {
                    file_name,
                    problem,
                    modified,
                } => {
                    let young = modified
                        .and_then(|m| SystemTime::now().duration_since(m).ok())
                        .is_some_and(|age| age < DAMAGED_GRACE);
                    if young {
                        report.young_damaged += 1;
                        keep.push(entry);
                        continue;
                    }
                    let mut e = AuditEvent::new(AuditKind::CleanDamaged, by);
                    e.detail = Some(format!("{file_name}: {problem}"));
                    events.push(e);
                    report.damaged.push((file_name.clone(), problem.clone()));
                }
            }
        }
        self.audit.record(&events)?;
        let removed = report
            .stale
            .iter()
            .map(|h| h.file_name.as_str())
            .chain(report.damaged.iter().map(|(name, _)| name.as_str()));
        for name in removed {
            self.files.remove(&guard, name)?;
        }
        for held in &rewrite {
            self.files
                .write_over(&guard, &held.file_name, &held.record)?;
        }
        self.files.tidy(&guard, &keep)?;
        let names: Vec<String> = keep.iter().map(|e| e.file_name().to_owned()).collect();
        self.save(&guard, &LockIndex::rebuild(&names, &keep))?;
        Ok(report)
    }

    /// The index, checked against the directory (index read first, so a
    /// concurrent writer can only make it look older than the directory,
    /// never newer) and rebuilt from the files when it does not match.
    fn view(&self) -> Result<View, LockError> {
        let stored = match self.index.read_json::<LockIndex>()? {
            Loaded::Valid(index) => Some(index),
            Loaded::Missing | Loaded::Corrupt(_) => None,
        };
        let names = self.files.names()?;
        if let Some(index) = stored.filter(|i| i.is_current(&names)) {
            return Ok(View {
                index,
                dirty: false,
                all: None,
            });
        }
        let all = self.files.scan(&names)?;
        let names: Vec<String> = all.iter().map(|e| e.file_name().to_owned()).collect();
        Ok(View {
            index: LockIndex::rebuild(&names, &all),
            dirty: true,
            all: Some(all),
        })
    }

    fn related_in(&self, view: &mut View, key: &LockKey) -> Result<Related, LockError> {
        let exact_name = key.file_name();
        // Patterns, and paths with locks below them, are compared with
        // every lock; anything else is found by hashing plus the index.
        let needs_all = key.kind() == KeyKind::Pattern || view.index.has_locks_below(key.as_str());
        if view.all.is_none() && needs_all {
            let names = self.files.names()?;
            view.all = Some(self.files.scan(&names)?);
        }
        if let Some(all) = &view.all {
            let exact = all.iter().find(|e| e.file_name() == exact_name).cloned();
            let others = all
                .iter()
                .filter_map(|e| match e {
                    LockEntry::Held(h) if h.file_name != exact_name => Some(h),
                    _ => None,
                })
                .filter(|h| h.key.as_ref().is_some_and(|k| k.overlaps(key, &self.root)))
                .cloned()
                .collect();
            return Ok(Related { exact, others });
        }
        let exact = self.files.entry(&exact_name)?;
        let mut seen = BTreeSet::from([exact_name]);
        let mut others = Vec::new();
        let candidates: Vec<String> = key
            .ancestors()
            .map(lock_file_name)
            .chain(view.index.special.keys().cloned())
            .chain(view.index.damaged.iter().cloned())
            .collect();
        for name in candidates {
            if !seen.insert(name.clone()) {
                continue;
            }
            let entry = self.files.entry(&name)?;
            if view.index.damaged.contains(&name)
                && let Some(new @ LockEntry::Held(_)) = &entry
            {
                // The Python tool finished writing a file that was empty
                // when the index last looked.
                let old = LockEntry::Damaged {
                    file_name: name.clone(),
                    problem: String::new(),
                    modified: None,
                };
                view.index.replace(&old, new);
                view.dirty = true;
            }
            if let Some(LockEntry::Held(held)) = entry
                && held
                    .key
                    .as_ref()
                    .is_some_and(|k| k.overlaps(key, &self.root))
            {
                others.push(held);
            }
        }
        Ok(Related { exact, others })
    }

    fn save_if_dirty(&self, guard: &StateLock, view: &View) -> Result<(), LockError> {
        if view.dirty {
            self.save(guard, &view.index)?;
        }
        Ok(())
    }

    fn save(&self, guard: &StateLock, index: &LockIndex) -> Result<(), LockError> {
        let bytes = serde_json::to_vec(index).map_err(|source| StoreError::Encode {
            path: self.index.path().to_owned(),
            source,
        })?;
        // The index is checked against the directory on every use and
        // rebuilt when it does not match, so it need not reach the disk
        // before the command ends.
        self.index.write_unsynced(guard, &bytes)?;
        Ok(())
    }

    fn conflict(&self, key: &LockKey, held: HeldLock, now: f64) -> Conflict {
        Conflict::new(key.as_str(), held, now, self.stale_after)
    }

    fn damaged(&self, key: &LockKey, problem: String) -> LockError {
        LockError::Damaged {
            path: key.as_str().to_owned(),
            file: self.file_of(key),
            problem,
        }
    }

    /// The error for a create that found the name taken.
    fn lost_race(&self, key: &LockKey, now: f64) -> Result<LockError, LockError> {
        Ok(match self.files.entry(&key.file_name())? {
            Some(LockEntry::Held(held)) => LockError::Held(vec![self.conflict(key, held, now)]),
            Some(LockEntry::Damaged { problem, .. }) => self.damaged(key, problem),
            // Created and removed again in between: the path is contested
            // by a process outside swarm; report rather than retry blindly.
            None => LockError::Damaged {
                path: key.as_str().to_owned(),
                file: self.file_of(key),
                problem: "another process created and removed this lock file while swarm was taking it; try again".into(),
            },
        })
    }
}

/// `keys` without repeats, in order.
fn dedup(keys: &[LockKey]) -> Vec<&LockKey> {
    let mut seen = BTreeSet::new();
    keys.iter()
        .filter(|k| seen.insert(k.as_str().to_owned()))
        .collect()
}

impl LockStore for FileLocks {
    fn acquire(
        &self,
        keys: &[LockKey],
        request: &LockRequest<'_>,
    ) -> Result<Vec<AcquiredLock>, LockError> {
        FileLocks::take(self, keys, request)
    }

    fn renew(
        &self,
        keys: &[LockKey],
        agent: &str,
        ttl: Option<Duration>,
    ) -> Result<Vec<AcquiredLock>, LockError> {
        FileLocks::renew(self, keys, agent, ttl)
    }

    fn release(
        &self,
        keys: &[LockKey],
        agent: &str,
        force: bool,
    ) -> Result<Vec<(LockKey, Released)>, LockError> {
        FileLocks::release(self, keys, agent, force)
    }

    fn related(&self, key: &LockKey) -> Result<Related, LockError> {
        FileLocks::related(self, key)
    }

    fn blocking(&self, keys: &[LockKey], agent: Option<&str>) -> Result<Vec<Conflict>, LockError> {
        FileLocks::blocking(self, keys, agent)
    }

    fn list(&self) -> Result<Vec<LockEntry>, LockError> {
        FileLocks::list(self)
    }

    fn clean(&self, by: Option<&str>) -> Result<CleanReport, LockError> {
        FileLocks::clean(self, by)
    }

    fn is_stale(&self, record: &LockRecord, now: f64) -> bool {
        FileLocks::is_stale(self, record, now)
    }

    fn location(&self, key: &LockKey) -> String {
        self.file_of(key).display().to_string()
    }
}

#[cfg(test)]
mod contract_tests {
    use std::sync::Arc;

    use super::*;
    use crate::locks::lock_contract;

    #[test]
    fn file_locks_keep_the_contract() {
        let dir = tempfile::tempdir().expect("tempdir");
        let locks = FileLocks::new(&Paths::new(dir.path()), 300);
        lock_contract::basic_rules(&locks);
        lock_contract::shared_and_exclusive(&locks);
        lock_contract::leases_lapse_and_renewals_hold(&locks);
        let shared: Arc<dyn LockStore> = Arc::new(FileLocks::new(&Paths::new(dir.path()), 300));
        lock_contract::one_winner_per_round(std::slice::from_ref(&shared), 8, 20);
        lock_contract::shared_and_exclusive_racers_never_mix(&[shared], 8, 20);
    }
}
