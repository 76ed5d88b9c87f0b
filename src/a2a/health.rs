//! A look at every A2A store file for `swarm doctor`: how many records
//! each holds and what is wrong with it. Reads only; creates nothing.

use std::path::PathBuf;

use super::error::Result;
use crate::store::Paths;

use super::agent_card::AgentCard;
use super::conflict::Conflict;
use super::delegation::DelegationResult;
use super::entries::Record;
use super::learning::AgentPerformance;
use super::shared_context::SharedContext;
use super::store_file::StoreFile;
use super::task::Task;

/// What one store file holds.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct FileHealth {
    /// The file's name (`TASKS.json`).
    pub name: &'static str,
    /// Where it is.
    pub path: PathBuf,
    /// Readable records.
    pub records: usize,
    /// What is wrong: a damaged file, unreadable records.
    pub problems: Vec<String>,
}

fn look<T: Record>(name: &'static str, file: StoreFile) -> Result<Option<FileHealth>> {
    let path = file.path().to_owned();
    if std::fs::symlink_metadata(&path).is_err() {
        return Ok(None);
    }
    let mut problems = Vec::new();
    let records = file.read::<T>(&mut problems)?.values().count();
    Ok(Some(FileHealth {
        name,
        path,
        records,
        problems,
    }))
}

/// Every A2A store file of the project that exists.
pub(crate) fn check_files(paths: &Paths) -> Result<Vec<FileHealth>> {
    let found = [
        look::<AgentCard>(
            "AGENT_CARDS.json",
            StoreFile::new(paths.agent_cards(), "cards", true),
        )?,
        look::<Task>("TASKS.json", StoreFile::new(paths.tasks(), "tasks", true))?,
        look::<DelegationResult>(
            "DELEGATION_HISTORY.json",
            StoreFile::new(paths.delegation_history(), "history", false),
        )?,
        look::<SharedContext>(
            "CONTEXTS.json",
            StoreFile::new(paths.contexts(), "contexts", true),
        )?,
        look::<AgentPerformance>(
            "LEARNING_DATA.json",
            StoreFile::new(paths.learning_data(), "agents", true),
        )?,
        look::<Conflict>(
            "CONFLICT_LOG.json",
            StoreFile::new(paths.conflict_log(), "conflicts", false),
        )?,
    ];
    Ok(found.into_iter().flatten().collect())
}
