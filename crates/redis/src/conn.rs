//! One connection to the swarm's Redis server, with the names of its keys
//! (`keys.rs`). Commands are short and synchronous; each waits at most the
//! configured timeout for the server, then fails with
//! `StoreError::Unreachable` (exit code 8) before it has changed anything.
//!
//! The same connection works against a Redis Cluster without a cluster
//! client: every key of a swarm carries one hash tag (`keys.rs`), so the
//! whole swarm lives in one hash slot on one master. A command sent to
//! another node is refused with `MOVED <slot> <host:port>` before it ran;
//! the connection then moves to that node (same scheme, user, password
//! and TLS settings as the configured URL) and the call runs again. The
//! target remembers the node, so the process's later connections (each
//! store opens its own) go there at once. A plain server never answers
//! `MOVED`, so following costs nothing there: no extra round trip per
//! connection. `ASK` (the slot being migrated) is followed for one command
//! or script on the named node with `ASKING`; a pipeline or transaction
//! that meets `ASK` or `TRYAGAIN` waits and runs again until the timeout.
//! Why running again is safe, for each kind of call:
//!
//! * one command or script: a refused command did nothing;
//! * a pipeline: every command in it names keys of the one slot, so the
//!   node refuses all of them alike; the pipelines that are not MULTI/EXEC
//!   only read, or append to one key (which is refused or run as a whole);
//! * a transaction (`transaction`): a command refused while queued makes
//!   `EXEC` answer `EXECABORT`, so nothing was committed; the whole step
//!   (WATCH, reads, MULTI/EXEC) starts again on the new node, because the
//!   WATCH stays behind with the old connection.

use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use redis::{ConnectionAddr, ErrorKind, IntoConnectionInfo, RedisError, RedisResult};

use swarm_core::StoreError;
use swarm_core::domain::validate;

use super::keys::Keys;

/// How many redirections one call follows at once: a healthy cluster
/// needs one (two while a failover settles); more means the nodes
/// disagree about who serves the slot, and each later one waits a little
/// first, until the call's deadline.
const MAX_HOPS: usize = 5;

/// How long a call waits before it tries again while the slot is being
/// migrated (`ASK` on a pipeline, `TRYAGAIN`).
const MIGRATING_PAUSE: Duration = Duration::from_millis(20);

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
    /// The cluster node (`host:port`) that last answered for the swarm
    /// after a redirection, shared by the clones of this target (every
    /// store of one process), so that one redirection per process does.
    home: Arc<Mutex<Option<String>>>,
}

impl RedisTarget {
    /// A target; `url` and `name` were checked by the config.
    pub(crate) fn new(url: &str, name: &str, timeout: Duration) -> RedisTarget {
        RedisTarget {
            url: url.to_owned(),
            name: name.to_owned(),
            timeout,
            tls_ca_file: None,
            home: Arc::default(),
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
        let home = self.home().clone();
        let conn = match home {
            // A node that went away since: back to the configured one,
            // which redirects again if needed.
            Some(node) => self.open(Some(&node)).or_else(|_| {
                *self.home() = None;
                self.open(None)
            })?,
            None => self.open(None)?,
        };
        Ok(Redis {
            conn,
            keys: self.keys(),
            target: self.clone(),
            moves: 0,
        })
    }

    /// The remembered cluster node, if any.
    fn home(&self) -> std::sync::MutexGuard<'_, Option<String>> {
        self.home.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Opens a connection to the configured server, or to the cluster
    /// node `node` (`host:port`, as a redirection names it).
    fn open(&self, node: Option<&str>) -> Result<redis::Connection, StoreError> {
        let client = self.client(node)?;
        let conn = client
            .get_connection_with_timeout(self.timeout)
            .map_err(|e| self.error(e))?;
        conn.set_read_timeout(Some(self.timeout))
            .map_err(|e| self.error(e))?;
        conn.set_write_timeout(Some(self.timeout))
            .map_err(|e| self.error(e))?;
        Ok(conn)
    }

    /// A client for the URL, or for the URL with its host and port
    /// replaced by `node`: over TLS with the configured authorities added
    /// when there are some, else as the URL says (a `rediss://` server is
    /// then verified against the system's roots alone).
    fn client(&self, node: Option<&str>) -> Result<redis::Client, StoreError> {
        let mut info = self
            .url
            .as_str()
            .into_connection_info()
            .map_err(|e| self.error(e))?;
        if let Some(node) = node {
            self.point_at(&mut info.addr, node)?;
        }
        let tls = matches!(info.addr, ConnectionAddr::TcpTls { .. });
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
                redis::Client::build_with_tls(info, certs).map_err(|e| self.error(e))
            }
            _ => redis::Client::open(info).map_err(|e| self.error(e)),
        }
    }

    /// Points `addr` at `node` (`host:port`; an empty host means the host
    /// of the configured URL, as a node that does not know its own
    /// address answers), keeping whether it speaks TLS.
    fn point_at(&self, addr: &mut ConnectionAddr, node: &str) -> Result<(), StoreError> {
        let bad = || StoreError::Unreachable {
            url: self.shown_url(),
            detail: format!("a cluster node redirected to {node:?}, which is no host:port"),
        };
        let (host, port) = node.rsplit_once(':').ok_or_else(bad)?;
        let port: u16 = port.parse().map_err(|_| bad())?;
        match addr {
            ConnectionAddr::Tcp(h, p)
            | ConnectionAddr::TcpTls {
                host: h, port: p, ..
            } => {
                if !host.is_empty() {
                    *h = host.to_owned();
                }
                *p = port;
            }
            ConnectionAddr::Unix(_) if !host.is_empty() => {
                *addr = ConnectionAddr::Tcp(host.to_owned(), port);
            }
            ConnectionAddr::Unix(_) => return Err(bad()),
        }
        Ok(())
    }

    /// The store error for a failed call: no answer (refused, timed out,
    /// dropped), or a cluster that does not serve the swarm's slot now,
    /// is `Unreachable`; an answer that is an error is `Refused`.
    pub(crate) fn error(&self, e: RedisError) -> StoreError {
        let unreachable = e.is_io_error()
            || e.is_timeout()
            || e.is_connection_refusal()
            || e.is_connection_dropped()
            || matches!(
                e.kind(),
                ErrorKind::InvalidClientConfig
                    | ErrorKind::ClusterDown
                    | ErrorKind::TryAgain
                    | ErrorKind::Moved
                    | ErrorKind::Ask
            );
        let mut detail = validate::redact_url(&e.to_string());
        if matches!(e.kind(), ErrorKind::ClusterDown) {
            detail = format!("the Redis Cluster does not serve the swarm's slot now ({detail})");
        }
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

/// How a call follows `ASK`.
enum Ask<'a> {
    /// Runs once more on the named node after `ASKING`; for scripts, the
    /// script is loaded there first, since `ASKING` covers one command.
    Follow(Option<&'a redis::ScriptInvocation<'a>>),
    /// Waits and runs again here until the slot has moved: `ASKING`
    /// covers one command, not a pipeline or a WATCH kept for later.
    Wait,
}

