//! What swarm knows of usage limits, and where it keeps it: one document
//! (`Limits`) with a record per login at its limit and the agents whose
//! limit a person cleared. `FileLimits` (`on_files.rs`) keeps it in
//! `.swarm/limits.json`; the Redis store in one key.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use crate::domain::Timestamp;
use crate::store::StoreError;

/// One login at its usage limit.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LimitRecord {
    /// The login's identity (`Credential::id`).
    pub credential: String,
    /// The login, for people (never the key).
    pub label: String,
    /// The profile of the agents that use it (`claude`, `codex`, ...).
    pub vendor: String,
    /// When an agent first showed the limit.
    #[serde(with = "crate::domain::utc_iso")]
    pub since: Timestamp,
    /// When the agent said the limit resets (`None`: it did not say).
    #[serde(default, with = "crate::domain::utc_iso::option")]
    pub until: Option<Timestamp>,
    /// What the agent showed (one line, sanitised).
    #[serde(default)]
    pub shown: String,
    /// The agents that showed the limit themselves.
    #[serde(default)]
    pub limited: BTreeSet<String>,
    /// Every agent seen with this login (the limited ones too): all of
    /// them are held while it lasts.
    #[serde(default)]
    pub agents: BTreeSet<String>,
    /// How long after the reset its agents may take to carry on by
    /// themselves, in seconds: nothing is typed into them before then.
    #[serde(default)]
    pub continues_after_secs: u64,
    /// Whether the reset was dealt with (`limits.on_reset`).
    #[serde(default)]
    pub reset_done: bool,
    /// The agents given the resume prompt, each once.
    #[serde(default)]
    pub resumed: BTreeSet<String>,
}

impl LimitRecord {
    /// "limited until 15:00" or "limited, reset unknown", for people.
    pub fn describe(&self) -> String {
        match self.until {
            Some(t) => format!("limited until {}", until_for_people(t)),
            None => "limited, reset unknown".into(),
        }
    }
}

/// A reset time for people: the local clock time, with the date when it
/// is not today.
pub fn until_for_people(t: Timestamp) -> String {
    let local = t.utc().with_timezone(&chrono::Local);
    let today = chrono::Local::now().date_naive();
    if local.date_naive() == today {
        local.format("%H:%M").to_string()
    } else {
        local.format("%b %-d %H:%M").to_string()
    }
}

/// Everything swarm keeps about usage limits.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Limits {
    /// The logins at their limit, by `Credential::id`.
    #[serde(default)]
    pub credentials: BTreeMap<String, LimitRecord>,
    /// Agents whose limit a person cleared (`swarm limits clear`), with
    /// when: what their screens show is not taken for a limit again until
    /// they have worked.
    #[serde(default, with = "cleared_times")]
    pub cleared: BTreeMap<String, Timestamp>,
}

mod cleared_times {
    use std::collections::BTreeMap;

    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    use crate::domain::Timestamp;

    pub(super) fn serialize<S: Serializer>(
        map: &BTreeMap<String, Timestamp>,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        map.iter()
            .map(|(k, v)| (k.clone(), v.utc_iso()))
            .collect::<BTreeMap<String, String>>()
            .serialize(s)
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(
        d: D,
    ) -> Result<BTreeMap<String, Timestamp>, D::Error> {
        let raw = BTreeMap::<String, String>::deserialize(d)?;
        Ok(raw
            .into_iter()
            .filter_map(|(k, v)| Timestamp::parse_iso(&v).map(|t| (k, t)))
            .collect())
    }
}

impl Limits {
    /// The record of the login `agent` uses, when it is at its limit.
    pub fn of_agent(&self, agent: &str) -> Option<&LimitRecord> {
        self.credentials
            .values()
            .find(|r| r.agents.contains(agent) || r.limited.contains(agent))
    }

    /// Whether nothing is kept.
    pub fn is_empty(&self) -> bool {
        self.credentials.is_empty() && self.cleared.is_empty()
    }

