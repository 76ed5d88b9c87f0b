//! Moving a project's shared state from one store to another
//! (`swarm store migrate`), through the storage traits only: whatever one
//! store can read, the other is given through its ordinary writes, so each
//! keeps its own guarantees while it fills.
//!
//! What moves: the registry and the id mark (ids are never reused after
//! the move either), the locks (re-taken by their holders, with their
//! reasons, shared or not, a lease for what is left of it; their age
//! starts again), the message log in order, each
//! registered agent's read cursor, the pending acknowledgements, the held
//! messages and the A2A records with `COORDINATION.md`. The rate windows
//! (a minute long) and the agents' memory documents (which swarm only
//! reads and clears) stay behind. The source is left as it was.

use serde::Serialize;

use crate::a2a::a2a_store::{Collection, Stored};
use crate::agents::registry::Registry;
use crate::agents::registry_store::{IdsState, RegistryState};
use crate::domain::AgentId;
use crate::error::{Error, Result};
use crate::locks::{LockEntry, LockRequest};
use crate::log::inbox::Cursor;
use crate::log::record::Record;
use crate::messaging::held::held_store::ToHold;
use crate::messaging::topics::topic_store::Topic;

use super::Backend;

/// Records appended per call to the target's log.
const CHUNK: usize = 500;

/// What a migration moved.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Moved {
    /// Registered agents.
    pub agents: usize,
    /// Locks re-taken.
    pub locks: usize,
    /// Log records (messages and delivery outcomes).
    pub log_records: usize,
    /// Read cursors.
    pub cursors: usize,
    /// Pending acknowledgements.
    pub pending_acks: usize,
    /// Held messages.
    pub held: usize,
    /// Topic subscriptions (one per agent and topic).
    pub subscriptions: usize,
    /// A2A collections that held records.
    pub a2a_collections: usize,
    /// Whether `COORDINATION.md` moved.
    pub coordination: bool,
    /// Recorded sessions (left out when none).
    #[serde(skip_serializing_if = "is_zero")]
    pub sessions: usize,
    /// What the user should know (damaged source state left behind).
    pub notes: Vec<String>,
}

/// What of the target already holds state (empty: nothing).
pub fn state_present(target: &Backend) -> Result<Vec<&'static str>> {
    let mut found = Vec::new();
    if !matches!(target.registry.read()?, RegistryState::Missing) {
        found.push("agent registry");
    }
    if !target.locks.list()?.is_empty() {
        found.push("locks");
    }
    if !target.log.read_all()?.records.is_empty() {
        found.push("messages");
    }
    if !target.acks.list()?.entries.is_empty() {
        found.push("pending acknowledgements");
    }
    if target.held.any() && !target.held.list()?.is_empty() {
        found.push("held messages");
    }
    if !target.topics.all()?.is_empty() {
        found.push("topic subscriptions");
    }
    for c in Collection::ALL {
        if matches!(target.a2a.read(c)?, Stored::Records(v) if !is_empty(&v)) {
            found.push("A2A records");
            break;
        }
    }
    if target.a2a.read_coordination()?.is_some() {
        found.push("coordination notes");
    }
    Ok(found)
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

fn is_empty(v: &serde_json::Value) -> bool {
    match v {
        serde_json::Value::Object(m) => m.is_empty(),
        serde_json::Value::Array(a) => a.is_empty(),
        serde_json::Value::Null => true,
        _ => false,
    }
}