/// What to do after a call was refused by a cluster.
enum Then {
    /// Run it again on the (possibly moved) connection.
    Again,
    /// Run it once on the node named by `ASK`.
    AskAt(String),
}

/// Redirections counted over the process, for tests that check a
/// cluster really redirected.
#[cfg(test)]
pub(crate) static FOLLOWED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// An open connection with the swarm's key names.
pub(crate) struct Redis {
    /// The connection: to the configured server, or to the cluster node
    /// that serves the swarm's slot once a redirection moved it.
    conn: redis::Connection,
    /// The swarm's key names.
    pub(crate) keys: Keys,
    target: RedisTarget,
    /// How often the connection moved to another node, to tell whether
    /// a WATCH was left behind.
    moves: usize,
}

impl Redis {
    /// How often this connection moved to another node.
    #[cfg(test)]
    pub(crate) fn moves(&self) -> usize {
        self.moves
    }

    /// Runs `cmd`, following cluster redirections, mapping failures to
    /// store errors.
    pub(crate) fn query<T: redis::FromRedisValue>(
        &mut self,
        cmd: &redis::Cmd,
    ) -> Result<T, StoreError> {
        self.run(Ask::Follow(None), |c| cmd.query(c))
    }

    /// Runs a pipeline (with `.atomic()`, a MULTI/EXEC transaction),
    /// following cluster redirections.
    pub(crate) fn pipe<T: redis::FromRedisValue>(
        &mut self,
        pipe: &redis::Pipeline,
    ) -> Result<T, StoreError> {
        self.run(Ask::Wait, |c| pipe.query(c))
    }

    /// Runs a Lua script (declared keys only, all of the swarm's slot),
    /// following cluster redirections.
    pub(crate) fn script<T: redis::FromRedisValue>(
        &mut self,
        script: &redis::ScriptInvocation<'_>,
    ) -> Result<T, StoreError> {
        self.run(Ask::Follow(Some(script)), |c| script.invoke(c))
    }

    /// Runs `call` until it is answered with something other than a
    /// redirection, moving the connection on `MOVED` (see the module's
    /// comment for why running again is safe). A call sent on by `ASK`
    /// that meets a redirection there (the slot moved on meanwhile) comes
    /// back here and follows it like any other.
    fn run<T>(
        &mut self,
        ask: Ask<'_>,
        mut call: impl FnMut(&mut redis::Connection) -> RedisResult<T>,
    ) -> Result<T, StoreError> {
        let deadline = Instant::now() + self.target.timeout;
        let mut hops = 0;
        let follow_ask = matches!(ask, Ask::Follow(_));
        let mut asked_at: Option<String> = None;
        loop {
            let answer = match asked_at.take() {
                Some(node) => self.asked(&node, &ask, deadline, &mut call)?,
                None => call(&mut self.conn),
            };
            let e = match answer {
                Ok(v) => return Ok(v),
                Err(e) => e,
            };
            match self.after_refusal(e, &mut hops, deadline, follow_ask)? {
                Then::Again => {}
                Then::AskAt(node) => asked_at = Some(node),
            }
        }
    }

