//! A JSON document in one Redis key, changed by optimistic transactions:
//! the Redis counterpart of a state file changed under its lock. Reads
//! see a whole version; `update` reads, lets the caller change it and
//! writes it back only if no other client wrote the key in between,
//! otherwise it runs the change again on the newer version. Racing
//! updates on any number of hosts therefore never lose each other's
//! changes, and a change that claims something (a due retry, a held
//! message) is committed by exactly one of them.

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::store::StoreError;
use crate::support::json::{self, Layout};

use super::conn::{Redis, RedisTarget};

/// What a stored document turned out to be.
#[derive(Debug)]
pub(crate) enum Doc<T> {
    /// The key does not exist.
    Missing,
    /// A usable document.
    Valid(T),
    /// The key holds something else; the reason says what.
    Corrupt(String),
}

/// One document key of a swarm.
#[derive(Clone, Debug)]
pub(crate) struct RedisDocument {
    target: RedisTarget,
    what: String,
}

impl RedisDocument {
    /// The document `{swarm:NAME}:<what>`.
    pub(crate) fn new(target: &RedisTarget, what: &str) -> RedisDocument {
        RedisDocument {
            target: target.clone(),
            what: what.to_owned(),
        }
    }

    /// Its key, for messages.
    pub(crate) fn location(&self) -> String {
        format!(
            "{{swarm:{}}}:{} on {}",
            self.target.name(),
            self.what,
            self.target.shown_url()
        )
    }

    /// Reads the current version.
    pub(crate) fn read<T: DeserializeOwned>(&self) -> Result<Doc<T>, StoreError> {
        let mut r = self.target.connect()?;
        self.read_on(&mut r)
    }

    fn read_on<T: DeserializeOwned>(&self, r: &mut Redis) -> Result<Doc<T>, StoreError> {
        let key = r.keys.key(&self.what);
        let raw: Option<Vec<u8>> = r.query(redis::cmd("GET").arg(&key))?;
        Ok(match raw {
            None => Doc::Missing,
            Some(bytes) => match serde_json::from_slice(&bytes) {
                Ok(v) => Doc::Valid(v),
                Err(e) => Doc::Corrupt(e.to_string()),
            },
        })
    }

    /// Reads the document, lets `change` decide (returning the version to
    /// store, or `None` to leave it, and a result), and stores it
    /// atomically; `change` runs again if another client wrote the key
    /// meanwhile, so it must compute only from what it is given.
    pub(crate) fn update<T, R, E>(
        &self,
        mut change: impl FnMut(Doc<T>) -> Result<(Option<T>, R), E>,
    ) -> Result<R, E>
    where
        T: DeserializeOwned + Serialize,
        E: From<StoreError>,
    {
        let mut r = self.target.connect()?;
        let key = r.keys.key(&self.what);
        r.transaction(&[key.clone()], |r| {
            let current = self.read_on(r)?;
            let (next, out) = change(current)?;
            let Some(next) = next else {
                return Ok((None, out));
            };
            let bytes = json::to_vec(&next, Layout::Line).map_err(|source| StoreError::Encode {
                path: self.location().into(),
                source,
            })?;
            let mut pipe = redis::pipe();
            pipe.cmd("SET").arg(&key).arg(bytes);
            Ok((Some(pipe), out))
        })
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Barrier};

    use super::*;
    use crate::backend::on_redis::test_server::TestServer;

    #[test]
    fn racing_updates_lose_nothing_and_claims_are_won_once() {
        let server = TestServer::start();
        let doc = RedisDocument::new(&server.target("d"), "counter");
        let threads = 8;
        let barrier = Arc::new(Barrier::new(threads));
        let handles: Vec<_> = (0..threads)
            .map(|_| {
                let doc = doc.clone();
                let barrier = Arc::clone(&barrier);
                std::thread::spawn(move || {
                    barrier.wait();
                    let mut claimed = 0;
                    for _ in 0..25 {
                        // Increment, and claim the value 100 if we are
                        // the one who reaches it.
                        let won = doc
                            .update(|d: Doc<u64>| -> Result<_, StoreError> {
                                let n = match d {
                                    Doc::Valid(n) => n,
                                    _ => 0,
                                };
                                Ok((Some(n + 1), n + 1 == 100))
                            })
                            .expect("update");
                        claimed += usize::from(won);
                    }
                    claimed
                })
            })
            .collect();
        let claims: usize = handles.into_iter().map(|h| h.join().expect("t")).sum();
        assert_eq!(claims, 1);
        assert!(matches!(doc.read::<u64>().expect("read"), Doc::Valid(200)));
    }

    #[test]
    fn garbage_reads_as_corrupt() {
        let server = TestServer::start();
        let mut r = server.target("g").connect().expect("connect");
        r.query::<()>(redis::cmd("SET").arg(r.keys.key("x")).arg("{nope"))
            .expect("set");
        let doc = RedisDocument::new(&server.target("g"), "x");
        assert!(matches!(doc.read::<u64>().expect("read"), Doc::Corrupt(_)));
    }
}
