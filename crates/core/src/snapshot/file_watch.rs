//! `FileWatch`: file-change events (inotify, through notify) for the files
//! the monitor shows: the message log, the registry, the pending
//! acknowledgements (all in the project root) and the lock directory.
//! Events only say *which* of them changed; reading is the caller's.
//!
//! Opening or reading a file is an event too (inotify reports opens), and
//! the monitor's own reads would wake it again and again: only changes
//! count. Metadata changes are dropped for the same reason (reading can
//! update the access time).

use std::path::{Path, PathBuf};

use notify::event::{EventKind, ModifyKind};
use notify::{RecommendedWatcher, RecursiveMode, Watcher};

use crate::store::{LogFiles, Paths};

/// Which sources changed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Dirty {
    /// The message log, live or rotated (`Paths::message_log`).
    pub log: bool,
    /// The registry (`Paths::registry`).
    pub registry: bool,
    /// Anything in the lock directory (`Paths::locks_dir`).
    pub locks: bool,
    /// The pending acknowledgements (`Paths::pending_acks`).
    pub acks: bool,
    /// The lock directory itself appeared (it needs a watch of its own).
    pub locks_dir: bool,
}

impl Dirty {
    /// Everything.
    pub fn all() -> Dirty {
        Dirty {
            log: true,
            registry: true,
            locks: true,
            acks: true,
            locks_dir: true,
        }
    }

    /// True when anything changed.
    pub fn any(&self) -> bool {
        self.log || self.registry || self.locks || self.acks || self.locks_dir
    }

    /// Both sets of changes.
    pub fn merge(&mut self, other: Dirty) {
        self.log |= other.log;
        self.registry |= other.registry;
        self.locks |= other.locks;
        self.acks |= other.acks;
        self.locks_dir |= other.locks_dir;
    }
}

/// The files a watch sorts events by, where `Paths` places them.
#[derive(Clone, Debug)]
pub(super) struct Watched {
    root: PathBuf,
    locks_dir: PathBuf,
    log: LogFiles,
    registry: PathBuf,
    acks: PathBuf,
}

impl Watched {
    /// The watched files of the project laid out by `paths`.
    pub(super) fn new(paths: &Paths) -> Watched {
        Watched {
            root: paths.root().to_owned(),
            locks_dir: paths.locks_dir(),
            log: LogFiles::new(paths.message_log()),
            registry: paths.registry(),
            acks: paths.pending_acks(),
        }
    }

    /// True for the live log, the Python tool's rotated `.old`, and a
    /// rotated segment (the log's name, a dot and digits) appearing or
    /// going.
    fn is_log(&self, path: &Path) -> bool {
        if path == self.log.current() || path == self.log.old() {
            return true;
        }
        let name = |p: &Path| p.file_name().and_then(|n| n.to_str()).map(str::to_owned);
        let (Some(file), Some(log)) = (name(path), name(self.log.current())) else {
            return false;
        };
        file.strip_prefix(&log)
            .and_then(|rest| rest.strip_prefix('.'))
            .is_some_and(|digits| !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
    }
}

/// What an event means for the monitor.
pub(super) fn classify(event: &notify::Event, watched: &Watched) -> Dirty {
    if event.need_rescan() {
        return Dirty::all();
    }
    match event.kind {
        EventKind::Access(_) | EventKind::Modify(ModifyKind::Metadata(_)) => {
            return Dirty::default();
        }
        _ => {}
    }
    let mut dirty = Dirty::default();
    for path in &event.paths {
        if *path == watched.locks_dir {
            dirty.locks = true;
            dirty.locks_dir = true;
            continue;
        }
        let parent = path.parent();
        if parent == Some(watched.locks_dir.as_path()) {
            dirty.locks = true;
            continue;
        }
        if parent != Some(watched.root.as_path()) {
            continue;
        }
        if watched.is_log(path) {
            dirty.log = true;
        } else if *path == watched.registry {
            dirty.registry = true;
        } else if *path == watched.acks {
            dirty.acks = true;
        }
    }
    dirty
}

/// A running watch on one project. Stops when dropped.
pub struct FileWatch {
    watcher: RecommendedWatcher,
    locks_dir: PathBuf,
}

impl std::fmt::Debug for FileWatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FileWatch")
            .field("locks_dir", &self.locks_dir)
            .finish_non_exhaustive()
    }
}