/// Copies everything `from` holds into `to`. `host` is this host's name:
/// agents moved onto a shared store are recorded as this host's, and only
/// this host's agents move back onto the files (the others' panes are not
/// on this machine).
pub fn copy_state(from: &Backend, to: &Backend, host: &str) -> Result<Moved> {
    let mut moved = Moved::default();
    let registry = copy_registry(from, to, host, &mut moved)?;

    for entry in from.locks.list()? {
        match entry {
            LockEntry::Held(held) => {
                let Some(key) = held.key else {
                    moved.notes.push(format!(
                        "left the lock on {} behind: its path is outside the project",
                        held.record.filepath
                    ));
                    continue;
                };
                // Each claim is taken again by its holder, a lease for
                // what is left of it (one already ended stays behind).
                let now = crate::locks::unix_now();
                for hold in held.record.holds() {
                    let ttl = match hold.expires_at {
                        None => None,
                        Some(end) if end > now => {
                            Some(std::time::Duration::from_secs_f64(end - now))
                        }
                        Some(_) => continue,
                    };
                    let request = LockRequest {
                        agent: &hold.agent_id,
                        reason: Some(&hold.reason),
                        default_reason: &hold.reason,
                        shared: held.record.shared,
                        ttl,
                    };
                    to.locks.acquire(std::slice::from_ref(&key), &request)?;
                }
                moved.locks += 1;
            }
            LockEntry::Damaged {
                file_name, problem, ..
            } => moved.notes.push(format!(
                "left the damaged lock {file_name} behind ({problem})"
            )),
        }
    }

    let log = from.log.read_all()?;
    if log.skipped > 0 {
        moved.notes.push(format!(
            "left {} log lines behind that are neither a message nor an outcome",
            log.skipped
        ));
    }
    for chunk in log.records.chunks(CHUNK) {
        moved.notes.extend(to.log.append(chunk)?);
        moved.log_records += chunk.len();
    }
    // Positions are the source's (a file offset, a stream id): the cursor
    // moves by the last message read, which both stores understand.
    let mut readers: Vec<String> = registry
        .iter()
        .flat_map(|r| r.agents.iter().map(|a| a.id.to_string()))
        .collect();
    for r in &log.records {
        if let Record::Message(m) = r {
            for to in &m.message().recipients {
                if !readers.iter().any(|r| to == r.as_str()) {
                    readers.push(to.to_string());
                }
            }
        }
    }
    for agent in readers {
        if let (Some(c), _) = from.log.cursor(&agent)? {
            let cursor = Cursor { at: None, ..c };
            to.log.advance(&agent, &cursor, None)?;
            moved.cursors += 1;
        }
    }

    let pending = from.acks.list()?;
    moved.notes.extend(pending.problem);
    for entry in pending.entries {
        moved.notes.extend(to.acks.record(entry)?);
        moved.pending_acks += 1;
    }

    for h in from.held.list()? {
        to.held.hold(ToHold {
            msg_id: &h.msg_id,
            agent: &h.agent,
            text: &h.text,
            marker: &h.marker,
            reason: &h.reason,
            urgency: h.urgency,
        })?;
        moved.held += 1;
    }

    for (topic, agents) in from.topics.all()? {
        let Ok(topic) = Topic::parse(&topic) else {
            continue;
        };
        for agent in agents {
            if let Ok(agent) = AgentId::parse(&agent) {
                to.topics.subscribe(&topic, &agent)?;
                moved.subscriptions += 1;
            }
        }
    }

    for c in Collection::ALL {
        match from.a2a.read(c)? {
            Stored::Records(v) if !is_empty(&v) => {
                to.a2a
                    .update(c, &mut moved.notes, &mut |_| Ok(Some(v.clone())))?;
                moved.a2a_collections += 1;
            }
            Stored::Damaged(why) => moved.notes.push(format!(
                "left the damaged {} behind ({why})",
                from.a2a.location(c)
            )),
            _ => {}
        }
    }
    if let Some(text) = from.a2a.read_coordination()? {
        to.a2a
            .update_coordination(&mut |_| Ok(Some(text.clone())))?;
        moved.coordination = true;
    }
    for session in from.sessions.list()? {
        to.sessions.put(&session)?;
        moved.sessions += 1;
    }
    Ok(moved)
}

/// Copies the registry and the id mark; returns the registry moved.
fn copy_registry(
    from: &Backend,
    to: &Backend,
    host: &str,
    moved: &mut Moved,
) -> Result<Option<Registry>> {
    let registry = match from.registry.read()? {
        RegistryState::Missing => None,
        RegistryState::Valid(reg, skipped) => {
            moved.notes.extend(
                skipped
                    .into_iter()
                    .map(|s| format!("left a registry entry behind: {s}")),
            );
            Some(reg)
        }
        RegistryState::Corrupt(why) => {
            return Err(Error::Invalid(format!(
                "{} is damaged ({why}): run `swarm discover` to rebuild it before moving it",
                from.registry.location()
            )));
        }
    };
    let ids = match from.registry.read_ids()? {
        IdsState::Valid(ids) => Some(ids),
        IdsState::Missing => None,
        IdsState::Corrupt(why) => {
            moved.notes.push(format!(
                "the id mark of the source is damaged ({why}); the ids in use keep the next one above them"
            ));
            None
        }
    };
    let registry = registry.map(|mut reg| {
        let shared = to.shared_host().is_some();
        reg.agents
            .retain(|a| a.host.as_deref().is_none_or(|h| h == host));
        for a in &mut reg.agents {
            a.host = shared.then(|| host.to_owned());
        }
        reg
    });
    let mut stored = None;
    let mut kept = Vec::new();
    moved.notes.extend(to.registry.update(&mut |doc| {
        kept.clear();
        if let Some(reg) = &registry {
            // Added to what the target holds (`--force`); an id it already
            // has stays as it is there.
            let mut merged = doc.registry.clone().unwrap_or_else(|| reg.clone());
            if doc.registry.is_some() {
                for a in &reg.agents {
                    if merged.find(a.id.as_str()).is_some() {
                        kept.push(a.id.to_string());
                    } else {
                        merged.agents.push(a.clone());
                    }
                }
                merged.recompute_sessions();
            }
            doc.registry = Some(merged);
        }
        let mut next = doc.ids.next;
        if let Some(ids) = &ids {
            next = next.max(ids.next);
            doc.ids.servers.extend(ids.servers.clone());
        }
        // Never below an id in use.
        for n in registry
            .iter()
            .flat_map(|r| r.agents.iter())
            .filter_map(|a| a.id.number())
        {
            next = next.max(n.saturating_add(1));
        }
        doc.ids.next = next;
        stored = doc.registry.clone();
    })?);
    moved
        .notes
        .extend(kept.into_iter().map(|id| {
            format!("{id} is already registered in the target: kept the target's entry")
        }));
    moved.agents = registry.as_ref().map_or(0, |r| r.agents.len());
    Ok(stored)
}
