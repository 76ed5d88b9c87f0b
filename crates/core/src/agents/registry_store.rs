//! `RegistryStore`: the storage seam for the agent registry and agent-id
//! allocation. Readers see the registry; discovery changes it together
//! with the id mark in one atomic step, so ids are never handed out twice.
//! `FileRegistry` (`on_files.rs`: the Python tool's `ACTIVE_AGENTS.json`
//! plus `.swarm/agent_ids.json`) is the first implementation.

use crate::agents::registry::{AgentIds, Registry};
use crate::store::StoreError;

/// What reading the registry found.
#[derive(Debug)]
pub enum RegistryState {
    /// No registry yet.
    Missing,
    /// A usable registry, and the entries that had to be skipped.
    Valid(Registry, Vec<String>),
    /// The stored registry cannot be used; the reason says why.
    Corrupt(String),
}

impl RegistryState {
    /// The registry when it is usable, skipped entries ignored.
    pub fn usable(self) -> Option<Registry> {
        match self {
            RegistryState::Valid(registry, _) => Some(registry),
            RegistryState::Missing | RegistryState::Corrupt(_) => None,
        }
    }

    /// The registry to act on, empty when there is none or it is damaged,
    /// and what a person should be told about it (the entries ignored, the
    /// damage); `location` names the store in those notes.
    pub(crate) fn or_empty(self, location: &str) -> (Registry, Vec<String>) {
        match self {
            RegistryState::Missing => (Registry::default(), Vec::new()),
            RegistryState::Valid(registry, skipped) => (
                registry,
                skipped
                    .into_iter()
                    .map(|s| format!("{location}: ignored {s}"))
                    .collect(),
            ),
            RegistryState::Corrupt(why) => (
                Registry::default(),
                vec![format!(
                    "{location} is damaged ({why}); treating it as empty until `swarm discover` \
                     rebuilds it"
                )],
            ),
        }
    }
}

/// What reading the id mark found.
#[derive(Debug)]
pub enum IdsState {
    /// No mark yet: no id was ever handed out here.
    Missing,
    /// The mark.
    Valid(AgentIds),
    /// The stored mark cannot be used; the reason says why.
    Corrupt(String),
}

/// The registry and the id mark as one atomic change sees and leaves them.
#[derive(Clone, Debug, PartialEq)]
pub struct RegistryDoc {
    /// The registry: on the way in, the stored one (`None` when there is
    /// none or it is unusable, so the change rebuilds it); on the way out,
    /// the one to store (`None` leaves the stored registry as it is).
    pub registry: Option<Registry>,
    /// The id mark: on the way in, the stored one (an empty mark, `next`
    /// 0, when there is none or it is unusable); on the way out, the one to
    /// store. Its `next` never goes below the stored one (see `update`).
    pub ids: AgentIds,
}

impl RegistryDoc {
    /// Runs `change` on the stored registry and mark and returns what it
    /// leaves, the mark's `next` never below the stored one: the rule
    /// every store's `update` keeps.
    pub fn changed(
        registry: Option<Registry>,
        stored: &AgentIds,
        change: &mut dyn FnMut(&mut RegistryDoc),
    ) -> RegistryDoc {
        let mut doc = RegistryDoc {
            registry,
            ids: stored.clone(),
        };
        change(&mut doc);
        doc.ids.next = doc.ids.next.max(stored.next);
        doc
    }
}

/// The agent registry and id allocation of one project.
///
/// Every implementation keeps these guarantees:
/// * reads never see a half-written registry: each returns a complete
///   version, the old or the new one;
/// * `update` is atomic across all processes and hosts sharing the store:
///   the registry and the id mark it reads, and what it writes back,
///   form one transaction, so two racing updates never hand out the same
///   agent number and never lose each other's agents;
/// * ids are never reused: the mark's `next` only grows (an update that
///   lowers it stores the larger value).
///
/// A Redis implementation keeps them with the two values under one
/// `WATCH`ed pair of keys and a `MULTI`/`EXEC` that retries on conflict
/// (or a Lua script); the file implementation holds the registry's lock.
pub trait RegistryStore: Send + Sync {
    /// The registry, without waiting for writers.
    fn read(&self) -> Result<RegistryState, StoreError>;

    /// The id mark, without waiting for writers.
    fn read_ids(&self) -> Result<IdsState, StoreError>;

    /// Reads the registry and the id mark, lets `change` turn them into
    /// the next ones and stores what it leaves, all as one atomic step
    /// (see the trait). `change` may run more than once (an optimistic
    /// store retries it on conflict), so it must only compute from the
    /// document. A stored registry or mark that cannot be used is handed
    /// in as absent and replaced, and kept aside where the store can.
    /// Returns what the user should know: entries skipped, damage found
    /// and where the damaged copy went.
    fn update(&self, change: &mut dyn FnMut(&mut RegistryDoc)) -> Result<Vec<String>, StoreError>;

    /// Where the registry lives, for messages (`/p/ACTIVE_AGENTS.json`).
    fn location(&self) -> String;

