//! Agent memory, `.agent_memory/<agent_id>.json` (docs/guide/python.md, Task coordination):
//! what an agent remembers of past tasks, patterns it learned and how
//! much it trusts other agents. swarm reads and clears it; reading never
//! creates a file (the original created an empty memory on every read).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::a2a_store::{A2aStore, Stored};
use super::error::Result;
use crate::domain::AgentId;
use crate::support::time;

use super::OrderedMap;

/// One remembered task.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TaskMemory {
    /// The task.
    #[serde(default)]
    pub task_id: String,
    /// What it was for.
    #[serde(default)]
    pub objective: String,
    /// How it went.
    #[serde(default)]
    pub outcome: String,
    /// Skills it took.
    #[serde(default)]
    pub skills_used: Vec<String>,
    /// Files it changed.
    #[serde(default)]
    pub files_touched: Vec<String>,
    /// How long it took.
    #[serde(default)]
    pub duration_seconds: f64,
    /// What was learned.
    #[serde(default)]
    pub lessons_learned: Vec<String>,
    /// When.
    #[serde(default)]
    pub timestamp: String,
}

/// A pattern the agent learned.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LearnedPattern {
    /// First 12 hex digits of the MD5 of the description.
    #[serde(default)]
    pub pattern_id: String,
    /// What kind of pattern.
    #[serde(default)]
    pub pattern_type: String,
    /// The pattern.
    #[serde(default)]
    pub description: String,
    /// Where it applies.
    #[serde(default)]
    pub context: String,
    /// How well it works, 0..1.
    #[serde(default = "half")]
    pub effectiveness: f64,
    /// How often it was seen.
    #[serde(default = "one")]
    pub occurrences: u64,
    /// First seen.
    #[serde(default)]
    pub created_at: String,
    /// Last seen.
    #[serde(default)]
    pub last_seen: String,
}

/// What the agent thinks of another agent.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AgentRelationship {
    /// The other agent.
    #[serde(default)]
    pub agent_id: String,
    /// 0..1.
    #[serde(default = "half")]
    pub trust_score: f64,
    /// 0..1.
    #[serde(default = "half")]
    pub reliability_score: f64,
    /// 0..1.
    #[serde(default = "half")]
    pub speed_score: f64,
    /// Times they worked together.
    #[serde(default)]
    pub collaboration_count: u64,
    /// Of which went well.
    #[serde(default)]
    pub positive_interactions: u64,
    /// Of which went badly.
    #[serde(default)]
    pub negative_interactions: u64,
    /// What it is good at.
    #[serde(default)]
    pub strengths: Vec<String>,
    /// Last time they worked together.
    #[serde(default)]
    pub last_interaction: Option<String>,
    /// Free notes.
    #[serde(default)]
    pub notes: String,
}

fn half() -> f64 {
    0.5
}

fn one() -> u64 {
    1
}

/// One agent's memory.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AgentMemory {
    /// Whose.
    pub agent_id: String,
    /// Remembered tasks, newest first.
    #[serde(default)]
    pub task_history: Vec<TaskMemory>,
    /// Learned patterns.
    #[serde(default)]
    pub patterns: Vec<LearnedPattern>,
    /// Other agents, by id.
    #[serde(default)]
    pub relationships: OrderedMap<AgentRelationship>,
    /// Facts.
    #[serde(default)]
    pub knowledge: Map<String, Value>,
    /// Preferences.
    #[serde(default)]
    pub preferences: Map<String, Value>,
    /// Created (aware UTC ISO).
    #[serde(default = "now_iso")]
    pub created_at: String,
    /// Last changed (aware UTC ISO).
    #[serde(default = "now_iso")]
    pub updated_at: String,
    /// Keys written by another version of either tool, kept as they are.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

fn now_iso() -> String {
    time::utc_iso(time::now())
}

