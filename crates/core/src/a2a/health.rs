//! A look at every A2A store file for `swarm doctor`: how many records
//! each holds and what is wrong with it. Reads only; creates nothing.

use super::error::Result;

use super::a2a_store::{A2aStore, Collection, Stored};
use super::agent_card::AgentCard;
use super::conflict::Conflict;
use super::delegation::DelegationResult;
use super::entries::Record;
use super::learning::AgentPerformance;
use super::records::Records;
use super::shared_context::SharedContext;
use super::task::Task;

/// What one collection holds.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct FileHealth {
    /// The collection's name (`TASKS.json`).
    pub name: &'static str,
    /// Where it lives (the file's path in the files).
    pub location: String,
    /// Readable records.
    pub records: usize,
    /// What is wrong: a damaged file, unreadable records.
    pub problems: Vec<String>,
}

fn look<T: Record>(store: &dyn A2aStore, which: Collection) -> Result<Option<FileHealth>> {
    if store.read(which)? == Stored::Missing {
        return Ok(None);
    }
    let mut problems = Vec::new();
    let records = Records::new(store, which)
        .read::<T>(&mut problems)?
        .values()
        .count();
    Ok(Some(FileHealth {
        name: which.name(),
        location: store.location(which),
        records,
        problems,
    }))
}

/// Every A2A collection of the project that holds something.
pub(crate) fn check_files(store: &dyn A2aStore) -> Result<Vec<FileHealth>> {
    let found = [
        look::<AgentCard>(store, Collection::Cards)?,
        look::<Task>(store, Collection::Tasks)?,
        look::<DelegationResult>(store, Collection::DelegationHistory)?,
        look::<SharedContext>(store, Collection::Contexts)?,
        look::<AgentPerformance>(store, Collection::Learning)?,
        look::<Conflict>(store, Collection::Conflicts)?,
    ];
    Ok(found.into_iter().flatten().collect())
}