impl FileWatch {
    /// Watches the project root and, when it exists, the lock directory;
    /// `on_change` is called (on notify's thread) with each change that
    /// matters, and `on_error` with each error the watch reports.
    pub fn start(
        paths: &Paths,
        on_change: impl Fn(Dirty) + Send + 'static,
        on_error: impl Fn(String) + Send + 'static,
    ) -> Result<FileWatch, notify::Error> {
        let root = paths.root().to_owned();
        let locks_dir = paths.locks_dir();
        let watched = Watched::new(paths);
        let mut watcher =
            notify::recommended_watcher(move |res: notify::Result<notify::Event>| match res {
                Ok(event) => {
                    let dirty = classify(&event, &watched);
                    if dirty.any() {
                        on_change(dirty);
                    }
                }
                Err(e) => on_error(format!("file watch: {e}")),
            })?;
        watcher.watch(&root, RecursiveMode::NonRecursive)?;
        let mut watch = FileWatch { watcher, locks_dir };
        watch.watch_locks_dir();
        Ok(watch)
    }

    /// (Re)starts watching the lock directory, which may have been created
    /// or recreated since. A directory that is not there is no error: its
    /// creation shows up in the root's events.
    pub fn watch_locks_dir(&mut self) {
        if self.locks_dir.is_dir() {
            let _ = self
                .watcher
                .watch(&self.locks_dir, RecursiveMode::NonRecursive);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use notify::event::{AccessKind, AccessMode, CreateKind, DataChange, MetadataKind, RenameMode};

    fn event(kind: EventKind, paths: &[&str]) -> notify::Event {
        let mut e = notify::Event::new(kind);
        for p in paths {
            e = e.add_path(PathBuf::from(p));
        }
        e
    }

    #[test]
    fn changes_are_sorted_by_source_and_reads_are_not_changes() {
        let watched = Watched::new(&Paths::new("/p"));
        let c = |kind, paths: &[&str]| classify(&event(kind, paths), &watched);
        let modify = EventKind::Modify(ModifyKind::Data(DataChange::Any));
        assert!(c(modify, &["/p/agent_messages.log"]).log);
        assert!(c(modify, &["/p/agent_messages.log.old"]).log);
        assert!(c(modify, &["/p/agent_messages.log.12"]).log);
        assert!(!c(modify, &["/p/agent_messages.log.x"]).log);
        let renamed = c(
            EventKind::Modify(ModifyKind::Name(RenameMode::Both)),
            &["/p/.ACTIVE_AGENTS.json.tmp-x1", "/p/ACTIVE_AGENTS.json"],
        );
        assert_eq!(
            renamed,
            Dirty {
                registry: true,
                ..Dirty::default()
            }
        );
        assert!(
            c(
                EventKind::Create(CreateKind::File),
                &["/p/PENDING_ACKS.json"]
            )
            .acks
        );
        assert!(
            c(
                EventKind::Remove(notify::event::RemoveKind::File),
                &["/p/.agent_locks/ab.lock"]
            )
            .locks
        );
        let dir = c(EventKind::Create(CreateKind::Folder), &["/p/.agent_locks"]);
        assert!(dir.locks && dir.locks_dir);
        for quiet in [
            c(
                EventKind::Access(AccessKind::Open(AccessMode::Any)),
                &["/p/agent_messages.log"],
            ),
            c(
                EventKind::Modify(ModifyKind::Metadata(MetadataKind::AccessTime)),
                &["/p/ACTIVE_AGENTS.json"],
            ),
            c(modify, &["/p/src/agent_messages.log"]),
            c(modify, &["/p/Cargo.toml"]),
            c(modify, &["/p/.agent_messages.log.lock"]),
        ] {
            assert!(!quiet.any(), "{quiet:?}");
        }
    }
}
