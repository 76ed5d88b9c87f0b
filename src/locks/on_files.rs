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

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use crate::store::audit::{AuditEvent, AuditKind, AuditLog};
use crate::store::{
    DEFAULT_LOCK_TIMEOUT, Loaded, Paths, StateDir, StateFile, StateLock, StoreError,
};

use super::conflict::Conflict;
use super::error::LockError;
use super::held_lock::HeldLock;
use super::lock_entry::LockEntry;
use super::lock_index::LockIndex;
use super::lock_key::{KeyKind, LockKey, lock_file_name};
use super::lock_record::LockRecord;
use super::lock_store::{Acquired, AcquiredLock, CleanReport, LockStore, Related, Released, now};

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
    dir: StateDir,
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
            dir: StateDir::new(paths.locks_dir()),
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
        self.dir.file(&key.file_name())
    }

    /// True when `record` is stale at `now`.
    pub fn is_stale(&self, record: &LockRecord, now: f64) -> bool {
        record.is_stale(now, self.stale_after)
    }

    /// Takes locks on all of `keys` for `agent`, or on none of them: when
    /// another agent's live lock overlaps any key, nothing changes and
    /// the error lists every such lock. The agent's own locks never stand
    /// in its way; re-locking its own lock refreshes it (keeping its
    /// reason unless `reason` gives a new one); another agent's stale lock
    /// on the same key is taken over (and recorded). New locks without a
    /// `reason` get `default_reason`.
    pub fn acquire(
        &self,
        keys: &[LockKey],
        agent: &str,
        reason: Option<&str>,
        default_reason: &str,
    ) -> Result<Vec<AcquiredLock>, LockError> {
        enum Plan {
            Create,
            Refresh(HeldLock),
            TakeOver(HeldLock),
        }
        let guard = self.index.lock(DEFAULT_LOCK_TIMEOUT)?;
        let now = now();
        let mut view = self.view()?;
        let mut plans = Vec::new();
        let mut conflicts = Vec::new();
        for key in dedup(keys) {
            let related = self.related_in(&mut view, key)?;
            for held in related.others {
                if held.record.agent_id != agent && !self.is_stale(&held.record, now) {
                    conflicts.push(self.conflict(key, held, now));
                }
            }
            let plan = match related.exact {
                None => Plan::Create,
                Some(LockEntry::Damaged { problem, .. }) => {
                    self.save_if_dirty(&guard, &view)?;
                    return Err(self.damaged(key, problem));
                }
                Some(LockEntry::Held(held)) if held.record.agent_id == agent => Plan::Refresh(held),
                Some(LockEntry::Held(held)) if self.is_stale(&held.record, now) => {
                    Plan::TakeOver(held)
                }
                Some(LockEntry::Held(held)) => {
                    conflicts.push(self.conflict(key, held, now));
                    continue;
                }
            };
            plans.push((key, plan));
        }
        if !conflicts.is_empty() {
            self.save_if_dirty(&guard, &view)?;
            return Err(LockError::Held(conflicts));
        }
        // New files first: if a writer outside swarm wins one of them, the
        // files this call created are removed again before any existing
        // lock was refreshed or taken over.
        plans.sort_by_key(|(_, plan)| !matches!(plan, Plan::Create));
        let mut done = Vec::new();
        let mut created: Vec<LockEntry> = Vec::new();
        for (key, plan) in plans {
            let reason = match (&plan, reason) {
                (_, Some(reason)) => reason,
                (Plan::Refresh(old), None) => old.record.reason.as_str(),
                (_, None) => default_reason,
            };
            let record = LockRecord {
                agent_id: agent.to_owned(),
                filepath: key.as_str().to_owned(),
                locked_at: now,
                reason: reason.to_owned(),
                fence: None,
                host: None,
            };
            let name = key.file_name();
            let how = match plan {
                Plan::Create => {
                    if !self.dir.create_new(&name, &record.to_bytes())? {
                        // A writer that does not take our lock (the Python
                        // tool) won the race: undo this call and report it.
                        for entry in &created {
                            self.dir.remove(&guard, entry.file_name())?;
                        }
                        self.save_if_dirty(&guard, &view)?;
                        return Err(self.lost_race(key, now)?);
                    }
                    created.push(LockEntry::Held(HeldLock::new(
                        name,
                        record.clone(),
                        &self.root,
                    )));
                    Acquired::Created
                }
                Plan::Refresh(_) => {
                    self.dir.replace(&guard, &name, &record.to_bytes())?;
                    Acquired::Refreshed
                }
                Plan::TakeOver(old) => {
                    // Recorded before it happens: an unrecorded takeover
                    // is worse than a record of one that then failed.
                    self.audit.record(&[self.event(
                        AuditKind::StaleTakeover,
                        Some(agent),
                        &old,
                    )])?;
                    // Replacing (not remove + create) leaves no moment
                    // in which the path looks free.
                    self.dir.replace(&guard, &name, &record.to_bytes())?;
                    Acquired::TookOver(Box::new(old))
                }
            };
            done.push(AcquiredLock { record, how });
        }
        for entry in &created {
            view.index.add(entry);
            view.dirty = true;
        }
        self.save_if_dirty(&guard, &view)?;
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
            let plan = match self.entry(&key.file_name())? {
                None => Released::NotLocked,
                Some(LockEntry::Damaged { problem, .. }) if force => {
                    Released::ForcedDamaged(problem)
                }
                Some(LockEntry::Damaged { problem, .. }) => return Err(self.damaged(key, problem)),
                Some(LockEntry::Held(held)) if held.record.agent_id == agent => {
                    Released::Removed(held)
                }
                Some(LockEntry::Held(held)) if force => Released::Forced(held),
                Some(LockEntry::Held(held)) => {
                    return Err(LockError::NotHolder {
                        path: key.as_str().to_owned(),
                        holder: held.record.agent_id,
                        agent: agent.to_owned(),
                    });
                }
            };
            plans.push((key.clone(), plan));
        }
        let events: Vec<AuditEvent> = plans
            .iter()
            .filter_map(|(key, plan)| match plan {
                Released::Forced(held) => {
                    Some(self.event(AuditKind::ForceUnlock, Some(agent), held))
                }
                Released::ForcedDamaged(problem) => {
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
        for (key, plan) in &plans {
            let entry = match plan {
                Released::Removed(held) | Released::Forced(held) => LockEntry::Held(held.clone()),
                Released::ForcedDamaged(problem) => LockEntry::Damaged {
                    file_name: key.file_name(),
                    problem: problem.clone(),
                    modified: None,
                },
                Released::NotLocked => continue,
            };
            if self.dir.remove(&guard, entry.file_name())?
                && let Some(index) = index.as_mut()
            {
                index.remove(&entry);
                changed = true;
            }
        }
        if let Some(index) = index.filter(|_| changed) {
            self.save(&guard, &index)?;
        }
        Ok(plans)
    }

    /// The locks related to `key`, read without taking any lock.
    pub fn related(&self, key: &LockKey) -> Result<Related, LockError> {
        let mut view = self.view()?;
        self.related_in(&mut view, key)
    }

    /// Live locks of agents other than `agent` (all agents when `None`)
    /// that overlap any of `keys`: what would stop `agent` from locking
    /// them. Reads without taking any lock.
    pub fn blocking(
        &self,
        keys: &[LockKey],
        agent: Option<&str>,
    ) -> Result<Vec<Conflict>, LockError> {
        let now = now();
        let mut view = self.view()?;
        let mut found = Vec::new();
        for key in dedup(keys) {
            let related = self.related_in(&mut view, key)?;
            let exact = match related.exact {
                Some(LockEntry::Held(held)) => Some(held),
                _ => None,
            };
            found.extend(
                exact
                    .into_iter()
                    .chain(related.others)
                    .filter(|h| {
                        Some(h.record.agent_id.as_str()) != agent && !self.is_stale(&h.record, now)
                    })
                    .map(|h| self.conflict(key, h, now)),
            );
        }
        Ok(found)
    }

    /// Every lock file, valid locks sorted by path, then damaged ones.
    pub fn list(&self) -> Result<Vec<LockEntry>, LockError> {
        let names = self.dir.names(".lock")?;
        let mut all = self.scan(&names)?;
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

    /// Removes every stale lock and every damaged lock file older than
    /// `DAMAGED_GRACE`, recording each in the audit log first.
    pub fn clean(&self, by: Option<&str>) -> Result<CleanReport, LockError> {
        let guard = self.index.lock(DEFAULT_LOCK_TIMEOUT)?;
        let now = now();
        let names = self.dir.names(".lock")?;
        let all = self.scan(&names)?;
        let mut report = CleanReport::default();
        let mut keep = Vec::new();
        let mut events = Vec::new();
        for entry in all {
            match &entry {
                LockEntry::Held(held) if self.is_stale(&held.record, now) => {
                    events.push(self.event(AuditKind::CleanStale, by, held));
                    report.stale.push(held.clone());
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
                LockEntry::Held(_) => keep.push(entry),
            }
        }
        self.audit.record(&events)?;
        let removed = report
            .stale
            .iter()
            .map(|h| h.file_name.as_str())
            .chain(report.damaged.iter().map(|(name, _)| name.as_str()));
        for name in removed {
            self.dir.remove(&guard, name)?;
        }
        self.dir.remove_temps(&guard)?;
        let names: Vec<String> = keep.iter().map(|e| e.file_name().to_owned()).collect();
        self.save(&guard, &LockIndex::rebuild(&names, &keep))?;
        Ok(report)
    }

    /// Reads one lock file: `None` when it does not exist.
    fn entry(&self, name: &str) -> Result<Option<LockEntry>, LockError> {
        let damaged = |problem: String| LockEntry::Damaged {
            file_name: name.to_owned(),
            problem,
            modified: self.dir.modified(name),
        };
        Ok(match self.dir.read(name) {
            Ok(None) => None,
            Ok(Some(bytes)) => Some(match LockRecord::parse(&bytes, name) {
                Ok(record) => LockEntry::Held(HeldLock::new(name.to_owned(), record, &self.root)),
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
    fn scan(&self, names: &[String]) -> Result<Vec<LockEntry>, LockError> {
        let mut all = Vec::with_capacity(names.len());
        for name in names {
            if let Some(entry) = self.entry(name)? {
                all.push(entry);
            }
        }
        Ok(all)
    }

    /// The index, checked against the directory (index read first, so a
    /// concurrent writer can only make it look older than the directory,
    /// never newer) and rebuilt from the files when it does not match.
    fn view(&self) -> Result<View, LockError> {
        let stored = match self.index.read_json::<LockIndex>()? {
            Loaded::Valid(index) => Some(index),
            Loaded::Missing | Loaded::Corrupt(_) => None,
        };
        let names = self.dir.names(".lock")?;
        if let Some(index) = stored.filter(|i| i.is_current(&names)) {
            return Ok(View {
                index,
                dirty: false,
                all: None,
            });
        }
        let all = self.scan(&names)?;
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
            let names = self.dir.names(".lock")?;
            view.all = Some(self.scan(&names)?);
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
        let exact = self.entry(&exact_name)?;
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
            let entry = self.entry(&name)?;
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
        Conflict {
            requested: key.as_str().to_owned(),
            age: held.record.age(now),
            held,
        }
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
        Ok(match self.entry(&key.file_name())? {
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

    fn event(&self, kind: AuditKind, by: Option<&str>, held: &HeldLock) -> AuditEvent {
        let mut e = AuditEvent::new(kind, by);
        e.path = Some(held.record.filepath.clone());
        e.holder = Some(held.record.agent_id.clone());
        e.locked_at = Some(held.record.locked_at);
        e.reason = Some(held.record.reason.clone());
        e
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
        agent: &str,
        reason: Option<&str>,
        default_reason: &str,
    ) -> Result<Vec<AcquiredLock>, LockError> {
        FileLocks::acquire(self, keys, agent, reason, default_reason)
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
        let shared: Arc<dyn LockStore> = Arc::new(FileLocks::new(&Paths::new(dir.path()), 300));
        lock_contract::one_winner_per_round(&[shared], 8, 20);
    }
}
