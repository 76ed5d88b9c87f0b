//! `FileRegistry`: `RegistryStore` on the project's files, the registry in
//! `ACTIVE_AGENTS.json` (the Python tool's exact bytes) and the id mark in
//! `.swarm/agent_ids.json`. Both are written under the registry's lock,
//! which the Python tool takes too; a damaged file is moved aside before
//! it is replaced.

use serde_json::Value;

use crate::agents::registry::{AgentIds, Registry};
use crate::agents::registry_store::{IdsState, RegistryDoc, RegistryState, RegistryStore};
use crate::store::{DEFAULT_LOCK_TIMEOUT, Loaded, Paths, StateFile, StateLock, StoreError};
use crate::support::json::{self, Layout};

/// The registry files of a project.
#[derive(Clone, Debug)]
pub(crate) struct FileRegistry {
    registry: StateFile,
    ids: StateFile,
}

impl FileRegistry {
    /// The registry of the project laid out by `paths`.
    pub(crate) fn new(paths: &Paths) -> FileRegistry {
        FileRegistry {
            registry: StateFile::new(paths.registry()),
            ids: StateFile::new(paths.agent_ids()),
        }
    }

    fn write_registry(&self, lock: &StateLock, registry: &Registry) -> Result<(), StoreError> {
        // Indent 2, ASCII, no trailing newline: the Python tool's bytes.
        let bytes =
            json::to_vec(registry, Layout::Indent2).map_err(|source| StoreError::Encode {
                path: self.registry.path().to_owned(),
                source,
            })?;
        self.registry.write(lock, &bytes)
    }

    fn write_ids(&self, ids: &AgentIds) -> Result<(), StoreError> {
        // Its own sidecar lock is uncontended: every writer already holds
        // the registry's lock.
        let lock = self.ids.lock(DEFAULT_LOCK_TIMEOUT)?;
        let bytes = json::to_vec(ids, Layout::Indent2).map_err(|source| StoreError::Encode {
            path: self.ids.path().to_owned(),
            source,
        })?;
        self.ids.write(&lock, &bytes)
    }
}

fn moved(aside: Option<&std::path::Path>) -> String {
    aside
        .map(|p| format!("moved it to {}", p.display()))
        .unwrap_or_else(|| "it could not be moved aside".into())
}

impl RegistryStore for FileRegistry {
    fn read(&self) -> Result<RegistryState, StoreError> {
        // Writes are atomic renames, so an unlocked read sees a complete
        // old or new version.
        Ok(match self.registry.read_json::<Value>()? {
            Loaded::Missing => RegistryState::Missing,
            Loaded::Corrupt(why) => RegistryState::Corrupt(why),
            Loaded::Valid(v) => match Registry::from_value(v) {
                Ok((reg, skipped)) => RegistryState::Valid(reg, skipped),
                Err(why) => RegistryState::Corrupt(why),
            },
        })
    }

    fn read_ids(&self) -> Result<IdsState, StoreError> {
        Ok(match self.ids.read_json::<AgentIds>()? {
            Loaded::Missing => IdsState::Missing,
            Loaded::Valid(ids) => IdsState::Valid(ids),
            Loaded::Corrupt(why) => IdsState::Corrupt(why),
        })
    }

