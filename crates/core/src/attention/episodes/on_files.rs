//! `FileEpisodes`: the `EpisodeStore` kept in `.swarm/episodes.json`, one
//! record per agent and condition, every change made under the file's
//! lock so that of racing watchers exactly one opens an episode.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::attention::episodes::episode_store::{
    EpisodeRecord, EpisodeStore, OpenEpisode, Transition,
};
use crate::attention::event::EventKind;
use crate::domain::Timestamp;
use crate::store::{DEFAULT_LOCK_TIMEOUT, Paths, StateFile, StateLock, StoreError};

/// Version of the file's shape.
const VERSION: u32 = 1;

/// What a damaged file's notice ends with.
const EPISODES_LOST: &str =
    ", and the attention episodes start afresh (an open dialog may be told again)";

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
struct EpisodesFile {
    version: u32,
    /// agent -> condition -> record.
    #[serde(default)]
    agents: BTreeMap<String, BTreeMap<EventKind, EpisodeRecord>>,
}

/// The episodes file of a project.
#[derive(Clone, Debug)]
pub(crate) struct FileEpisodes {
    file: StateFile,
}

impl FileEpisodes {
    /// The episodes of `paths`'s project.
    pub(crate) fn new(paths: &Paths) -> FileEpisodes {
        FileEpisodes {
            file: StateFile::new(paths.episodes()),
        }
    }

    /// The episodes; a damaged file is moved aside, with a notice, on
    /// the first read that finds it, and the episodes start afresh (one
    /// may then be told twice, never lost).
    fn load(&self) -> Result<EpisodesFile, StoreError> {
        self.file.load_or_set_aside(EPISODES_LOST)
    }

    /// The same under the file's lock, for a change.
    fn load_locked(&self, lock: &StateLock) -> Result<EpisodesFile, StoreError> {
        self.file.load_for_change(lock, EPISODES_LOST)
    }

    fn save(&self, lock: &StateLock, data: &EpisodesFile) -> Result<(), StoreError> {
        let bytes = serde_json::to_vec_pretty(data).map_err(|e| StoreError::Corrupt {
            path: self.file.path().to_owned(),
            reason: e.to_string(),
        })?;
        self.file.write_unsynced(lock, &bytes)
    }
}

impl EpisodeStore for FileEpisodes {
    fn transition(
        &self,
        agent: &str,
        kind: EventKind,
        open: bool,
        seen: Timestamp,
        detail: &str,
        key: &str,
    ) -> Result<Transition, StoreError> {
        // Most reports change nothing: answer those without the lock.
        let current = self.load()?;
        let record = current.agents.get(agent).and_then(|m| m.get(&kind));
        if EpisodeRecord::apply(record, open, seen, detail, key)
            .1
            .is_none()
        {
            return Ok(Transition::Unchanged);
        }
        let lock = self.file.lock(DEFAULT_LOCK_TIMEOUT)?;
        let mut data = self.load_locked(&lock)?;
        let record = data.agents.get(agent).and_then(|m| m.get(&kind));
        let (t, next) = EpisodeRecord::apply(record, open, seen, detail, key);
        if let Some(next) = next {
            data.version = VERSION;
            data.agents
                .entry(agent.to_owned())
                .or_default()
                .insert(kind, next);
            self.save(&lock, &data)?;
        }
        Ok(t)
    }

    fn open(&self) -> Result<Vec<OpenEpisode>, StoreError> {
        let data = self.load()?;
        let mut out: Vec<OpenEpisode> = data
            .agents
            .into_iter()
            .flat_map(|(agent, kinds)| {
                kinds
                    .into_iter()
                    .filter(|(_, r)| r.open)
                    .map(move |(kind, r)| OpenEpisode {
                        agent: agent.clone(),
                        kind,
                        episode: r.episode,
                        since: r.changed,
                        detail: r.detail,
                    })
            })
            .collect();
        out.sort_by_key(|e| e.since);
        Ok(out)
    }

    fn forget(&self, agents: &[String]) -> Result<(), StoreError> {
        let current = self.load()?;
        if !agents.iter().any(|a| current.agents.contains_key(a)) {
            return Ok(());
        }
        let lock = self.file.lock(DEFAULT_LOCK_TIMEOUT)?;
        let mut data = self.load_locked(&lock)?;
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
    use std::sync::{Arc, Barrier};

    #[test]
    fn of_racing_watchers_one_opens_the_episode() {
        let tmp = tempfile::tempdir().expect("test value");
        let store = Arc::new(FileEpisodes::new(&Paths::new(tmp.path())));
        for round in 0..5u32 {
            let seen = Timestamp::from_unix_seconds(1_800_000_000.0 + f64::from(round) * 10.0)
                .expect("test value");
            let barrier = Arc::new(Barrier::new(6));
            let handles: Vec<_> = (0..6)
                .map(|_| {
                    let (s, b) = (Arc::clone(&store), Arc::clone(&barrier));
                    std::thread::spawn(move || {
                        b.wait();
                        s.transition(
                            "agent-1",
                            EventKind::NeedsInput,
                            round % 2 == 0,
                            seen,
                            "q?",
                            "",
                        )
                        .expect("test value")
                    })
                })
                .collect();
            let results: Vec<Transition> = handles
                .into_iter()
                .map(|h| h.join().expect("test value"))
                .collect();
            let changed = results
                .iter()
                .filter(|t| **t != Transition::Unchanged)
                .count();
            assert_eq!(changed, 1, "round {round}: {results:?}");
        }
        assert!(store.open().expect("test value").len() == 1);
        store.forget(&["agent-1".into()]).expect("test value");
        assert!(store.open().expect("test value").is_empty());
    }
}
