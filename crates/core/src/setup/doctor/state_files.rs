//! The state files in the project root and `.swarm/`: each is a plain,
//! private file (never a link), readable, and holds what it should. None
//! of these checks applies when the state is on a shared server.

use std::path::Path;

use crate::agents::registry::AgentStatus;
use crate::agents::registry_store::{IdsState, RegistryState};
use crate::store::inspect::{self, Kind};
use crate::store::{Loaded, StateFile, StoreError};

use super::project::on_shared_store;
use super::report::{CheckOutcome, CheckStatus, Subject};

/// How a state file is named in the report: its path below the project
/// root, as `Paths` places it.
pub(super) fn shown(s: &Subject<'_>, path: &Path) -> String {
    path.strip_prefix(s.paths.root())
        .unwrap_or(path)
        .display()
        .to_string()
}

/// A state file that cannot even be looked at: a read error other than
/// "missing".
pub(super) fn unreadable(check: &str, path: &Path, e: &StoreError) -> CheckOutcome {
    CheckOutcome::fail(
        check,
        format!("cannot read it: {e}"),
        format!(
            "check its owner and permissions (`ls -l {}`)",
            path.display()
        ),
    )
}

/// Problems with the file itself (a link, open to other users); `None`
/// when it is a plain private-enough file or missing.
pub(super) fn file_itself(check: &str, path: &Path) -> Option<CheckOutcome> {
    let st = match inspect::status(path) {
        Ok(st) => st,
        Err(e) => return Some(unreadable(check, path, &e)),
    };
    match st.kind {
        Kind::Missing | Kind::File => {}
        Kind::Symlink => {
            return Some(CheckOutcome::fail(
                check,
                "it is a symbolic link; swarm never follows links for state files",
                format!(
                    "replace the link with the real file, or remove it (`rm {}`)",
                    path.display()
                ),
            ));
        }
        Kind::Dir | Kind::Other => {
            return Some(CheckOutcome::fail(
                check,
                "it is not a regular file",
                format!("move {} out of the way", path.display()),
            ));
        }
    }
    (st.kind == Kind::File && st.mode & 0o022 != 0).then(|| {
        CheckOutcome::warn(
            check,
            format!("other users can change it (mode {:o})", st.mode & 0o777),
            format!("chmod 600 {}", path.display()),
        )
    })
}

/// The agent registry: a plain file, readable, every entry usable.
pub(super) fn registry_file(s: &Subject<'_>) -> Vec<CheckOutcome> {
    if on_shared_store(s) {
        return Vec::new();
    }
    let path = s.paths.registry();
    let check = &shown(s, &path);
    let mut out: Vec<CheckOutcome> = file_itself(check, &path).into_iter().collect();
    if out.iter().any(|o| o.status == CheckStatus::Fail) {
        return out;
    }
    out.push(match s.backend.registry.read() {
        Ok(RegistryState::Missing) => CheckOutcome::ok(
            check,
            "no registry yet (`swarm discover` or `swarm launch N` creates it)",
        ),
        Ok(RegistryState::Valid(reg, skipped)) if skipped.is_empty() => CheckOutcome::ok(
            check,
            format!("readable, {} agent(s) registered", reg.agents.len()),
        ),
        Ok(RegistryState::Valid(reg, skipped)) => CheckOutcome::warn(
            check,
            format!(
                "{} agent(s) registered, {} entr{} unusable",
                reg.agents.len(),
                skipped.len(),
                if skipped.len() == 1 { "y" } else { "ies" }
            ),
            "run `swarm discover` to rewrite the registry",
        )
        .with_details(skipped),
        Ok(RegistryState::Corrupt(why)) => CheckOutcome::fail(
            check,
            format!("damaged: {why}"),
            "run `swarm discover`: it moves the damaged file aside and rebuilds the registry \
             with the same ids",
        ),
        Err(e) => unreadable(check, &path, &e),
    });
    out
}

/// The agent-id mark: a plain file, readable.
pub(super) fn agent_ids_file(s: &Subject<'_>) -> Vec<CheckOutcome> {
    if on_shared_store(s) {
        return Vec::new();
    }
    let path = s.paths.agent_ids();
    let check = &shown(s, &path);
    let mut out: Vec<CheckOutcome> = file_itself(check, &path).into_iter().collect();
    if out.iter().any(|o| o.status == CheckStatus::Fail) {
        return out;
    }
    out.push(match s.backend.registry.read_ids() {
        Ok(IdsState::Missing) => {
            CheckOutcome::ok(check, "none yet (written with the first agent id)")
        }
        Ok(IdsState::Valid(ids)) => {
            CheckOutcome::ok(check, format!("readable, next id agent-{}", ids.next))
        }
        Ok(IdsState::Corrupt(why)) => CheckOutcome::fail(
            check,
            format!("damaged: {why}"),
            "run `swarm discover`: it rebuilds the id mark from the registry and the pane labels",
        ),
        Err(e) => unreadable(check, &path, &e),
    });
    out
}

/// The pending acknowledgements: a plain file of readable JSON.
pub(super) fn pending_acks(s: &Subject<'_>) -> Vec<CheckOutcome> {
    if on_shared_store(s) {
        return Vec::new();
    }
    let path = s.paths.pending_acks();
    json_file(
        &shown(s, &path),
        &path,
        "it is rebuilt by the next `swarm msg --ack`; move it aside to start over",
    )
}

