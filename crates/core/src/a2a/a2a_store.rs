//! `A2aStore`: the storage seam for the A2A records (agent cards, tasks,
//! the delegation history, shared contexts, learning data, the conflict
//! log). Each collection is one document of records, read whole and
//! changed by an exclusive read-modify-write; the typed views (`Records`,
//! `TaskStore`, ...) sit on top and keep the domain rules. `FileA2a`
//! (`on_files.rs`), the Python tool's JSON files, is the first
//! implementation.

use crate::store::a2a_names;
use std::fmt;

use serde_json::{Map, Value};

use super::error::Result;
use super::memory::Cleared;
use crate::domain::AgentId;
use crate::support::time;

/// The `version` of the Python tool's A2A documents.
pub(crate) const FORMAT_VERSION: &str = "1.0";

/// One collection of A2A records.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Collection {
    /// Agent cards by agent id.
    Cards,
    /// Tasks by task id.
    Tasks,
    /// Delegation attempts, oldest first.
    DelegationHistory,
    /// Shared contexts by context id.
    Contexts,
    /// Performance records by agent id.
    Learning,
    /// Lock conflicts, oldest first.
    Conflicts,
}

impl Collection {
    /// Every collection.
    pub const ALL: [Collection; 6] = [
        Collection::Cards,
        Collection::Tasks,
        Collection::DelegationHistory,
        Collection::Contexts,
        Collection::Learning,
        Collection::Conflicts,
    ];

    /// True when its records are keyed (a JSON object), false for a list.
    pub(crate) fn keyed(self) -> bool {
        !matches!(self, Collection::DelegationHistory | Collection::Conflicts)
    }

    /// The key its records sit under in the Python tool's document.
    pub(crate) fn key(self) -> &'static str {
        match self {
            Collection::Cards => "cards",
            Collection::Tasks => "tasks",
            Collection::DelegationHistory => "history",
            Collection::Contexts => "contexts",
            Collection::Learning => "agents",
            Collection::Conflicts => "conflicts",
        }
    }

    /// No records, in the collection's shape.
    pub(crate) fn empty(self) -> Value {
        if self.keyed() {
            Value::Object(Map::new())
        } else {
            Value::Array(Vec::new())
        }
    }

    /// The records of a stored document (parsed JSON), in the Python
    /// tool's rules: a document without the records key is empty; records
    /// of the wrong shape, or a top that is not an object, are damage.
    pub fn records_of(self, document: Value) -> Stored {
        let Value::Object(mut top) = document else {
            return Stored::Damaged("expected a JSON object at the top".into());
        };
        let Some(records) = top.remove(self.key()) else {
            return Stored::Records(self.empty());
        };
        match (self.keyed(), records) {
            (true, v @ Value::Object(_)) | (false, v @ Value::Array(_)) => Stored::Records(v),
            (true, _) => Stored::Damaged(format!(
                "`{}`: expected a JSON object of records",
                self.key()
            )),
            (false, _) => {
                Stored::Damaged(format!("`{}`: expected a JSON list of records", self.key()))
            }
        }
    }

    /// The document holding `records` in the Python tool's shape, stamped
    /// now.
    pub fn document(self, records: Value) -> Value {
        let mut top = Map::new();
        top.insert("version".into(), FORMAT_VERSION.into());
        top.insert("updated_at".into(), time::utc_iso(time::now()).into());
        top.insert(self.key().into(), records);
        Value::Object(top)
    }

    /// Its name as users know it (the Python tool's file name).
    pub(crate) fn name(self) -> &'static str {
        match self {
            Collection::Cards => a2a_names::AGENT_CARDS,
            Collection::Tasks => a2a_names::TASKS,
            Collection::DelegationHistory => a2a_names::DELEGATION_HISTORY,
            Collection::Contexts => a2a_names::CONTEXTS,
            Collection::Learning => a2a_names::LEARNING_DATA,
            Collection::Conflicts => a2a_names::CONFLICT_LOG,
        }
    }
}

impl fmt::Display for Collection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What a collection holds.
#[derive(Clone, Debug, PartialEq)]
pub enum Stored {
    /// Nothing was ever stored.
    Missing,
    /// The records: a JSON object for a keyed collection, else a list.
    /// Each record is as stored (the typed view decides which it can read).
    Records(Value),
    /// What is stored cannot be used at all; the reason says why.
    Damaged(String),
}

/// The A2A records of one project.
///
/// Every implementation keeps these guarantees:
/// * a read returns one complete version of the collection, never a
///   half-written one, without waiting for writers;
/// * `update` is exclusive per collection across all processes and hosts
///   sharing the store: no other update of that collection runs between
///   its read and its write, so of racing changes none is lost and a
///   check made in `change` (a task still pending, a context not there
///   yet) holds when the result is stored; `change` runs exactly once;
/// * a damaged collection is never silently dropped: an update that
///   replaces it keeps the old version aside where the store can, and
///   says so in `notes`.
///
/// A Redis implementation keeps one key per collection and holds a lock
/// key (`SET NX` with an expiry) around the read and the write, as the
/// files hold the collection's sidecar lock.
pub trait A2aStore: Send + Sync {
    /// The collection as stored.
    fn read(&self, which: Collection) -> Result<Stored>;