impl AgentMemory {
    /// An empty memory, as the Python tool would create it (not stored).
    pub fn empty(agent: &str) -> AgentMemory {
        let now = now_iso();
        AgentMemory {
            agent_id: agent.to_owned(),
            task_history: Vec::new(),
            patterns: Vec::new(),
            relationships: OrderedMap::new(),
            knowledge: Map::new(),
            preferences: Map::new(),
            created_at: now.clone(),
            updated_at: now,
            extra: Map::new(),
        }
    }
}

/// What `clear` did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Cleared {
    /// The memory file was deleted.
    Removed,
    /// There was no memory file.
    Nothing,
    /// The memory was damaged; it was moved aside here rather than deleted.
    MovedAside(String),
}

/// The agents' memories.
#[derive(Clone, Copy)]
pub struct MemoryStore<'a> {
    store: &'a dyn A2aStore,
}

impl<'a> MemoryStore<'a> {
    /// The memories kept in `store`.
    pub fn new(store: &'a dyn A2aStore) -> MemoryStore<'a> {
        MemoryStore { store }
    }

    /// The memory of `agent`; `None` when it has none. A damaged one is
    /// reported in `notes` and read as none.
    pub fn get(&self, agent: &str, notes: &mut Vec<String>) -> Result<Option<AgentMemory>> {
        let id = AgentId::parse(agent)?;
        let damaged =
            |why: String| format!("{} is damaged ({why})", self.store.memory_location(&id));
        Ok(match self.store.read_memory(&id)? {
            Stored::Missing => None,
            Stored::Records(v) => match serde_json::from_value::<AgentMemory>(v) {
                Ok(m) => Some(m),
                Err(e) => {
                    notes.push(damaged(e.to_string()));
                    None
                }
            },
            Stored::Damaged(why) => {
                notes.push(damaged(why));
                None
            }
        })
    }

    /// Forgets everything `agent` remembers. A damaged memory is moved
    /// aside (kept for inspection), not deleted.
    pub fn clear(&self, agent: &str) -> Result<Cleared> {
        self.store.clear_memory(&AgentId::parse(agent)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    #[test]
    fn reads_without_creating_and_clears() {
        let dir = tempfile::tempdir().expect("tempdir");
        let paths = crate::store::Paths::new(dir.path());
        let files = crate::a2a::FileA2a::new(&paths);
        let store = MemoryStore::new(&files);
        let mut notes = Vec::new();
        assert_eq!(store.get("agent-0", &mut notes).expect("get"), None);
        assert!(!paths.memory_dir().exists(), "a read creates nothing");
        assert_eq!(store.clear("agent-0").expect("clear"), Cleared::Nothing);
        assert!(
            !paths.memory_dir().exists(),
            "clearing nothing creates nothing"
        );
        fs::create_dir(paths.memory_dir()).expect("mkdir");
        let m = AgentMemory::empty("agent-0");
        fs::write(
            paths.memory_dir().join("agent-0.json"),
            serde_json::to_string(&m).expect("json"),
        )
        .expect("write");
        assert_eq!(store.get("agent-0", &mut notes).expect("get"), Some(m));
        assert_eq!(store.clear("agent-0").expect("clear"), Cleared::Removed);
        assert_eq!(store.get("agent-0", &mut notes).expect("get"), None);
        assert!(store.get("../etc", &mut notes).is_err());
        fs::write(paths.memory_dir().join("agent-1.json"), "{").expect("write");
        assert_eq!(store.get("agent-1", &mut notes).expect("get"), None);
        assert!(notes[0].contains("damaged"));
        assert!(matches!(
            store.clear("agent-1").expect("clear"),
            Cleared::MovedAside(_)
        ));
    }

    #[test]
    fn the_python_key_order() {
        let keys: Vec<String> = serde_json::to_value(AgentMemory::empty("a"))
            .expect("value")
            .as_object()
            .expect("object")
            .keys()
            .cloned()
            .collect();
        assert_eq!(
            keys,
            [
                "agent_id",
                "task_history",
                "patterns",
                "relationships",
                "knowledge",
                "preferences",
                "created_at",
                "updated_at"
            ]
        );
    }
}