    fn update(&self, change: &mut dyn FnMut(&mut RegistryDoc)) -> Result<Vec<String>, StoreError> {
        let mut warnings = Vec::new();
        let lock = self.registry.lock(DEFAULT_LOCK_TIMEOUT)?;
        let registry = match self.read()? {
            RegistryState::Missing => None,
            RegistryState::Valid(reg, skipped) => {
                for s in skipped {
                    warnings.push(format!("{}: ignored {s}", self.registry.path().display()));
                }
                Some(reg)
            }
            RegistryState::Corrupt(why) => {
                let aside = self.registry.preserve(&lock)?;
                warnings.push(format!(
                    "{} was damaged ({why}); {} and rebuilt the registry from the live panes",
                    self.registry.path().display(),
                    moved(aside.as_deref()),
                ));
                None
            }
        };
        let (stored, rebuild_ids) = match self.read_ids()? {
            IdsState::Missing => (AgentIds::fresh(0), false),
            IdsState::Valid(ids) => (ids, false),
            IdsState::Corrupt(why) => {
                let aside = {
                    let ids_lock = self.ids.lock(DEFAULT_LOCK_TIMEOUT)?;
                    self.ids.preserve(&ids_lock)?
                };
                warnings.push(format!(
                    "{} was damaged ({why}); {} and rebuilt it from the registry and the pane labels",
                    self.ids.path().display(),
                    moved(aside.as_deref()),
                ));
                (AgentIds::fresh(0), true)
            }
        };
        let doc = RegistryDoc::changed(registry, &stored, change);
        if let Some(registry) = &doc.registry {
            self.write_registry(&lock, registry)?;
        }
        if doc.ids.next != stored.next || doc.ids.servers != stored.servers || rebuild_ids {
            self.write_ids(&doc.ids)?;
        }
        Ok(warnings)
    }

    fn location(&self) -> String {
        self.registry.path().display().to_string()
    }

    fn set_aside_damaged(&self) -> Result<Option<String>, StoreError> {
        let lock = self.registry.lock(DEFAULT_LOCK_TIMEOUT)?;
        // Looked at again under the lock: a discovery may have replaced it.
        if !matches!(self.read()?, RegistryState::Corrupt(_)) {
            return Ok(None);
        }
        Ok(self
            .registry
            .preserve(&lock)?
            .map(|p| p.display().to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agents::registry_store::contract;

    #[test]
    fn keeps_the_registry_store_contract() {
        let dir = tempfile::tempdir().expect("tempdir");
        contract::basics(&FileRegistry::new(&Paths::new(dir.path())));
    }

    #[test]
    fn racing_allocations_hand_out_distinct_ids() {
        let dir = tempfile::tempdir().expect("tempdir");
        contract::racing_allocations(&FileRegistry::new(&Paths::new(dir.path())));
    }

    #[test]
    fn writes_the_python_bytes_and_moves_damage_aside() {
        let dir = tempfile::tempdir().expect("tempdir");
        let paths = Paths::new(dir.path());
        let store = FileRegistry::new(&paths);
        let python = "{\n  \"session_name\": \"swarm\",\n  \"updated_at\": \"2026-11-21T13:26:58.589963+00:00\",\n  \"agents\": [\n    {\n      \"id\": \"agent-0\",\n      \"pane_index\": \"swarm:0.0\",\n      \"pid\": 18877,\n      \"status\": \"active\",\n      \"last_seen\": \"2026-11-21T13:26:58.589963+00:00\",\n      \"session_name\": \"swarm\",\n      \"tmux_pane_id\": \"%0\"\n    }\n  ],\n  \"session_names\": [\n    \"swarm\"\n  ]\n}";
        std::fs::write(paths.registry(), python).expect("write");
        std::fs::create_dir_all(paths.agent_ids().parent().expect("dir")).expect("mkdir");
        std::fs::write(paths.agent_ids(), "{\"next\": \"many\"}").expect("write");
        let warnings = store.update(&mut |_| {}).expect("update");
        assert_eq!(
            std::fs::read_to_string(paths.registry()).expect("read"),
            python,
            "a registry read and written back keeps its bytes"
        );
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(warnings[0].contains("moved it to"), "{warnings:?}");
        assert!(matches!(store.read_ids().expect("ids"), IdsState::Valid(ids) if ids.next == 0));

        std::fs::write(paths.registry(), "{not json").expect("write");
        assert!(matches!(
            store.read().expect("read"),
            RegistryState::Corrupt(_)
        ));
        let warnings = store.update(&mut |_| {}).expect("update");
        assert!(warnings[0].contains("rebuilt the registry"), "{warnings:?}");
        let aside = std::fs::read_dir(dir.path())
            .expect("ls")
            .filter_map(Result::ok)
            .filter(|e| e.file_name().to_string_lossy().contains(".corrupt-"))
            .count();
        assert_eq!(aside, 1, "the damaged registry is kept");
    }
}