    /// Runs `call` on `node` after `ASKING`, on a connection of its own
    /// (the slot still belongs to this one's node), and gives back its
    /// answer. The importing node answers `TRYAGAIN` to a command on
    /// several keys of which some have not arrived yet (a script's): that
    /// waits and asks again until the keys are there or the slot has
    /// moved, up to `deadline`. Only failing to reach `node` is an error
    /// here.
    fn asked<T>(
        &self,
        node: &str,
        ask: &Ask<'_>,
        deadline: Instant,
        call: &mut impl FnMut(&mut redis::Connection) -> RedisResult<T>,
    ) -> Result<RedisResult<T>, StoreError> {
        let mut there = self.target.open(Some(node))?;
        if let Ask::Follow(Some(script)) = ask {
            script.load(&mut there).map_err(|e| self.target.error(e))?;
        }
        loop {
            redis::cmd("ASKING")
                .query::<()>(&mut there)
                .map_err(|e| self.target.error(e))?;
            match call(&mut there) {
                Err(e) if e.kind() == ErrorKind::TryAgain && Instant::now() < deadline => {
                    std::thread::sleep(MIGRATING_PAUSE);
                }
                answer => return Ok(answer),
            }
        }
    }

    /// Decides what follows the refusal `e`: moves the connection on
    /// `MOVED`, sends the call on by `ASK` when `follow_ask` (else waits a
    /// little and runs it here again, as on `TRYAGAIN`), and turns
    /// anything else into the store error. The first `MAX_HOPS`
    /// redirections are followed at once; past them the nodes disagree
    /// about who serves the slot, as they do for a moment while a move or
    /// a failover settles, so each later one waits a little first, and one
    /// that comes once `deadline` has passed is the error.
    fn after_refusal(
        &mut self,
        e: RedisError,
        hops: &mut usize,
        deadline: Instant,
        follow_ask: bool,
    ) -> Result<Then, StoreError> {
        let redirect = e.redirect_node().map(|(node, _slot)| node.to_owned());
        let in_time = Instant::now() < deadline;
        let settling = *hops >= MAX_HOPS;
        let follow = match e.kind() {
            ErrorKind::Moved => true,
            ErrorKind::Ask => follow_ask,
            _ => false,
        };
        if let Some(node) = redirect.filter(|_| follow && (!settling || in_time)) {
            if settling {
                std::thread::sleep(MIGRATING_PAUSE);
            }
            *hops += 1;
            #[cfg(test)]
            FOLLOWED.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            if e.kind() == ErrorKind::Ask {
                return Ok(Then::AskAt(node));
            }
            self.conn = self.target.open(Some(&node))?;
            self.moves += 1;
            *self.target.home() = Some(node);
            return Ok(Then::Again);
        }
        match e.kind() {
            ErrorKind::Ask | ErrorKind::TryAgain if in_time => {
                std::thread::sleep(MIGRATING_PAUSE);
                Ok(Then::Again)
            }
            _ => Err(self.target.error(e)),
        }
    }

    /// Optimistic transaction: watches `keys`, calls `plan` (which reads
    /// and decides, returning the writes to make as an atomic pipeline
    /// and the result, or `None` for the pipeline when nothing is to be
    /// written) and commits; when another client changed a watched key in
    /// between, the whole step runs again on what is there now. Of several
    /// racing clients exactly one commits each change.
    ///
    /// On a cluster, a step whose connection moved after its WATCH (a
    /// read in `plan` was redirected) or whose EXEC was refused with a
    /// redirection committed nothing, and runs again on the node that
    /// serves the slot now.
    pub(crate) fn transaction<T, E: From<StoreError>>(
        &mut self,
        watch: &[String],
        mut plan: impl FnMut(&mut Redis) -> Result<(Option<redis::Pipeline>, T), E>,
    ) -> Result<T, E> {
        let deadline = Instant::now() + self.target.timeout;
        let mut hops = 0;
        loop {
            let watch_cmd = redis::cmd("WATCH").arg(watch).clone();
            self.run(Ask::Wait, |c| watch_cmd.query::<()>(c))?;
            let moves = self.moves;
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
            if self.moves != moves {
                // The WATCH stayed with the connection left behind.
                continue;
            }
            pipe.atomic();
            // EXEC answers nil when a watched key changed: try again.
            match pipe.query::<Option<redis::Value>>(&mut self.conn) {
                Ok(Some(_)) => return Ok(out),
                Ok(None) => {}
                Err(e) => match self.after_refusal(e, &mut hops, deadline, false)? {
                    Then::Again => {}
                    // Not asked for: `after_refusal` waits on ASK here.
                    Then::AskAt(_) => {}
                },
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
        assert_eq!(e.exit_code(), swarm_core::ExitCode::StoreUnavailable);
    }
}
