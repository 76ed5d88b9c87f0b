//! The agent registry and the agent-id mark on Redis: two string keys,
//! `{swarm:NAME}:registry` (the registry as JSON, the bytes the files
//! keep in `ACTIVE_AGENTS.json`) and `{swarm:NAME}:ids` (the id mark as
//! JSON, the bytes of `.swarm/agent_ids.json`).
//!
//! An update `WATCH`es both keys, reads both, lets discovery compute the
//! next ones and writes them back in one `MULTI`/`EXEC`; when another
//! client changed either key in between, `EXEC` fails and the whole step
//! (the change included) runs again on what is there now. So of racing
//! updates on any number of hosts each commits on top of the others: no
//! id is handed out twice and no agent is lost. The mark's `next` never
//! goes down: the stored value wins when the change lowers it.
//!
//! A stored value that does not parse (written by hand) is handed to the
//! change as absent and replaced; in the same transaction the damaged
//! bytes are copied to `{swarm:NAME}:<registry|ids>:damaged:<unix-ms>`,
//! and the update's warnings say where.

use serde_json::Value;

use swarm_core::support::json::{self, Layout};
use swarm_core::{
    AgentIds, IdsState, Registry, RegistryDoc, RegistryState, RegistryStore, StoreError,
};

use super::conn::{Redis, RedisTarget};
use super::keys::Keys;

/// The swarm's registry and id mark on Redis.
pub(crate) struct RedisRegistry {
    target: RedisTarget,
    /// This host's name: discovery records it with the agents it finds.
    host: String,
}

impl RedisRegistry {
    /// The registry of the swarm at `target`, seen from host `host`.
    pub(crate) fn new(target: RedisTarget, host: &str) -> RedisRegistry {
        RedisRegistry {
            target,
            host: host.to_owned(),
        }
    }
}

/// The registry's bytes as read: what they parse to, and the raw bytes
/// (kept aside when they are damaged).
fn parse_registry(raw: Option<&[u8]>) -> RegistryState {
    let Some(bytes) = raw else {
        return RegistryState::Missing;
    };
    match serde_json::from_slice::<Value>(bytes) {
        Err(e) => RegistryState::Corrupt(e.to_string()),
        Ok(v) => match Registry::from_value(v) {
            Ok((reg, skipped)) => RegistryState::Valid(reg, skipped),
            Err(why) => RegistryState::Corrupt(why),
        },
    }
}

/// The id mark's bytes as read.
fn parse_ids(raw: Option<&[u8]>) -> IdsState {
    match raw {
        None => IdsState::Missing,
        Some(bytes) => match serde_json::from_slice::<AgentIds>(bytes) {
            Ok(ids) => IdsState::Valid(ids),
            Err(e) => IdsState::Corrupt(e.to_string()),
        },
    }
}

/// The JSON bytes of `value`, as the files write them.
fn encode<T: serde::Serialize>(value: &T, key: &str) -> Result<Vec<u8>, StoreError> {
    json::to_vec(value, Layout::Indent2).map_err(|source| StoreError::Encode {
        path: key.into(),
        source,
    })
}

/// One key's value, `None` when there is none.
fn get(r: &mut Redis, key: &str) -> Result<Option<Vec<u8>>, StoreError> {
    r.query(redis::cmd("GET").arg(key))
}

impl RegistryStore for RedisRegistry {
    fn read(&self) -> Result<RegistryState, StoreError> {
        let mut r = self.target.connect()?;
        let key = r.keys.registry();
        // One GET: the value is replaced whole, so it is one version.
        Ok(parse_registry(get(&mut r, &key)?.as_deref()))
    }

    fn read_ids(&self) -> Result<IdsState, StoreError> {
        let mut r = self.target.connect()?;
        let key = r.keys.ids();
        Ok(parse_ids(get(&mut r, &key)?.as_deref()))
    }

