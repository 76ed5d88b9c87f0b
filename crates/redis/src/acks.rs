//! The pending acknowledgements on Redis: two string keys,
//! `{swarm:NAME}:acks` (the pending list as JSON, the shape of
//! `PENDING_ACKS.json`: `{"version": N, "pending_acks": [...]}`) and
//! `{swarm:NAME}:acks:due` (the earliest due time as Unix microseconds, or
//! `none`), always written together in one `MULTI`/`EXEC`.
//!
//! Every change (`record`, `acknowledge`, `claim_due`) `WATCH`es both keys,
//! reads the list, decides and writes the list and the due time back in
//! one transaction; when another client changed them in between, `EXEC`
//! fails and the step runs again on what is there now. So of racing
//! acknowledgements of one entry exactly one removes it, and of racing
//! claims each due entry is claimed (advanced or removed) by exactly one
//! caller before it sends anything. `next_due` is one round trip (the due
//! key, and whether the list exists): since both keys change in the same
//! transaction it is never later than the truth; a list without a due
//! time (written by hand) reads as `Unknown`, and any error too.
//!
//! A list that does not parse is kept aside under
//! `{swarm:NAME}:acks:damaged:<unix-ms>-<random>` in the transaction that
//! replaces it with an empty list, and the change's warnings say where.

use chrono::{DateTime, Utc};

use swarm_core::support::json::{self, Layout};
use swarm_core::{
    AckResult, AckStore, AgentId, Claim, Claimed, NextDue, PendingDoc, PendingEntry, PendingList,
    StoreError, Timestamp,
};

use super::conn::{Redis, RedisTarget};
use super::keys::Keys;

/// The swarm's pending acknowledgements on Redis.
pub(crate) struct RedisAcks {
    target: RedisTarget,
}

/// The list as one change found it, with the writes that change makes.
struct Loaded {
    /// The list (empty when it was damaged).
    doc: PendingDoc,
    /// The writes so far (a damaged copy set aside).
    pipe: redis::Pipeline,
    /// What the user should know.
    warnings: Vec<String>,
    /// True when the stored due time must be rewritten even if the list
    /// does not change (damage, or no due time stored).
    must_save: bool,
}

impl RedisAcks {
    /// The pending list of the swarm at `target`.
    pub(crate) fn new(target: RedisTarget) -> RedisAcks {
        RedisAcks { target }
    }

    /// Reads the list inside a transaction; a damaged list is set aside
    /// (in the pipeline) and starts empty.
    fn load(&self, r: &mut Redis, list: &str, due: &str) -> Result<Loaded, StoreError> {
        let (raw, due_now): (Option<Vec<u8>>, Option<String>) =
            r.query(redis::cmd("MGET").arg(list).arg(due))?;
        let mut pipe = redis::pipe();
        let mut warnings = Vec::new();
        let doc = match raw {
            None => PendingDoc::default(),
            Some(bytes) => match serde_json::from_slice::<PendingDoc>(&bytes) {
                Ok(doc) => doc,
                Err(e) => {
                    let aside = Keys::damaged(&r.keys.acks());
                    pipe.cmd("SET").arg(&aside).arg(bytes).ignore();
                    warnings.push(format!(
                        "{list} on {} was damaged ({e}); kept it as {aside} and started an \
                         empty list of pending acknowledgements",
                        self.target.shown_url()
                    ));
                    PendingDoc::default()
                }
            },
        };
        let must_save = !warnings.is_empty() || due_now.is_none();
        Ok(Loaded {
            doc,
            pipe,
            warnings,
            must_save,
        })
    }

    /// Adds the writes of the list and its earliest due time to `pipe`.
    fn save(
        pipe: &mut redis::Pipeline,
        doc: &mut PendingDoc,
        list: &str,
        due: &str,
    ) -> Result<(), StoreError> {
        doc.version += 1;
        let bytes = json::to_vec(doc, Layout::Line).map_err(|source| StoreError::Encode {
            path: list.into(),
            source,
        })?;
        let earliest = doc
            .pending_acks
            .iter()
            .map(|e| e.next_retry_at)
            .min()
            .map(|t| t.utc().timestamp_micros().to_string())
            .unwrap_or_else(|| "none".into());
        pipe.cmd("SET").arg(list).arg(bytes).ignore();
        pipe.cmd("SET").arg(due).arg(earliest).ignore();
        Ok(())
    }

    /// Runs one change of the list as a transaction on both keys.
    fn change<T>(
        &self,
        mut step: impl FnMut(&mut PendingDoc) -> (T, bool),
    ) -> Result<(T, Vec<String>), StoreError> {
        let mut r = self.target.connect()?;
        let list = r.keys.acks();
        let due = r.keys.acks_due();
        let watch = [list.clone(), due.clone()];
        r.transaction(&watch, |r| {
            let Loaded {
                mut doc,
                mut pipe,
                warnings,
                must_save,
            } = self.load(r, &list, &due)?;
            let (out, changed) = step(&mut doc);
            if !changed && !must_save {
                return Ok::<_, StoreError>((None, (out, warnings)));
            }
            Self::save(&mut pipe, &mut doc, &list, &due)?;
            Ok((Some(pipe), (out, warnings)))
        })
    }
}

