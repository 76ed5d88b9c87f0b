//! The agent registry, in exactly the shape of the Python tool's
//! `ACTIVE_AGENTS.json` (docs/FORMATS.md) so both tools read each other's
//! file; and the agent-id high-water mark, so ids are never reused. Where
//! they are kept is `RegistryStore`'s business.

use std::collections::{BTreeMap, HashSet};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::domain::{AgentId, PaneId};

/// The registry file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Registry {
    /// The session of the first agent, or `"unknown"`.
    pub session_name: String,
    /// When discovery last wrote it (aware UTC ISO).
    pub updated_at: String,
    /// Active agents in tmux order, then retained stale ones.
    pub agents: Vec<AgentRecord>,
    /// Sorted unique session names; omitted when empty.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub session_names: Vec<String>,
}

/// One agent. Field order and names are the Python tool's; it rejects any
/// other key, so none may be added to what the files hold (`host` is only
/// ever set on a shared store, where the Python tool does not read).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AgentRecord {
    /// `agent-N`.
    pub id: AgentId,
    /// `session:window.pane`, for display (identity is `tmux_pane_id`).
    pub pane_index: String,
    /// The pane's root process (usually its shell).
    pub pid: u32,
    /// `active` or `stale`.
    pub status: AgentStatus,
    /// When discovery last saw it (aware UTC ISO).
    pub last_seen: String,
    /// Its tmux session.
    pub session_name: String,
    /// `%N`; `null` in registries written by old versions.
    #[serde(default)]
    pub tmux_pane_id: Option<PaneId>,
    /// The host whose tmux server has its pane, on a store shared by
    /// several hosts (`[store] backend = "redis"`); absent in the files.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
}

impl AgentRecord {
    /// The other host its pane is on, when the store is shared (`here`:
    /// this host's name) and the pane is not on this host; `None` when
    /// it is here, or nothing says otherwise.
    pub fn elsewhere(&self, here: Option<&str>) -> Option<&str> {
        let there = self.host.as_deref()?;
        (here? != there).then_some(there)
    }
}

/// Whether an agent was seen by the last discovery.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AgentStatus {
    /// Seen by the last discovery.
    Active,
    /// Its pane is still there but no agent runs in it right now.
    Stale,
    /// Known to the Python tool; never written by swarm.
    Dead,
}

impl AgentStatus {
    /// The word used in the file and in listings.
    pub fn as_str(self) -> &'static str {
        match self {
            AgentStatus::Active => "active",
            AgentStatus::Stale => "stale",
            AgentStatus::Dead => "dead",
        }
    }
}

impl Default for Registry {
    /// What a project reads as when it has no registry yet (or a damaged
    /// one): no agents, never written (`updated_at` empty).
    fn default() -> Registry {
        Registry::empty(String::new())
    }
}

impl Registry {
    /// An empty registry stamped `updated_at`.
    pub fn empty(updated_at: String) -> Registry {
        Registry {
            session_name: "unknown".into(),
            updated_at,
            agents: Vec::new(),
            session_names: Vec::new(),
        }
    }

    /// The agent with this id.
    pub fn find(&self, id: &str) -> Option<&AgentRecord> {
        self.agents.iter().find(|a| a.id == id)
    }

    /// The agent in this pane (`%N`).
    pub fn find_by_pane(&self, pane: &str) -> Option<&AgentRecord> {
        self.agents
            .iter()
            .find(|a| a.tmux_pane_id.as_ref().is_some_and(|p| p.as_str() == pane))
    }

    /// Agents seen by the last discovery.
    pub fn active(&self) -> impl Iterator<Item = &AgentRecord> {
        self.agents
            .iter()
            .filter(|a| a.status == AgentStatus::Active)
    }

    /// Fills `session_name` and `session_names` from the agents, as the
    /// Python tool does.
    pub fn recompute_sessions(&mut self) {
        self.session_name = self
            .agents
            .first()
            .map(|a| a.session_name.clone())
            .unwrap_or_else(|| "unknown".into());
        let mut names: Vec<String> = self.agents.iter().map(|a| a.session_name.clone()).collect();
        names.sort();
        names.dedup();
        self.session_names = names;
    }