/// The agent-to-agent store files (cards, tasks, ...) that exist.
pub(super) fn a2a_files(s: &Subject<'_>) -> Vec<CheckOutcome> {
    if on_shared_store(s) {
        return Vec::new();
    }
    let found = match crate::a2a::check_files(s.backend.a2a.as_ref()) {
        Ok(found) => found,
        Err(e) => {
            return vec![CheckOutcome::fail(
                "A2A files",
                format!("could not read them: {e}"),
                "check the files' owner and permissions",
            )];
        }
    };
    let mut out = Vec::new();
    for f in found {
        if let Some(o) = file_itself(f.name, Path::new(&f.location)) {
            out.push(o);
            continue;
        }
        out.push(if f.problems.is_empty() {
            CheckOutcome::ok(f.name, format!("readable, {} record(s)", f.records))
        } else {
            CheckOutcome::warn(
                f.name,
                format!("{} record(s) readable, with problems", f.records),
                "the next swarm command that writes it moves a damaged file aside; records it \
                 cannot read are kept as they are",
            )
            .with_details(f.problems)
        });
    }
    out
}

/// A JSON state file that is checked only for being readable JSON.
fn json_file(check: &str, path: &Path, fix: &str) -> Vec<CheckOutcome> {
    let mut out: Vec<CheckOutcome> = file_itself(check, path).into_iter().collect();
    if out.iter().any(|o| o.status == CheckStatus::Fail) {
        return out;
    }
    match StateFile::new(path).read_json::<serde_json::Value>() {
        Ok(Loaded::Missing) => {}
        Ok(Loaded::Valid(_)) => out.push(CheckOutcome::ok(check, "readable JSON")),
        Ok(Loaded::Corrupt(why)) => {
            out.push(CheckOutcome::fail(check, format!("damaged: {why}"), fix))
        }
        Err(e) => out.push(unreadable(check, path, &e)),
    }
    out
}

/// The lock directory: a directory whose lock files are JSON objects.
pub(super) fn lock_dir(s: &Subject<'_>) -> Vec<CheckOutcome> {
    if on_shared_store(s) {
        return Vec::new();
    }
    let dir = s.paths.locks_dir();
    // A directory is named with its slash.
    let check = &format!("{}/", shown(s, &dir));
    match inspect::status(&dir) {
        Ok(st) if st.kind == Kind::Missing => return Vec::new(),
        Ok(st) if st.kind != Kind::Dir => {
            return vec![CheckOutcome::fail(
                check,
                "it is not a directory",
                format!("move {} out of the way", dir.display()),
            )];
        }
        Ok(_) => {}
        Err(e) => return vec![unreadable(check, &dir, &e)],
    }
    let names = match inspect::list_dir(&dir) {
        Ok(n) => n,
        Err(e) => return vec![unreadable(check, &dir, &e)],
    };
    let locks: Vec<&String> = names
        .iter()
        .filter(|n| n.ends_with(".lock") && !n.starts_with('.'))
        .collect();
    let mut bad = Vec::new();
    for name in &locks {
        let path = dir.join(name);
        match StateFile::new(&path).read_json::<serde_json::Value>() {
            Ok(Loaded::Valid(v)) if v.is_object() => {}
            Ok(Loaded::Valid(_)) => bad.push(format!("{name}: not a JSON object")),
            Ok(Loaded::Corrupt(why)) => bad.push(format!("{name}: {why}")),
            Ok(Loaded::Missing) => {} // released meanwhile
            Err(e) => bad.push(format!("{name}: {e}")),
        }
    }
    vec![if bad.is_empty() {
        CheckOutcome::ok(check, format!("readable, {} lock file(s)", locks.len()))
    } else {
        CheckOutcome::warn(
            check,
            format!("{} of {} lock file(s) are damaged", bad.len(), locks.len()),
            format!(
                "a damaged lock protects nothing: look at it, then delete it from {}",
                dir.display()
            ),
        )
        .with_details(bad)
    }]
}

/// Locks whose holder is no active agent of the registry: nobody will
/// release them, and they keep everyone else out until they go stale.
pub(super) fn lock_holders(s: &Subject<'_>) -> Vec<CheckOutcome> {
    const CHECK: &str = "lock holders";
    let (Ok(locks), Ok(registry)) = (s.backend.locks.list(), s.backend.registry.read()) else {
        // The lock and registry checks report what cannot be read.
        return Vec::new();
    };
    let agents = match registry {
        RegistryState::Valid(reg, _) => reg.agents,
        RegistryState::Missing | RegistryState::Corrupt(_) => Vec::new(),
    };
    let orphaned: Vec<String> = locks
        .iter()
        .filter_map(|entry| match entry {
            crate::locks::LockEntry::Held(held) => Some(&held.record),
            crate::locks::LockEntry::Damaged { .. } => None,
        })
        // Every holder of a shared lock counts.
        .flat_map(|lock| lock.holds().into_iter().map(move |h| (lock, h.agent_id)))
        .filter_map(|(lock, holder)| {
            let why = match agents.iter().find(|a| a.id.as_str() == holder) {
                None => "not in the registry",
                Some(a) if a.status == AgentStatus::Active => return None,
                Some(a) if a.status == AgentStatus::Stale => "stale: its program has exited",
                Some(_) => "gone",
            };
            Some(format!("{} held by {holder} ({why})", lock.filepath))
        })
        .collect();
    if locks.is_empty() {
        return Vec::new();
    }
    if orphaned.is_empty() {
        return vec![CheckOutcome::ok(
            CHECK,
            format!("every lock ({}) is held by an active agent", locks.len()),
        )];
    }
    vec![
        CheckOutcome::warn(
            CHECK,
            format!(
                "{} lock(s) held by agents that are not in the registry or not active: \
                 nobody will release them",
                orphaned.len()
            ),
            "`swarm down` releases the locks of the agents it stops; release these with \
             `swarm unlock PATH --force` (from an agent's pane, or with --agent ID), or wait \
             until they are older than locking.stale_timeout and run `swarm locks --clean`",
        )
        .with_details(orphaned),
    ]
}
