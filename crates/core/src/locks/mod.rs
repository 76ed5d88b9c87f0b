//! File locks between agents (docs/FORMATS.md; what they fix of the Python
//! tool's: docs/PYTHON.md): one lock file per path in `.agent_locks/`, named by the SHA-256 of
//! the root-relative path so that every spelling of a path is one lock and
//! the Python tool sees the same locks. A lock is exclusive or shared
//! (read by any number of agents, edited by none) and may be a lease that
//! ends by itself (`lock_plan.rs` has the rules; lock files keep those
//! terms beside them, `lock_terms.rs`). Locks are advisory; `guard`
//! enforces them where edits happen.

mod conflict;
mod error;
mod glob_model;
mod held_lock;
mod hold;
mod lock_dir;
mod lock_entry;
mod lock_events;
mod lock_index;
mod lock_key;
pub mod lock_plan;
mod lock_record;
mod lock_request;
mod lock_store;
mod lock_terms;
mod on_files;

pub use conflict::Conflict;
pub use error::LockError;
pub use glob_model::GlobModel;
pub use held_lock::HeldLock;
pub use hold::Hold;
pub use lock_entry::LockEntry;
pub use lock_events::{lapse_event, lock_event, renew_event};
pub(crate) use lock_key::KeyKind;
pub use lock_key::{LockKey, has_glob_chars, lock_file_name};
pub use lock_plan::{Pruned, Release};
pub use lock_record::LockRecord;
pub use lock_record::MAX_REASON_CHARS;
pub use lock_request::{LockRequest, parse_ttl};
pub use lock_store::Acquired;
#[cfg(any(test, feature = "testing"))]
pub use lock_store::contract as lock_contract;
pub use lock_store::{AcquiredLock, CleanReport, LockStore, Related, Released, unix_now};
pub(crate) use on_files::DAMAGED_GRACE;
pub use on_files::FileLocks;
