//! The only code that touches state files: where the project root is, where
//! each file lives, and atomic, lock-protected reads and writes.

mod append_file;
pub(crate) mod audit;
mod document;
mod error;
mod foreign_document;
mod foreign_records;
pub(crate) mod inspect;
mod log_files;
pub(crate) mod notices;
mod paths;
mod presence_lock;
mod root;
mod sqlite_file;
mod state_dir;
mod state_file;

pub(crate) use append_file::{AppendFile, AppendMode, open_append};
pub(crate) use document::{read_document, write_document};
pub use error::StoreError;
pub(crate) use foreign_document::ForeignDocument;
pub(crate) use foreign_records::{RecordFile, read_records, record_file, record_files_in};
pub use log_files::LogFiles;
pub(crate) use log_files::{FileStat, ReadMeter, read_at};
pub use paths::Paths;
pub(crate) use paths::a2a_names;
pub(crate) use presence_lock::{PresenceLock, Present};
pub use root::{ProjectRoot, RootSource};
pub(crate) use sqlite_file::{SqliteFile, is_damage};
pub use state_dir::StateDir;
pub use state_file::{DEFAULT_LOCK_TIMEOUT, ensure_private_dir};
pub(crate) use state_file::{Loaded, StateFile, StateLock};
