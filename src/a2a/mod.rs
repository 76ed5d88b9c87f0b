//! The Python tool's agent-to-agent ("A2A") extras (spec 15): agent
//! cards, tasks and their workflow, delegation by skill, shared contexts,
//! agent memory, learning data and advisory lock-conflict resolution.
//! Each lives in its own file in the project root, in the Python tool's
//! shape, so both tools read each other's data. None of them sends
//! messages or touches locks.

mod agent_card;
mod card_registry;
mod conflict;
pub(crate) mod coordination;
mod delegation;
mod entries;
mod error;
mod health;
mod learning;
mod memory;
mod ordered_map;
mod shared_context;
mod store_file;
mod task;
mod task_store;

pub(crate) use agent_card::Availability;
pub(crate) use card_registry::{CardChanges, CardRegistry};
pub(crate) use conflict::{Conflict, ConflictLog, HeldBy, current_task};
pub(crate) use delegation::{Delegation, find_best};
pub(crate) use error::A2aError;
pub(crate) use health::check_files;
pub(crate) use learning::{AgentPerformance, LearningStore};
pub(crate) use memory::{AgentMemory, Cleared, MemoryStore};
pub(crate) use ordered_map::OrderedMap;
pub(crate) use shared_context::{ContextStore, SharedContext};
pub(crate) use task::{NewTask, Task, TaskPriority, TaskStatus};
pub(crate) use task_store::{TaskFilter, TaskStore, select};
