//! One connection to the swarm's Redis server, with the names of its keys
//! (`keys.rs`). Commands are short and synchronous; each waits at most the
//! configured timeout for the server, then fails with
//! `StoreError::Unreachable` (exit code 8) before it has changed anything.

use std::path::PathBuf;
use std::time::Duration;

use redis::{ErrorKind, RedisError};

use crate::domain::validate;
use crate::store::StoreError;

use super::keys::Keys;

/// Where the server is and how the swarm is named in it.
#[derive(Clone, Debug)]
pub(crate) struct RedisTarget {
    /// The URL as configured (may hold a password; never shown).
    url: String,
    /// The swarm's name: the namespace of every key.
    name: String,
    /// How long one command waits for the server.
    timeout: Duration,
    /// Certificate authorities trusted for `rediss://` besides the
    /// system's (`store.tls_ca_file`).
    tls_ca_file: Option<PathBuf>,
}

impl RedisTarget {
    /// A target; `url` and `name` were checked by the config.
    pub(crate) fn new(url: &str, name: &str, timeout: Duration) -> RedisTarget {
        RedisTarget {
            url: url.to_owned(),
            name: name.to_owned(),
            timeout,
            tls_ca_file: None,
        }
    }

    /// The same target, trusting the authorities in `file` (PEM) as well
    /// as the system's for a `rediss://` server.
    pub(crate) fn with_tls_ca_file(mut self, file: Option<PathBuf>) -> RedisTarget {
        self.tls_ca_file = file;
        self
    }

    /// The URL with any password replaced, for messages.
    pub(crate) fn shown_url(&self) -> String {
        validate::redact_url(&self.url)
    }

    /// The swarm's name.
    pub(crate) fn name(&self) -> &str {
        &self.name
    }

    /// The names of the swarm's keys.
    pub(crate) fn keys(&self) -> Keys {
        Keys::new(&self.name)
    }

    /// How long one command waits for the server.
    pub(crate) fn timeout(&self) -> Duration {
        self.timeout
    }

    /// Opens a connection, failing within the timeout when the server
    /// does not answer.
    pub(crate) fn connect(&self) -> Result<Redis, StoreError> {
        let client = self.client()?;
        let conn = client
            .get_connection_with_timeout(self.timeout)
            .map_err(|e| self.error(e))?;
        conn.set_read_timeout(Some(self.timeout))
            .map_err(|e| self.error(e))?;
        conn.set_write_timeout(Some(self.timeout))
            .map_err(|e| self.error(e))?;
        Ok(Redis {
            conn,
            keys: self.keys(),
            target: self.clone(),
        })
    }

    /// A client for the URL: over TLS with the configured authorities
    /// added when there are some, else as the URL says (a `rediss://`
    /// server is then verified against the system's roots alone).
    fn client(&self) -> Result<redis::Client, StoreError> {
        let tls = self.url.starts_with("rediss://");
        match &self.tls_ca_file {
            Some(file) if tls => {
                let roots = super::tls::bundle(file).map_err(|detail| StoreError::Unreachable {
                    url: self.shown_url(),
                    detail,
                })?;
                let certs = redis::TlsCertificates {
                    client_tls: None,
                    root_cert: Some(roots),
                };
                redis::Client::build_with_tls(self.url.as_str(), certs).map_err(|e| self.error(e))
            }
            _ => redis::Client::open(self.url.as_str()).map_err(|e| self.error(e)),
        }
    }

    /// The store error for a failed call: no answer (refused, timed out,
    /// dropped) is `Unreachable`; an answer that is an error is `Refused`.
    pub(crate) fn error(&self, e: RedisError) -> StoreError {
        let unreachable = e.is_io_error()
            || e.is_timeout()
            || e.is_connection_refusal()
            || e.is_connection_dropped()
            || e.kind() == ErrorKind::InvalidClientConfig;
        let detail = validate::redact_url(&e.to_string());
        if unreachable {
            StoreError::Unreachable {
                url: self.shown_url(),
                detail,
            }
        } else {
            StoreError::Refused {
                url: self.shown_url(),
                detail,
            }
        }
    }
}

/// An open connection with the swarm's key names.
pub(crate) struct Redis {
    /// The connection.
    pub(crate) conn: redis::Connection,
    /// The swarm's key names.
    pub(crate) keys: Keys,
    target: RedisTarget,
}

impl Redis {
    /// Runs `cmd`, mapping failures to store errors.
    pub(crate) fn query<T: redis::FromRedisValue>(
        &mut self,
        cmd: &redis::Cmd,
    ) -> Result<T, StoreError> {
        cmd.query(&mut self.conn).map_err(|e| self.target.error(e))
    }

    /// Runs a pipeline (with `.atomic()`, a MULTI/EXEC transaction).
    pub(crate) fn pipe<T: redis::FromRedisValue>(
        &mut self,
        pipe: &redis::Pipeline,
    ) -> Result<T, StoreError> {
        pipe.query(&mut self.conn).map_err(|e| self.target.error(e))
    }

    /// Optimistic transaction: watches `keys`, calls `plan` (which reads
    /// and decides, returning the writes to make as an atomic pipeline
    /// and the result, or `None` for the pipeline when nothing is to be
    /// written) and commits; when another client changed a watched key in
    /// between, the whole step runs again on what is there now. Of several
    /// racing clients exactly one commits each change.
    pub(crate) fn transaction<T, E: From<StoreError>>(
        &mut self,
        watch: &[String],
        mut plan: impl FnMut(&mut Redis) -> Result<(Option<redis::Pipeline>, T), E>,
    ) -> Result<T, E> {
        loop {
            self.query::<()>(redis::cmd("WATCH").arg(watch))?;
            let (pipe, out) = match plan(self) {
                Ok(p) => p,
                Err(e) => {
                    let _ = self.query::<()>(&redis::cmd("UNWATCH"));
                    return Err(e);
                }
            };
            let Some(mut pipe) = pipe else {
                self.query::<()>(&redis::cmd("UNWATCH"))?;
                return Ok(out);
            };
            pipe.atomic();
            // EXEC answers nil when a watched key changed: try again.
            let committed: Option<redis::Value> = self.pipe(&pipe)?;
            if committed.is_some() {
                return Ok(out);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_absent_server_fails_fast_as_unreachable_without_the_password() {
        // Port 1 on loopback: nothing listens there, the connection is
        // refused at once.
        let t = RedisTarget::new(
            "redis://:hunter2@127.0.0.1:1",
            "proj",
            Duration::from_millis(500),
        );
        let e = t.connect().err().expect("nothing listens on port 1");
        assert!(matches!(e, StoreError::Unreachable { .. }), "{e}");
        assert!(!e.to_string().contains("hunter2"), "{e}");
        assert_eq!(
            e.exit_code(),
            crate::support::exit_code::ExitCode::StoreUnavailable
        );
    }
}
