//! The Python tool's agent-to-agent ("A2A") extras (docs/guide/python.md, Task coordination): agent
//! cards, tasks and their workflow, delegation by skill, shared contexts,
//! agent memory, learning data and advisory lock-conflict resolution.
//! Each lives in its own file in the project root, in the Python tool's
//! shape, so both tools read each other's data. None of them sends
//! messages or touches locks.

pub mod a2a_store;
mod agent_card;
mod card_registry;
mod conflict;
pub mod coordination;
mod delegation;
mod entries;
mod error;
mod health;
mod learning;
mod memory;
mod on_files;
mod records;
mod shared_context;
mod task;
mod task_store;

pub(crate) use a2a_store::A2aStore;
pub use agent_card::Availability;
pub use card_registry::{CardChanges, CardRegistry};
pub use conflict::{Conflict, ConflictLog, HeldBy, current_task};
pub use delegation::{Delegation, find_best};
pub use error::A2aError;
pub(crate) use health::check_files;
pub use learning::{AgentPerformance, LearningStore};
pub use memory::{AgentMemory, Cleared, MemoryStore};
/// A JSON object kept in its file order, so that what swarm writes back
/// lists keys in the order the Python tool wrote them, and "first" and
/// "top N" mean the same in both tools. Inserting an existing key keeps
/// its place (like a Python dict); a repeated key in a file keeps its first
/// place and its last value, as Python's json module reads it.
pub type OrderedMap<V> = indexmap::IndexMap<String, V>;
pub(crate) use on_files::FileA2a;
pub use shared_context::{ContextStore, SharedContext};
pub use task::{NewTask, Task, TaskPriority, TaskStatus};
pub use task_store::{TaskFilter, TaskStore, select};

#[cfg(test)]
mod tests {
    use super::OrderedMap;

    #[test]
    fn ordered_maps_keep_file_order_and_python_duplicate_rules() {
        let m: OrderedMap<f64> =
            serde_json::from_str(r#"{"z": 1, "a": 0.5, "z": 0.25}"#).expect("parse");
        let entries: Vec<(&str, f64)> = m.iter().map(|(k, v)| (k.as_str(), *v)).collect();
        assert_eq!(entries, [("z", 0.25), ("a", 0.5)]);
        assert_eq!(
            serde_json::to_string(&m).expect("write"),
            r#"{"z":0.25,"a":0.5}"#
        );
        assert!(serde_json::from_str::<OrderedMap<f64>>(r#"{"a": "x"}"#).is_err());
        assert!(serde_json::from_str::<OrderedMap<f64>>("[1]").is_err());
    }
}
