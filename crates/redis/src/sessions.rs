//! The recorded sessions on Redis: the hash `{swarm:NAME}:sessions`, one
//! field per session name holding its record as JSON, in the shape of
//! `.swarm/sessions.json`'s records. A change `WATCH`es the hash, reads
//! the record, changes it and writes it in one `MULTI`/`EXEC`, so no other
//! change of it comes between. A record that does not parse is left out
//! of the list (and replaced by the next `put` of its name).

use swarm_core::{SessionRecord, SessionStore, StoreError};

use super::conn::{Redis, RedisTarget};

/// The recorded sessions of one swarm on Redis.
pub(crate) struct RedisSessions {
    target: RedisTarget,
}

impl RedisSessions {
    /// The sessions of the swarm at `target`.
    pub(crate) fn new(target: RedisTarget) -> RedisSessions {
        RedisSessions { target }
    }
}

/// A record as stored.
fn encode(key: &str, session: &SessionRecord) -> Result<Vec<u8>, StoreError> {
    serde_json::to_vec(session).map_err(|source| StoreError::Encode {
        path: key.into(),
        source,
    })
}

impl SessionStore for RedisSessions {
    fn list(&self) -> Result<Vec<SessionRecord>, StoreError> {
        let mut r = self.target.connect()?;
        let key = r.keys.sessions();
        let all: Vec<(String, Vec<u8>)> = r.query(redis::cmd("HGETALL").arg(&key))?;
        let mut out: Vec<SessionRecord> = all
            .into_iter()
            .filter_map(|(_, raw)| serde_json::from_slice(&raw).ok())
            .collect();
        out.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(out)
    }

    fn get(&self, name: &str) -> Result<Option<SessionRecord>, StoreError> {
        let mut r = self.target.connect()?;
        let key = r.keys.sessions();
        let raw: Option<Vec<u8>> = r.query(redis::cmd("HGET").arg(&key).arg(name))?;
        Ok(raw.and_then(|b| serde_json::from_slice(&b).ok()))
    }

    fn put(&self, session: &SessionRecord) -> Result<(), StoreError> {
        let mut r = self.target.connect()?;
        let key = r.keys.sessions();
        let bytes = encode(&key, session)?;
        r.query::<()>(redis::cmd("HSET").arg(&key).arg(&session.name).arg(bytes))
    }

    fn update(
        &self,
        name: &str,
        change: &mut dyn FnMut(&mut SessionRecord),
    ) -> Result<bool, StoreError> {
        let mut r = self.target.connect()?;
        let key = r.keys.sessions();
        r.transaction(std::slice::from_ref(&key), |r: &mut Redis| {
            let raw: Option<Vec<u8>> = r.query(redis::cmd("HGET").arg(&key).arg(name))?;
            let Some(mut record) =
                raw.and_then(|b| serde_json::from_slice::<SessionRecord>(&b).ok())
            else {
                return Ok::<_, StoreError>((None, false));
            };
            change(&mut record);
            let mut pipe = redis::pipe();
            pipe.cmd("HSET")
                .arg(&key)
                .arg(name)
                .arg(encode(&key, &record)?)
                .ignore();
            Ok((Some(pipe), true))
        })
    }

    fn forget(&self, name: &str) -> Result<bool, StoreError> {
        let mut r = self.target.connect()?;
        let key = r.keys.sessions();
        let removed: u64 = r.query(redis::cmd("HDEL").arg(&key).arg(name))?;
        Ok(removed > 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_server::TestServer;
    use swarm_core::RecordedState;
    use swarm_core::agents::sessions::record::sample;

    fn record(name: &str) -> SessionRecord {
        SessionRecord {
            host: Some("h1".into()),
            ..sample(name, "claude")
        }
    }

    #[test]
    fn put_update_forget_on_redis() {
        let server = TestServer::start();
        let store = RedisSessions::new(server.target("p"));
        assert!(store.list().expect("list").is_empty());
        store.put(&record("b")).expect("put");
        store.put(&record("a")).expect("put");
        assert!(
            store
                .update("a", &mut |r| r.state = RecordedState::Stopped)
                .expect("update")
        );
        assert!(!store.update("zz", &mut |_| {}).expect("update"));
        assert_eq!(
            store.get("a").expect("get").map(|r| r.state),
            Some(RecordedState::Stopped)
        );
        let names: Vec<String> = store
            .list()
            .expect("list")
            .into_iter()
            .map(|r| r.name)
            .collect();
        assert_eq!(names, ["a", "b"]);
        assert!(store.forget("a").expect("forget"));
        assert!(!store.forget("a").expect("forget"));
        assert_eq!(store.list().expect("list").len(), 1);
    }
}