    /// Parses a registry leniently: unknown keys are ignored, and an agent
    /// entry with a missing or malformed field is skipped (and reported)
    /// instead of discarding the whole file.
    pub fn from_value(value: Value) -> Result<(Registry, Vec<String>), String> {
        let Value::Object(mut top) = value else {
            return Err("expected a JSON object at the top level".into());
        };
        let mut text = |key: &str| match top.remove(key) {
            Some(Value::String(s)) => Ok(s),
            Some(_) => Err(format!("`{key}` is not a string")),
            None => Err(format!("`{key}` is missing")),
        };
        let session_name = text("session_name")?;
        let updated_at = text("updated_at")?;
        let agents = match top.remove("agents") {
            Some(Value::Array(a)) => a,
            Some(_) => return Err("`agents` is not a list".into()),
            None => return Err("`agents` is missing".into()),
        };
        let mut skipped = Vec::new();
        let mut records: Vec<AgentRecord> = Vec::with_capacity(agents.len());
        // The ids taken so far, for the duplicate check: looking each one
        // up among the records kept made a large registry cost the square
        // of its size (docs/PERFORMANCE.md, "A large registry").
        let mut seen: HashSet<AgentId> = HashSet::with_capacity(agents.len());
        for (i, agent) in agents.into_iter().enumerate() {
            match serde_json::from_value::<AgentRecord>(agent) {
                Ok(rec) if !seen.insert(rec.id.clone()) => {
                    skipped.push(format!(
                        "agent entry {i}: duplicate id {:?}",
                        rec.id.as_str()
                    ));
                }
                Ok(rec) => records.push(rec),
                Err(e) => skipped.push(format!("agent entry {i}: {e}")),
            }
        }
        let session_names = match top.remove("session_names") {
            Some(v) => serde_json::from_value(v).unwrap_or_default(),
            None => Vec::new(),
        };
        Ok((
            Registry {
                session_name,
                updated_at,
                agents: records,
                session_names,
            },
            skipped,
        ))
    }
}

/// The id mark (`.swarm/agent_ids.json` in the files): the next agent
/// number to hand out, and which tmux server instance each registered
/// agent's pane belongs to (the registry itself cannot say: the Python
/// reader rejects extra keys). Only changed with the registry, in one
/// `RegistryStore::update`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AgentIds {
    /// Format version of this file (2 added `servers`).
    pub version: u32,
    /// The next `agent-N` number; never decreases.
    pub next: u64,
    /// Agent id -> server instance (`<server pid>:<start time>`) of its
    /// pane. An agent missing here (written by an older version or by the
    /// Python tool) is matched by pane id alone.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub servers: BTreeMap<String, String>,
}

impl AgentIds {
    const VERSION: u32 = 2;

    /// A mark that hands out `next` first and knows no servers.
    pub fn fresh(next: u64) -> AgentIds {
        AgentIds::new(next, BTreeMap::new())
    }

