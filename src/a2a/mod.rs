//! The Python tool's agent-to-agent ("A2A") extras (spec 15): agent
//! cards, tasks and their workflow, delegation by skill, shared contexts,
//! agent memory, learning data and advisory lock-conflict resolution.
//! Each lives in its own file in the project root, in the Python tool's
//! shape, so both tools read each other's data. None of them sends
//! messages or touches locks.

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
mod ordered_map;
mod shared_context;
mod store_file;
mod task;
mod task_store;

pub use agent_card::{AgentCard, Availability, DEFAULT_PROFICIENCY};
pub use card_registry::{CardChanges, CardRegistry, Registered};
pub use conflict::{Conflict, ConflictLog, HeldBy, LOG_CAP, Resolution, Strategy, current_task};
pub use delegation::{
    ALTERNATIVES, BestAgent, Delegation, DelegationResult, EXPLICIT_IMPORTANCE, FILE_IMPORTANCE,
    Fit, HISTORY_CAP, KEYWORD_IMPORTANCE, NO_REQUIREMENT_SCORE, Requirement, SPECIALIZATION_BONUS,
    SPECIALIZATION_CAP, alternatives, find_best, priority_boost, requirements, score,
};
pub use entries::{Entries, Record};
pub use error::A2aError;
pub use health::{FileHealth, check_files};
pub use learning::{AgentPerformance, LearningStore, SkillMetrics};
pub use memory::{
    AgentMemory, AgentRelationship, Cleared, LearnedPattern, MemoryStore, TaskMemory,
};
pub use ordered_map::OrderedMap;
pub use shared_context::{ContextStatus, ContextStore, Decision, MAX_DECISIONS, SharedContext};
pub use store_file::{FORMAT_VERSION, StoreFile};
pub use task::{HistoryEntry, NewTask, Task, TaskPriority, TaskStatus};
pub use task_store::{TaskFilter, TaskStore, select};