    /// Reads the collection under exclusion, hands it to `change` and
    /// stores the records it returns (`None`: nothing to store). When
    /// `change` fails nothing is stored and its error is returned.
    /// What the user should know (damage found, where a damaged version
    /// went) is pushed to `notes`.
    fn update(
        &self,
        which: Collection,
        notes: &mut Vec<String>,
        change: &mut dyn FnMut(Stored) -> Result<Option<Value>>,
    ) -> Result<()>;

    /// Where the collection lives, for messages (`/p/TASKS.json`).
    fn location(&self, which: Collection) -> String;

    /// The memory document of `agent` as stored (`Records` holds the
    /// whole document), without waiting for writers.
    fn read_memory(&self, agent: &AgentId) -> Result<Stored>;

    /// Forgets what `agent` remembers, exclusively against other changes
    /// of it; a damaged document is kept aside where the store can, not
    /// deleted.
    fn clear_memory(&self, agent: &AgentId) -> Result<Cleared>;

    /// Where the memory of `agent` lives, for messages.
    fn memory_location(&self, agent: &AgentId) -> String;

    /// The coordination notes (`COORDINATION.md`), `None` when there are
    /// none, without waiting for writers.
    fn read_coordination(&self) -> Result<Option<String>>;

    /// Reads the coordination notes under exclusion (as `update` does for
    /// a collection), hands them to `change` (run exactly once) and
    /// stores the text it returns (`None`: nothing to store); every byte
    /// it does not change stays as it was.
    fn update_coordination(
        &self,
        change: &mut dyn FnMut(Option<String>) -> Result<Option<String>>,
    ) -> Result<()>;

    /// Where the coordination notes live, for messages.
    fn coordination_location(&self) -> String;
}

#[cfg(any(test, feature = "testing"))]
pub mod contract {
    //! The guarantees of `A2aStore`, checked through `&dyn` so every
    //! implementation can run them.

    use std::sync::Barrier;

    use serde_json::json;

    use super::*;

    /// A fresh store: empty, updates read back, a failed change stores
    /// nothing, lists and objects kept apart.
    pub fn basics(store: &dyn A2aStore) {
        for c in Collection::ALL {
            assert_eq!(store.read(c).expect("read"), Stored::Missing, "{c}");
        }
        let mut notes = Vec::new();
        store
            .update(Collection::Tasks, &mut notes, &mut |stored| {
                assert_eq!(stored, Stored::Missing);
                Ok(Some(json!({"t1": {"x": 1}})))
            })
            .expect("update");
        assert_eq!(
            store.read(Collection::Tasks).expect("read"),
            Stored::Records(json!({"t1": {"x": 1}}))
        );
        let failed = store.update(Collection::Tasks, &mut notes, &mut |_| {
            Err(crate::a2a::A2aError::Invalid("no".into()))
        });
        assert!(failed.is_err());
        store
            .update(Collection::Tasks, &mut notes, &mut |_| Ok(None))
            .expect("update");
        assert_eq!(
            store.read(Collection::Tasks).expect("read"),
            Stored::Records(json!({"t1": {"x": 1}})),
            "neither a failed change nor `None` stores anything"
        );
        store
            .update(Collection::Conflicts, &mut notes, &mut |_| {
                Ok(Some(json!([{"a": 1}])))
            })
            .expect("update");
        assert_eq!(
            store.read(Collection::Conflicts).expect("read"),
            Stored::Records(json!([{"a": 1}]))
        );
        assert_eq!(
            store.read(Collection::Cards).expect("read"),
            Stored::Missing,
            "collections are apart"
        );
        assert!(notes.is_empty(), "{notes:?}");

        let agent = AgentId::numbered(0);
        assert_eq!(store.read_memory(&agent).expect("memory"), Stored::Missing);
        assert_eq!(store.clear_memory(&agent).expect("clear"), Cleared::Nothing);
        assert_eq!(store.read_coordination().expect("read"), None);
        store
            .update_coordination(&mut |now| {
                assert_eq!(now, None);
                Ok(Some("# Notes\n".into()))
            })
            .expect("update");
        store
            .update_coordination(&mut |now| Ok(now.map(|t| t + "- one\n")))
            .expect("update");
        assert_eq!(
            store.read_coordination().expect("read").as_deref(),
            Some("# Notes\n- one\n")
        );
    }

    /// Threads appending to one list at once: none is lost.
    pub fn racing_updates(store: &dyn A2aStore) {
        const THREADS: usize = 6;
        const EACH: usize = 5;
        let barrier = Barrier::new(THREADS);
        std::thread::scope(|s| {
            for t in 0..THREADS {
                let barrier = &barrier;
                s.spawn(move || {
                    barrier.wait();
                    for i in 0..EACH {
                        store
                            .update(Collection::Conflicts, &mut Vec::new(), &mut |stored| {
                                let mut list = match stored {
                                    Stored::Records(Value::Array(l)) => l,
                                    _ => Vec::new(),
                                };
                                list.push(json!({"t": t, "i": i}));
                                Ok(Some(Value::Array(list)))
                            })
                            .expect("update");
                    }
                });
            }
        });
        let Stored::Records(Value::Array(list)) = store.read(Collection::Conflicts).expect("read")
        else {
            panic!("a list was stored")
        };
        assert_eq!(list.len(), THREADS * EACH, "an update was lost");
    }
}