    /// A mark that hands out `next` first, with the agents' servers.
    pub(crate) fn new(next: u64, servers: BTreeMap<String, String>) -> AgentIds {
        AgentIds {
            version: Self::VERSION,
            next,
            servers,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::support::json::{self, Layout};
    use serde_json::json;

    fn python_registry() -> Value {
        json!({
          "session_name": "swarm",
          "updated_at": "2026-11-21T13:26:58.589963+00:00",
          "agents": [{
              "id": "agent-0", "pane_index": "swarm:0.0", "pid": 18877,
              "status": "active", "last_seen": "2026-11-21T13:26:58.589963+00:00",
              "session_name": "swarm", "tmux_pane_id": "%0"
          }],
          "session_names": ["swarm"]
        })
    }

    #[test]
    fn round_trips_the_python_shape_byte_for_byte() {
        let v = python_registry();
        let (reg, skipped) = Registry::from_value(v.clone()).expect("parse");
        assert!(skipped.is_empty());
        let ours = json::to_string(&reg, Layout::Indent2).expect("encode");
        assert_eq!(ours, json::to_string(&v, Layout::Indent2).expect("encode"));
        assert!(ours.starts_with("{\n  \"session_name\": \"swarm\",\n  \"updated_at\""));
    }

    #[test]
    fn old_registries_without_pane_ids_and_extra_keys_are_read() {
        let v = json!({
          "session_name": "s", "updated_at": "x", "extra": 1,
          "agents": [{"id": "agent-3", "pane_index": "s:0.1", "pid": 5,
                      "status": "stale", "last_seen": "y", "session_name": "s", "note": "z"}]
        });
        let (reg, skipped) = Registry::from_value(v).expect("parse");
        assert!(skipped.is_empty());
        assert_eq!(reg.agents[0].tmux_pane_id, None);
        assert_eq!(reg.agents[0].status, AgentStatus::Stale);
        assert!(reg.session_names.is_empty());
    }

    #[test]
    fn bad_entries_are_skipped_not_fatal() {
        let v = json!({
          "session_name": "s", "updated_at": "x",
          "agents": [
            {"id": "agent-0", "pane_index": "s:0.0", "pid": 1, "status": "active",
             "last_seen": "y", "session_name": "s", "tmux_pane_id": "%0"},
            {"id": "agent-1"},
            "nonsense",
            {"id": "bad id", "pane_index": "s:0.0", "pid": 1, "status": "active",
             "last_seen": "y", "session_name": "s"},
            {"id": "agent-0", "pane_index": "s:0.2", "pid": 1, "status": "active",
             "last_seen": "y", "session_name": "s"}
          ]
        });
        let (reg, skipped) = Registry::from_value(v).expect("parse");
        assert_eq!(reg.agents.len(), 1);
        assert_eq!(skipped.len(), 4, "{skipped:?}");
    }

    #[test]
    fn a_registry_of_50000_entries_keeps_the_first_of_each_id() {
        // Every tenth entry repeats the id of the one before it.
        let entry = |n: usize, pane: &str| {
            json!({"id": format!("agent-{n}"), "pane_index": pane, "pid": 1,
                   "status": "stale", "last_seen": "y", "session_name": "s"})
        };
        let agents: Vec<Value> = (0..50_000)
            .map(|i| {
                let n = if i % 10 == 9 { i - 1 } else { i };
                entry(n, if i % 10 == 9 { "s:0.1" } else { "s:0.0" })
            })
            .collect();
        let v = json!({"session_name": "s", "updated_at": "x", "agents": agents});
        let (reg, skipped) = Registry::from_value(v).expect("parse");
        assert_eq!(reg.agents.len(), 45_000);
        assert_eq!(skipped.len(), 5_000);
        assert_eq!(skipped[0], "agent entry 9: duplicate id \"agent-8\"");
        let kept = reg.find("agent-49998").expect("kept");
        assert_eq!(kept.pane_index, "s:0.0", "the first entry of an id is kept");
        assert!(reg.find("agent-49999").is_none());
        assert_eq!(reg.agents[44_999].id.as_str(), "agent-49998");
    }

    #[test]
    fn wrong_top_level_shapes_are_corrupt() {
        for v in [
            json!([]),
            json!({"agents": []}),
            json!({"session_name": "s", "updated_at": "x", "agents": {}}),
        ] {
            assert!(Registry::from_value(v).is_err());
        }
    }

    #[test]
    fn sessions_are_recomputed() {
        let (mut reg, _) = Registry::from_value(python_registry()).expect("parse");
        reg.agents.push(AgentRecord {
            session_name: "alpha".into(),
            ..reg.agents[0].clone()
        });
        reg.recompute_sessions();
        assert_eq!(reg.session_name, "swarm");
        assert_eq!(reg.session_names, ["alpha", "swarm"]);
        reg.agents.clear();
        reg.recompute_sessions();
        assert_eq!(reg.session_name, "unknown");
        assert!(reg.session_names.is_empty());
    }

    #[test]
    fn an_agent_is_elsewhere_only_when_both_hosts_are_known_and_differ() {
        let (reg, _) = Registry::from_value(python_registry()).expect("parse");
        let on = |host: Option<&str>| AgentRecord {
            host: host.map(str::to_owned),
            ..reg.agents[0].clone()
        };
        assert_eq!(on(Some("b")).elsewhere(Some("a")), Some("b"));
        assert_eq!(on(Some("a")).elsewhere(Some("a")), None);
        // The files (no host) and a record without one are always here.
        assert_eq!(on(Some("b")).elsewhere(None), None);
        assert_eq!(on(None).elsewhere(Some("a")), None);
    }
}
