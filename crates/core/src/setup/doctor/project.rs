//! Where the project's state lives: the project root and how it was
//! found, and the shared store (the files, or a server that must answer).

use crate::agents::registry_store::RegistryState;
use crate::store::RootSource;

use super::report::{CheckOutcome, Subject};

/// The project root, how it was found, and whether it is a directory.
pub(super) fn project_root(s: &Subject<'_>) -> Vec<CheckOutcome> {
    const CHECK: &str = "project root";
    let path = s.root.path.display();
    vec![match &s.root.source {
        RootSource::CurrentDir => CheckOutcome::warn(
            CHECK,
            format!("{path}: no project marker found, so the current directory is used"),
            "run swarm from the project (a directory with .git or another marker), or pass \
             --root / set CLAUDESWARM_ROOT so every agent uses the same root",
        ),
        source if !s.root.path.is_dir() => CheckOutcome::fail(
            CHECK,
            format!("{path} (from {source}) is not a directory"),
            "point --root or CLAUDESWARM_ROOT at the project directory",
        ),
        source => CheckOutcome::ok(CHECK, format!("{path} (found by {source})")),
    }]
}

/// True when the shared state is on a server: the checks of the state
/// files do not apply (the `store` check reads it through the stores).
pub(super) fn on_shared_store(s: &Subject<'_>) -> bool {
    s.backend.shared_host().is_some()
}

/// Where the shared state lives, and for a server whether it answers
/// (one read of the locks, which every host shares).
pub(super) fn shared_store(s: &Subject<'_>) -> Vec<CheckOutcome> {
    let store = s.backend.describe();
    let host = s.backend.host();
    if store == "files" {
        return vec![CheckOutcome::ok(
            "store",
            format!("the project's state files (this host: {host})"),
        )];
    }
    vec![match s.backend.locks.list() {
        Ok(locks) => {
            // What the server holds, read through the stores: the file
            // checks below do not apply to it.
            let agents = match s.backend.registry.read() {
                Ok(RegistryState::Valid(reg, _)) => {
                    let here = reg
                        .agents
                        .iter()
                        .filter(|a| a.host.as_deref() == Some(host))
                        .count();
                    format!("{} agent(s), {here} on this host", reg.agents.len())
                }
                Ok(RegistryState::Missing) => "no registry yet".to_owned(),
                Ok(RegistryState::Corrupt(why)) => {
                    return vec![CheckOutcome::fail(
                        "store",
                        format!("{store}: the registry is damaged ({why})"),
                        "run `swarm discover`: it keeps the damaged value aside and rebuilds the registry",
                    )];
                }
                Err(e) => format!("registry unreadable ({e})"),
            };
            let acks = s.backend.acks.list().map_or(0, |l| l.entries.len());
            let held = s.held.list().map_or(0, |h| h.len());
            CheckOutcome::ok(
                "store",
                format!(
                    "{store}, this host: {host}; it answers: {agents}, {} lock(s), {acks} pending ACK(s), {held} held message(s)",
                    locks.len()
                ),
            )
        }
        Err(e) => CheckOutcome::fail(
            "store",
            format!("{store}: {e}"),
            "start the server or fix [store] url (SWARM_STORE_URL); every command that shares state fails until it answers",
        ),
    }]
}
