//! Who is running this command: the agent whose pane we are in.

use crate::agents::registry::{AgentRecord, Registry};
use crate::agents::registry_store::{IdsState, RegistryStore};
use crate::error::{Error, Result};
use crate::store::Paths;
use crate::tmux::{PaneId, Tmux};

/// How the identity was established.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// The registry has an active agent for `$TMUX_PANE` (no tmux call).
    Registry,
    /// The pane's `@swarm_agent` label, written by this project.
    PaneLabel,
}

/// This process's pane and, when it is a registered agent, its id.
#[derive(Clone, Debug)]
pub struct SelfIdentity {
    /// `$TMUX_PANE`.
    pub pane: PaneId,
    /// The agent id, if this pane is an agent of this project.
    pub agent: Option<String>,
    /// How `agent` was found.
    pub source: Option<Source>,
    /// The registry entry, when there is one.
    pub record: Option<AgentRecord>,
}

/// Reads `$TMUX_PANE`: `Ok(None)` outside tmux, an error when it is set to
/// something that is not a pane id.
pub fn current_pane() -> Result<Option<PaneId>> {
    match std::env::var("TMUX_PANE") {
        Ok(v) if !v.is_empty() => v
            .parse()
            .map(Some)
            .map_err(|e| Error::Invalid(format!("$TMUX_PANE is not a tmux pane id: {e}"))),
        _ => Ok(None),
    }
}

/// Finds which agent `pane` is: first the registry (a file read), then the
/// pane's own label (one tmux call), trusted only when this project wrote
/// it.
pub fn identify(
    tmux: &Tmux,
    store: &dyn RegistryStore,
    paths: &Paths,
    registry: Option<&Registry>,
    pane: PaneId,
) -> SelfIdentity {
    let record = registry
        .and_then(|r| r.find_by_pane(pane.as_str()))
        .filter(|r| on_this_server(store, r.id.as_str()))
        .cloned();
    if let Some(rec) = record
        .as_ref()
        .filter(|r| r.status == crate::agents::registry::AgentStatus::Active)
    {
        return SelfIdentity {
            agent: Some(rec.id.to_string()),
            source: Some(Source::Registry),
            record: record.clone(),
            pane,
        };
    }
    let label = match tmux.pane_labels(&pane) {
        Ok((Some(agent), Some(project))) if project == paths.fingerprint() => Some(agent),
        _ => None,
    };
    let record = match &label {
        Some(id) => registry.and_then(|r| r.find(id)).cloned().or(record),
        None => record,
    };
    SelfIdentity {
        source: label.as_ref().map(|_| Source::PaneLabel),
        agent: label,
        record,
        pane,
    }
}

/// False when the agent's pane is known to live on another tmux server
/// instance than the one in `$TMUX` (a restarted server reuses pane ids):
/// the registry entry is then someone else's. Unknown either way is true.
fn on_this_server(store: &dyn RegistryStore, agent: &str) -> bool {
    let Some(pid) = std::env::var("TMUX")
        .ok()
        .and_then(|v| v.split(',').nth(1).map(str::to_owned))
    else {
        return true;
    };
    let Ok(IdsState::Valid(ids)) = store.read_ids() else {
        return true;
    };
    ids.servers
        .get(agent)
        .and_then(|s| s.split(':').next())
        .is_none_or(|recorded| recorded == pid)
}
