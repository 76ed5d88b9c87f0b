//! `FileTopics`: the `TopicStore` kept in `.swarm/subscriptions.json`,
//! changed by a read-modify-write under the file's lock so that racing
//! changes lose nothing (docs/FORMATS.md).

use serde::{Deserialize, Serialize};

use crate::domain::AgentId;
use crate::store::{DEFAULT_LOCK_TIMEOUT, Loaded, Paths, StateFile, StoreError};
use crate::support::json::{self, Layout};

use super::topic_store::{Subscriptions, Topic, TopicStore, TopicTable};

/// Version of `.swarm/subscriptions.json`.
const VERSION: u32 = 1;

#[derive(Debug, Default, Serialize, Deserialize)]
struct Document {
    version: u32,
    #[serde(flatten)]
    table: TopicTable,
}

/// The subscriptions of a project, in its files.
#[derive(Clone, Debug)]
pub(crate) struct FileTopics {
    file: StateFile,
}

impl FileTopics {
    /// The subscriptions of the project laid out by `paths`.
    pub(crate) fn new(paths: &Paths) -> FileTopics {
        FileTopics {
            file: StateFile::new(paths.subscriptions()),
        }
    }

    /// Applies `change` under the file's lock; a damaged file is moved
    /// aside first (and counts as no subscriptions).
    fn change(&self, change: impl FnOnce(&mut TopicTable) -> bool) -> Result<bool, StoreError> {
        let lock = self.file.lock(DEFAULT_LOCK_TIMEOUT)?;
        let mut doc = match self.file.read_json::<Document>() {
            Ok(Loaded::Valid(d)) => d,
            Ok(Loaded::Missing) => Document::default(),
            Ok(Loaded::Corrupt(_)) | Err(StoreError::Corrupt { .. }) => {
                self.file.preserve(&lock)?;
                Document::default()
            }
            Err(e) => return Err(e),
        };
        let changed = change(&mut doc.table);
        if changed {
            doc.version = VERSION;
            let bytes =
                json::to_vec(&doc, Layout::Indent2).map_err(|source| StoreError::Encode {
                    path: self.file.path().to_owned(),
                    source,
                })?;
            self.file.write(&lock, &bytes)?;
        }
        Ok(changed)
    }
}

impl TopicStore for FileTopics {
    fn all(&self) -> Result<Subscriptions, StoreError> {
        Ok(match self.file.read_json::<Document>()? {
            Loaded::Valid(d) => d.table.topics,
            Loaded::Missing | Loaded::Corrupt(_) => Subscriptions::new(),
        })
    }

    fn subscribe(&self, topic: &Topic, agent: &AgentId) -> Result<bool, StoreError> {
        self.change(|t| t.subscribe(topic, agent))
    }

    fn unsubscribe(&self, topic: &Topic, agent: &AgentId) -> Result<bool, StoreError> {
        self.change(|t| t.unsubscribe(topic, agent))
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::messaging::topics::topic_store::contract;

    #[test]
    fn file_topics_keep_the_contract() {
        let dir = tempfile::tempdir().expect("tempdir");
        let paths = Paths::new(dir.path());
        contract::subscribes_and_unsubscribes(&FileTopics::new(&paths));
        let dir = tempfile::tempdir().expect("tempdir");
        contract::racing_subscribers_lose_nothing(Arc::new(FileTopics::new(&Paths::new(
            dir.path(),
        ))));
    }

    #[test]
    fn a_damaged_file_reads_as_none_and_is_moved_aside_by_a_change() {
        let dir = tempfile::tempdir().expect("tempdir");
        let paths = Paths::new(dir.path());
        std::fs::create_dir_all(paths.swarm_dir()).expect("mkdir");
        std::fs::write(paths.subscriptions(), "not json").expect("write");
        let store = FileTopics::new(&paths);
        assert!(store.all().expect("all").is_empty());
        let topic = Topic::parse("x").expect("topic");
        assert!(store.subscribe(&topic, &AgentId::numbered(1)).expect("sub"));
        assert_eq!(store.all().expect("all").len(), 1);
    }
}