    fn update(&self, change: &mut dyn FnMut(&mut RegistryDoc)) -> Result<Vec<String>, StoreError> {
        let mut r = self.target.connect()?;
        let reg_key = r.keys.registry();
        let ids_key = r.keys.ids();
        let watch = [reg_key.clone(), ids_key.clone()];
        r.transaction(&watch, |r| {
            let mut warnings = Vec::new();
            let mut pipe = redis::pipe();
            // True once a damaged value was set aside: then the pipeline
            // has writes to make whatever the change does.
            let mut damaged = false;
            let raw_reg = get(r, &reg_key)?;
            let registry = match parse_registry(raw_reg.as_deref()) {
                RegistryState::Missing => None,
                RegistryState::Valid(reg, skipped) => {
                    for s in skipped {
                        warnings.push(format!("{reg_key}: ignored {s}"));
                    }
                    Some(reg)
                }
                RegistryState::Corrupt(why) => {
                    let aside = Keys::damaged(&r.keys.registry());
                    // Moved aside, as the files rename it: a change that
                    // stores no registry leaves none, not the damage.
                    pipe.cmd("SET")
                        .arg(&aside)
                        .arg(raw_reg.unwrap_or_default())
                        .ignore();
                    pipe.cmd("DEL").arg(&reg_key).ignore();
                    damaged = true;
                    warnings.push(format!(
                        "{reg_key} on {} was damaged ({why}); kept it as {aside} and rebuilt \
                         the registry from the live panes",
                        self.target.shown_url()
                    ));
                    None
                }
            };
            let raw_ids = get(r, &ids_key)?;
            let (stored, rebuild_ids) = match parse_ids(raw_ids.as_deref()) {
                IdsState::Missing => (AgentIds::fresh(0), false),
                IdsState::Valid(ids) => (ids, false),
                IdsState::Corrupt(why) => {
                    let aside = Keys::damaged(&r.keys.ids());
                    pipe.cmd("SET")
                        .arg(&aside)
                        .arg(raw_ids.unwrap_or_default())
                        .ignore();
                    damaged = true;
                    warnings.push(format!(
                        "{ids_key} on {} was damaged ({why}); kept it as {aside} and rebuilt \
                         it from the registry and the pane labels",
                        self.target.shown_url()
                    ));
                    (AgentIds::fresh(0), true)
                }
            };
            let doc = RegistryDoc::changed(registry, &stored, change);
            let mut writes = damaged;
            if let Some(registry) = &doc.registry {
                pipe.cmd("SET")
                    .arg(&reg_key)
                    .arg(encode(registry, &reg_key)?)
                    .ignore();
                writes = true;
            }
            if doc.ids.next != stored.next || doc.ids.servers != stored.servers || rebuild_ids {
                pipe.cmd("SET")
                    .arg(&ids_key)
                    .arg(encode(&doc.ids, &ids_key)?)
                    .ignore();
                writes = true;
            }
            Ok::<_, StoreError>((writes.then_some(pipe), warnings))
        })
    }

    fn location(&self) -> String {
        format!(
            "{} (swarm {}) key {}",
            self.target.shown_url(),
            self.target.name(),
            self.target.keys().registry()
        )
    }

    fn host(&self) -> Option<&str> {
        Some(&self.host)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_server::TestServer;
    use swarm_core::contracts::registry as contract;

    #[test]
    fn redis_registry_keeps_the_contract() {
        let server = TestServer::start();
        contract::basics(&RedisRegistry::new(server.target("basics"), "host-a"));
        contract::racing_allocations(&RedisRegistry::new(server.target("race"), "host-a"));
    }

    #[test]
    fn damaged_values_are_kept_aside_reported_and_replaced() {
        let server = TestServer::start();
        let target = server.target("damaged");
        let store = RedisRegistry::new(target.clone(), "host-a");
        let mut r = target.connect().expect("connect");
        let (reg_key, ids_key) = (r.keys.registry(), r.keys.ids());
        r.query::<()>(redis::cmd("SET").arg(&reg_key).arg("{not json"))
            .expect("set");
        r.query::<()>(redis::cmd("SET").arg(&ids_key).arg("{\"next\": \"many\"}"))
            .expect("set");
        assert!(matches!(
            store.read().expect("read"),
            RegistryState::Corrupt(_)
        ));
        assert!(matches!(
            store.read_ids().expect("ids"),
            IdsState::Corrupt(_)
        ));

        let first = contract::allocate(&store);
        assert_eq!(first.number(), Some(0));
        let reg = store.read().expect("read").usable().expect("rebuilt");
        assert_eq!(reg.agents.len(), 1);
        assert!(matches!(store.read_ids().expect("ids"), IdsState::Valid(ids) if ids.next == 1));

        // Damage once more, and look at the warnings this time; a change
        // that stores no registry leaves none (the damage is moved aside).
        r.query::<()>(redis::cmd("SET").arg(&reg_key).arg("[1, 2]"))
            .expect("set");
        let warnings = store.update(&mut |_| {}).expect("update");
        assert!(matches!(
            store.read().expect("read"),
            RegistryState::Missing
        ));
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(
            warnings[0].contains("was damaged") && warnings[0].contains(":registry:damaged:"),
            "{warnings:?}"
        );

        let aside: Vec<String> = r
            .query(redis::cmd("KEYS").arg(r.keys.pattern("*:damaged:*")))
            .expect("keys");
        assert_eq!(aside.len(), 3, "{aside:?}");
        let mut kept: Vec<String> = aside
            .iter()
            .map(|k| r.query::<String>(redis::cmd("GET").arg(k)).expect("get"))
            .collect();
        kept.sort();
        assert_eq!(kept, ["[1, 2]", "{\"next\": \"many\"}", "{not json"]);
        assert!(store.location().contains("key {swarm:damaged}:registry"));
    }
}