    /// Moves a stored registry that is still damaged aside, where the
    /// store can keep it, so that its bytes survive whatever is written
    /// next; returns where it went (`None`: it was not damaged any more,
    /// or this store cannot keep a copy). Changes nothing else: no id
    /// mark, no rebuilt registry (that is discovery's `update`).
    fn set_aside_damaged(&self) -> Result<Option<String>, StoreError> {
        Ok(None)
    }

    /// This host's name when the registry is shared by several hosts:
    /// discovery then records it with the agents it finds and leaves the
    /// agents of other hosts alone. `None` for a store of one host.
    fn host(&self) -> Option<&str> {
        None
    }
}

#[cfg(any(test, feature = "testing"))]
pub mod contract {
    //! The guarantees of `RegistryStore`, checked through `&dyn` so every
    //! implementation can run them.

    use std::collections::BTreeMap;
    use std::sync::Barrier;

    use super::*;
    use crate::agents::registry::{AgentRecord, AgentStatus};
    use crate::domain::AgentId;

    fn record(id: &AgentId) -> AgentRecord {
        AgentRecord {
            id: id.clone(),
            pane_index: "s:0.0".into(),
            pid: 1,
            status: AgentStatus::Active,
            last_seen: "2026-11-21T13:26:58.589963+00:00".into(),
            session_name: "s".into(),
            tmux_pane_id: None,
            host: None,
        }
    }

    /// Hands out one new id the way discovery does: the mark's next
    /// number, added to the registry, the mark moved past it.
    pub fn allocate(store: &dyn RegistryStore) -> AgentId {
        let mut given = None;
        store
            .update(&mut |doc| {
                let id = AgentId::numbered(doc.ids.next);
                let mut reg = doc.registry.take().unwrap_or_default();
                reg.agents.push(record(&id));
                reg.recompute_sessions();
                doc.registry = Some(reg);
                doc.ids.next += 1;
                given = Some(id);
            })
            .expect("update");
        given.expect("the change ran")
    }

    /// A fresh store: empty at first, updates are read back, the mark
    /// never goes down.
    pub fn basics(store: &dyn RegistryStore) {
        assert!(matches!(
            store.read().expect("read"),
            RegistryState::Missing
        ));
        assert!(matches!(store.read_ids().expect("ids"), IdsState::Missing));
        let first = allocate(store);
        let second = allocate(store);
        assert_ne!(first, second);
        let RegistryState::Valid(reg, skipped) = store.read().expect("read") else {
            panic!("the registry was written")
        };
        assert!(skipped.is_empty());
        assert!(reg.find(first.as_str()).is_some() && reg.find(second.as_str()).is_some());
        let IdsState::Valid(ids) = store.read_ids().expect("ids") else {
            panic!("the mark was written")
        };
        assert_eq!(ids.next, 2);

        // A change that lowers the mark and leaves the registry alone.
        store
            .update(&mut |doc| {
                doc.registry = None;
                doc.ids = AgentIds::new(0, BTreeMap::from([(first.to_string(), "1:2".into())]));
            })
            .expect("update");
        let IdsState::Valid(ids) = store.read_ids().expect("ids") else {
            panic!("the mark is still there")
        };
        assert_eq!(ids.next, 2, "the mark never goes down");
        assert_eq!(
            ids.servers.get(first.as_str()).map(String::as_str),
            Some("1:2")
        );
        let reg = store.read().expect("read").usable().expect("usable");
        assert_eq!(reg.agents.len(), 2, "a `None` registry is left as it was");
        assert_eq!(allocate(store), AgentId::numbered(2));
    }

    /// Threads allocating at once: every id distinct, every agent kept,
    /// the mark past all of them.
    pub fn racing_allocations(store: &dyn RegistryStore) {
        const THREADS: usize = 6;
        const EACH: usize = 4;
        let barrier = Barrier::new(THREADS);
        let mut all: Vec<AgentId> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..THREADS)
                .map(|_| {
                    s.spawn(|| {
                        barrier.wait();
                        let mut mine = Vec::new();
                        let mut last_mark = 0;
                        for _ in 0..EACH {
                            mine.push(allocate(store));
                            let IdsState::Valid(ids) = store.read_ids().expect("ids") else {
                                panic!("the mark was written")
                            };
                            assert!(ids.next >= last_mark, "the mark went down");
                            last_mark = ids.next;
                        }
                        mine
                    })
                })
                .collect();
            handles
                .into_iter()
                .flat_map(|h| h.join().expect("thread"))
                .collect()
        });
        let count = all.len();
        all.sort();
        all.dedup();
        assert_eq!(all.len(), count, "an id was handed out twice");
        let reg = store.read().expect("read").usable().expect("usable");
        assert_eq!(reg.agents.len(), count, "an update lost another's agent");
        let IdsState::Valid(ids) = store.read_ids().expect("ids") else {
            panic!("the mark was written")
        };
        let highest = all.iter().filter_map(AgentId::number).max().expect("ids");
        assert!(ids.next > highest);
    }
}