    /// Records `seen`: an agent running with `login` showed its usage
    /// limit. Returns true when the login was not limited before.
    pub(crate) fn saw(&mut self, login: &crate::limits::Credential, seen: &Sighting<'_>) -> bool {
        let new = !self.credentials.contains_key(&login.id);
        let record = self
            .credentials
            .entry(login.id.clone())
            .or_insert_with(|| LimitRecord {
                credential: login.id.clone(),
                label: login.label.clone(),
                vendor: seen.vendor.to_owned(),
                since: seen.at,
                until: None,
                shown: String::new(),
                limited: BTreeSet::new(),
                agents: BTreeSet::new(),
                continues_after_secs: 0,
                reset_done: false,
                resumed: BTreeSet::new(),
            });
        record.limited.insert(seen.agent.to_owned());
        record.agents.insert(seen.agent.to_owned());
        seen.shown.clone_into(&mut record.shown);
        record.continues_after_secs = record.continues_after_secs.max(seen.patience.as_secs());
        if let Some(until) = seen.until
            && record.until != Some(until)
        {
            record.until = Some(until);
            record.reset_done = false;
        }
        new
    }
}

/// An agent seen at its usage limit (on its screen, or by its hook).
#[derive(Clone, Debug)]
pub(crate) struct Sighting<'a> {
    /// Its profile (`claude`, ...).
    pub vendor: &'a str,
    /// The agent.
    pub agent: &'a str,
    /// What it showed (one line).
    pub shown: &'a str,
    /// The reset it printed.
    pub until: Option<Timestamp>,
    /// How long after the reset it may take to carry on by itself.
    pub patience: std::time::Duration,
    /// When it was seen.
    pub at: Timestamp,
}

/// Where the limits are kept.
pub trait LimitStore: Send + Sync {
    /// The document; a damaged store reads as empty (what was there is
    /// kept aside, never silently overwritten).
    fn read(&self) -> Result<Limits, StoreError>;

    /// Changes the document in one atomic step (no other change can come
    /// between the read and the write); `change` says whether it changed
    /// anything, and nothing is written when it did not.
    fn update(&self, change: &mut dyn FnMut(&mut Limits) -> bool) -> Result<bool, StoreError>;
}

/// The guarantees every `LimitStore` gives, run against each.
#[cfg(any(test, feature = "testing"))]
pub mod contract {
    use std::sync::Arc;

    use super::*;

    /// A record for `credential`, limited `agent`.
    pub fn record(credential: &str, agent: &str) -> LimitRecord {
        LimitRecord {
            credential: credential.into(),
            label: "test login".into(),
            vendor: "claude".into(),
            since: Timestamp::parse_iso("2026-11-28T14:00:00Z").expect("valid"),
            until: Timestamp::parse_iso("2026-11-28T15:00:00Z"),
            shown: "limit".into(),
            limited: [agent.to_owned()].into(),
            agents: [agent.to_owned()].into(),
            continues_after_secs: 0,
            reset_done: false,
            resumed: BTreeSet::new(),
        }
    }

    /// Records, changes and forgets, and finds an agent's record.
    pub fn keeps_what_it_is_given(store: &dyn LimitStore) {
        assert!(store.read().expect("read").is_empty());
        assert!(!store.update(&mut |_| false).expect("update"));
        assert!(
            store
                .update(&mut |l| {
                    l.credentials.insert("c1".into(), record("c1", "agent-1"));
                    true
                })
                .expect("update")
        );
        store
            .update(&mut |l| {
                l.credentials
                    .get_mut("c1")
                    .map(|r| r.agents.insert("agent-2".into()))
                    .is_some()
            })
            .expect("update");
        let read = store.read().expect("read");
        assert_eq!(
            read.of_agent("agent-2").map(|r| r.credential.as_str()),
            Some("c1")
        );
        assert_eq!(read.of_agent("agent-3"), None);
        store
            .update(&mut |l| {
                l.credentials.remove("c1");
                l.cleared.insert(
                    "agent-1".into(),
                    Timestamp::parse_iso("2026-11-28T14:05:00Z").expect("valid"),
                );
                true
            })
            .expect("update");
        let read = store.read().expect("read");
        assert!(read.credentials.is_empty());
        assert_eq!(read.cleared.len(), 1);
    }

    /// Changes from many threads at once all land.
    pub fn no_change_is_lost(store: Arc<dyn LimitStore>) {
        let threads: Vec<_> = (0..8)
            .map(|i| {
                let store = Arc::clone(&store);
                std::thread::spawn(move || {
                    store
                        .update(&mut |l| {
                            let id = format!("c{i}");
                            l.credentials.insert(id.clone(), record(&id, "agent-1"));
                            true
                        })
                        .expect("update");
                })
            })
            .collect();
        for t in threads {
            t.join().expect("thread");
        }
        assert_eq!(store.read().expect("read").credentials.len(), 8);
    }
}