/// The due time stored as Unix microseconds.
fn parse_due(text: &str) -> Option<NextDue> {
    let text = text.trim();
    if text == "none" {
        return Some(NextDue::Nothing);
    }
    let micros: i64 = text.parse().ok()?;
    let at: DateTime<Utc> = DateTime::from_timestamp_micros(micros)?;
    Some(NextDue::At(Timestamp::from_utc(at)))
}

impl AckStore for RedisAcks {
    fn record(&self, entry: PendingEntry) -> Result<Vec<String>, StoreError> {
        let (_, warnings) = self.change(|doc| {
            doc.pending_acks.push(entry.clone());
            ((), true)
        })?;
        Ok(warnings)
    }

    fn acknowledge(
        &self,
        prefix: &str,
        agent: &AgentId,
    ) -> Result<(AckResult, Vec<String>), StoreError> {
        self.change(|doc| {
            let result = doc.acknowledge(prefix, agent);
            let changed = matches!(result, AckResult::Acknowledged(_));
            (result, changed)
        })
    }

    fn list(&self) -> Result<PendingList, StoreError> {
        let mut r = self.target.connect()?;
        let list = r.keys.acks();
        // One GET: the value is replaced whole, so it is one version.
        let raw: Option<Vec<u8>> = r.query(redis::cmd("GET").arg(&list))?;
        Ok(match raw {
            None => PendingList::default(),
            Some(bytes) => match serde_json::from_slice::<PendingDoc>(&bytes) {
                Ok(doc) => PendingList {
                    entries: doc.pending_acks,
                    problem: None,
                },
                Err(e) => PendingList {
                    entries: Vec::new(),
                    problem: Some(format!(
                        "{list} on {} is damaged ({e})",
                        self.target.shown_url()
                    )),
                },
            },
        })
    }

    fn next_due(&self) -> NextDue {
        let Ok(mut r) = self.target.connect() else {
            return NextDue::Unknown;
        };
        let mut pipe = redis::pipe();
        pipe.cmd("GET")
            .arg(r.keys.acks_due())
            .cmd("EXISTS")
            .arg(r.keys.acks());
        match r.pipe::<(Option<String>, bool)>(&pipe) {
            Ok((Some(text), _)) => parse_due(&text).unwrap_or(NextDue::Unknown),
            // No due time: nothing was ever recorded, unless a list was
            // put there another way (then look once; a claim writes it).
            Ok((None, false)) => NextDue::Nothing,
            Ok((None, true)) | Err(_) => NextDue::Unknown,
        }
    }

    fn claim_due(
        &self,
        now: Timestamp,
        decide: &dyn Fn(&PendingEntry) -> Claim,
    ) -> Result<(Vec<Claimed>, Vec<String>), StoreError> {
        self.change(|doc| {
            let claimed = doc.claim_due(now, decide);
            let changed = !claimed.is_empty();
            (claimed, changed)
        })
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::time::Duration;

    use super::*;
    use crate::test_server::TestServer;
    use swarm_core::contracts::acks as contract;

    #[test]
    fn redis_acks_keep_the_contract() {
        let server = TestServer::start();
        contract::records_and_acknowledges(&RedisAcks::new(server.target("records")));
        contract::claims_on_time_and_once(&RedisAcks::new(server.target("claims")));
        contract::claims_oldest_first_and_leaves_the_rest(&RedisAcks::new(server.target("oldest")));
        contract::racing_claims_have_one_winner(Arc::new(RedisAcks::new(server.target("race"))));
    }

    #[test]
    fn a_damaged_list_is_reported_kept_aside_and_replaced() {
        let server = TestServer::start();
        let target = server.target("damaged");
        let store = RedisAcks::new(target.clone());
        let mut r = target.connect().expect("connect");
        let list = r.keys.acks();
        r.query::<()>(redis::cmd("SET").arg(&list).arg("{\"pending_acks\": 7}"))
            .expect("set");
        assert_eq!(
            store.next_due(),
            NextDue::Unknown,
            "a list without a due time"
        );
        let listed = store.list().expect("list");
        assert!(listed.entries.is_empty());
        assert!(
            listed.problem.is_some_and(|p| p.contains("is damaged")),
            "the damage is reported"
        );

        let e = contract::entry("agent-1", Timestamp::now(), Duration::from_secs(30));
        let warnings = store.record(e.clone()).expect("record");
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(
            warnings[0].contains("was damaged") && warnings[0].contains(":acks:damaged:"),
            "{warnings:?}"
        );
        assert_eq!(store.list().expect("list").entries, vec![e.clone()]);
        assert_eq!(store.next_due(), NextDue::At(e.next_retry_at));

        let aside: Vec<String> = r
            .query(redis::cmd("KEYS").arg(format!("{}:damaged:*", r.keys.acks())))
            .expect("keys");
        assert_eq!(aside.len(), 1, "{aside:?}");
        let kept: String = r.query(redis::cmd("GET").arg(&aside[0])).expect("get");
        assert_eq!(kept, "{\"pending_acks\": 7}");
        assert!(store.record(e).expect("record").is_empty(), "replaced");
    }
}
