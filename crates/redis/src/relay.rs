//! Deliveries between hosts on Redis: one stream per host,
//! `{swarm:NAME}:deliver:<host>`, with one consumer group, `watchers`,
//! created from the stream's start so that what was handed over before any
//! watcher ran is delivered too. Each entry (field `h`: the handoff as
//! JSON) goes to one consumer of the group (`XREADGROUP ... >`, blocking:
//! pushed, not polled); it stays in the group's pending list until that
//! consumer acknowledges it, after the outcome is in the log, and is then
//! deleted. An entry whose consumer stopped without acknowledging it is
//! taken over by another after `RECLAIM_AFTER` (`XAUTOCLAIM`). While an
//! entry waits, `{swarm:NAME}:handed:<identity>` marks it (created with
//! `SET NX` in the same transaction as the `XADD`, deleted with the
//! entry), so the same delivery handed over again adds nothing.

use std::sync::Mutex;
use std::time::Duration;

use redis::Value;

use swarm_core::{HandedOver, Handoff, RECLAIM_AFTER, Relay, StoreError, TakenHandoff};

use super::conn::{Redis, RedisTarget};

/// The consumer group of every host's stream.
const GROUP: &str = "watchers";

/// Deliveries taken per call: enough for a host's whole share of a
/// broadcast (a hundred agents over a few hosts), which the taker types in
/// as one fan-out; what is taken and not yet done goes to another taker
/// only after `RECLAIM_AFTER`.
const BATCH: usize = 256;

/// How long the mark of a waiting delivery lives at most (a week): a
/// host that stays away longer gets a second copy of a redelivery.
const MARK_SECONDS: u64 = 7 * 24 * 3600;

/// The deliveries of one swarm on Redis, seen from one host.
pub(crate) struct RedisRelay {
    target: RedisTarget,
    host: String,
    /// This process's name in the group.
    consumer: String,
    /// The connection `take` blocks on, kept between calls.
    conn: Mutex<Option<Redis>>,
    /// The connection that hands deliveries over and marks them done,
    /// kept between calls: a broadcast to many agents on other hosts hands
    /// over one delivery per recipient, over one connection.
    sending: Mutex<Option<Redis>>,
}

impl RedisRelay {
    /// The relay of the swarm at `target`, for the host `host`.
    pub(crate) fn new(target: RedisTarget, host: &str) -> RedisRelay {
        RedisRelay {
            target,
            host: host.to_owned(),
            consumer: format!("{host}:{}", std::process::id()),
            conn: Mutex::new(None),
            sending: Mutex::new(None),
        }
    }

    /// Runs `f` on the connection kept in `slot` (made when there is
    /// none). The connection is kept only after a clean call: a failed one
    /// may have left it in the middle of a reply. With `again`, a kept
    /// connection that turns out dead (the server restarted or dropped it
    /// while idle) is replaced and `f` runs once more, for calls that are
    /// safe to repeat.
    fn on_kept<T>(
        &self,
        slot: &Mutex<Option<Redis>>,
        again: bool,
        mut f: impl FnMut(&mut Redis) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        let mut slot = slot
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let kept = slot.take();
        let reused = kept.is_some();
        let mut r = match kept {
            Some(r) => r,
            None => self.target.connect()?,
        };
        let got = match f(&mut r) {
            Err(StoreError::Unreachable { .. }) if reused && again => {
                r = self.target.connect()?;
                f(&mut r)?
            }
            other => other?,
        };
        *slot = Some(r);
        Ok(got)
    }
}

/// Creates the group of `key` (and the stream) unless it exists.
fn ensure_group(r: &mut Redis, key: &str) -> Result<(), StoreError> {
    match r.query::<()>(
        redis::cmd("XGROUP")
            .arg("CREATE")
            .arg(key)
            .arg(GROUP)
            .arg("0")
            .arg("MKSTREAM"),
    ) {
        Err(StoreError::Refused { detail, .. }) if detail.contains("BUSYGROUP") => Ok(()),
        other => other,
    }
}

/// One stream entry: its id and its fields.
type Entry = (String, Vec<(String, Vec<u8>)>);

fn taken(entry: Entry) -> TakenHandoff {
    let (id, fields) = entry;
    let handoff = fields
        .iter()
        .find(|(f, _)| f == "h")
        .and_then(|(_, raw)| serde_json::from_slice::<Handoff>(raw).ok());
    TakenHandoff { id, handoff }
}

/// Hands `handoffs` over to `host` on `r` in one transaction (see
/// `Relay::hand_over_all`): the marks are checked together, and what is
/// new is added together, so the host's taker wakes to all of it at once.
fn hand_over_all_on(
    r: &mut Redis,
    host: &str,
    handoffs: &[Handoff],
) -> Result<Vec<HandedOver>, StoreError> {
    let key = r.keys.deliver(host);
    ensure_group(r, &key)?;
    let bodies = handoffs
        .iter()
        .map(serde_json::to_vec)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|source| StoreError::Encode {
            path: key.clone().into(),
            source,
        })?;
    let marks: Vec<String> = handoffs.iter().map(|h| r.keys.handed(h)).collect();
    r.transaction(&marks, |r| {
        let mut exists = redis::pipe();
        for mark in &marks {
            exists.cmd("EXISTS").arg(mark);
        }
        let waiting: Vec<bool> = r.pipe(&exists)?;
        let mut pipe = redis::pipe();
        let mut said = Vec::with_capacity(marks.len());
        let mut adding = std::collections::HashSet::new();
        for ((mark, body), waits) in marks.iter().zip(&bodies).zip(waiting) {
            // The same delivery twice in one batch is added once too.
            if waits || !adding.insert(mark) {
                said.push(HandedOver::AlreadyWaiting);
                continue;
            }
            pipe.cmd("SET")
                .arg(mark)
                .arg(host)
                .arg("EX")
                .arg(MARK_SECONDS)
                .ignore();
            pipe.cmd("XADD")
                .arg(&key)
                .arg("*")
                .arg("h")
                .arg(body)
                .ignore();
            said.push(HandedOver::Queued);
        }
        Ok::<_, StoreError>(((!adding.is_empty()).then_some(pipe), said))
    })
}

impl RedisRelay {
    fn take_on(&self, r: &mut Redis, wait: Duration) -> Result<Vec<TakenHandoff>, StoreError> {
        let key = r.keys.deliver(&self.host);
        ensure_group(r, &key)?;
        // First what a stopped taker left behind.
        let idle = u64::try_from(RECLAIM_AFTER.as_millis()).unwrap_or(u64::MAX);
        let claimed: Vec<Value> = r.query(
            redis::cmd("XAUTOCLAIM")
                .arg(&key)
                .arg(GROUP)
                .arg(&self.consumer)
                .arg(idle)
                .arg("0-0")
                .arg("COUNT")
                .arg(BATCH),
        )?;
        if let Some(entries) = claimed.get(1) {
            let entries: Vec<Entry> =
                redis::from_redis_value(entries).map_err(|e| self.target.error(e))?;
            if !entries.is_empty() {
                return Ok(entries.into_iter().map(taken).collect());
            }
        }
        let block = u64::try_from(wait.as_millis()).unwrap_or(u64::MAX).max(1);
        let reply: Option<Vec<(String, Vec<Entry>)>> = r.query(
            redis::cmd("XREADGROUP")
                .arg("GROUP")
                .arg(GROUP)
                .arg(&self.consumer)
                .arg("COUNT")
                .arg(BATCH)
                .arg("BLOCK")
                .arg(block)
                .arg("STREAMS")
                .arg(&key)
                .arg(">"),
        )?;
        Ok(reply
            .into_iter()
            .flatten()
            .flat_map(|(_, entries)| entries)
            .map(taken)
            .collect())
    }
}

impl Relay for RedisRelay {
    fn host(&self) -> &str {
        &self.host
    }

    fn hand_over_all(
        &self,
        host: &str,
        handoffs: &[Handoff],
    ) -> Result<Vec<HandedOver>, StoreError> {
        if handoffs.is_empty() {
            return Ok(Vec::new());
        }
        // Safe to repeat: a delivery already handed over is marked.
        self.on_kept(&self.sending, true, |r| hand_over_all_on(r, host, handoffs))
    }

    fn take(&self, wait: Duration) -> Result<Vec<TakenHandoff>, StoreError> {
        // A blocking read must end before the connection's own timeout.
        let wait = wait.min(
            self.target
                .timeout()
                .saturating_sub(Duration::from_millis(250)),
        );
        self.on_kept(&self.conn, false, |r| self.take_on(r, wait))
    }

    fn done(&self, taken: &[TakenHandoff]) -> Result<(), StoreError> {
        if taken.is_empty() {
            return Ok(());
        }
        // Acknowledging and deleting twice changes nothing.
        self.on_kept(&self.sending, true, |r| {
            let key = r.keys.deliver(&self.host);
            let ids: Vec<&str> = taken.iter().map(|t| t.id.as_str()).collect();
            let mut pipe = redis::pipe();
            pipe.atomic();
            pipe.cmd("XACK").arg(&key).arg(GROUP).arg(&ids).ignore();
            pipe.cmd("XDEL").arg(&key).arg(&ids).ignore();
            for h in taken.iter().filter_map(|t| t.handoff.as_ref()) {
                pipe.cmd("DEL").arg(r.keys.handed(h)).ignore();
            }
            r.pipe::<()>(&pipe)
        })
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;
    use crate::test_server::TestServer;

    fn handoff(n: usize) -> Handoff {
        Handoff {
            msg_id: format!("m{n}"),
            agent: "agent-2".into(),
            text: format!("[agent-1 → agent-2] INFO: {n}"),
            marker: "[agent-1".into(),
            from: "host-a".into(),
            note: None,
            urgency: swarm_core::Urgency::Normal,
        }
    }

    #[test]
    fn a_hand_over_replaces_its_kept_connection_when_the_server_dropped_it() {
        let server = TestServer::start();
        let a = RedisRelay::new(server.target("s"), "host-a");
        a.hand_over("host-b", &handoff(1)).expect("first hand over");
        // The server drops every other client, as a restart would.
        let mut other = server.target("s").connect().expect("connect");
        other
            .query::<()>(redis::cmd("CLIENT").arg("KILL").arg("TYPE").arg("normal"))
            .expect("client kill");
        assert!(matches!(
            a.hand_over("host-b", &handoff(2))
                .expect("second hand over"),
            HandedOver::Queued
        ));
        let b = RedisRelay::new(server.target("s"), "host-b");
        let got = b.take(Duration::from_millis(50)).expect("take");
        let ids: Vec<String> = got
            .iter()
            .map(|t| t.handoff.clone().expect("readable").msg_id)
            .collect();
        assert_eq!(ids, ["m1", "m2"]);
        b.done(&got).expect("done");
    }

    #[test]
    fn a_delivery_waits_for_its_host_and_goes_to_one_taker() {
        let server = TestServer::start();
        let a = RedisRelay::new(server.target("s"), "host-a");
        // Handed over before any taker of host-b ever ran.
        for n in 0..40 {
            a.hand_over("host-b", &handoff(n)).expect("hand over");
        }
        // Host A's takers never see host B's deliveries.
        assert!(a.take(Duration::from_millis(10)).expect("take").is_empty());
        // Two takers on host B (two processes: two consumers) share them.
        let seen = Arc::new(Mutex::new(Vec::new()));
        let count = Arc::new(AtomicUsize::new(0));
        std::thread::scope(|s| {
            for k in 0..2 {
                let (seen, count) = (seen.clone(), count.clone());
                let mut b = RedisRelay::new(server.target("s"), "host-b");
                b.consumer = format!("host-b:{k}");
                s.spawn(move || {
                    while count.load(Ordering::SeqCst) < 40 {
                        let got = b.take(Duration::from_millis(50)).expect("take");
                        for t in &got {
                            seen.lock()
                                .expect("lock")
                                .push(t.handoff.clone().expect("readable"));
                            count.fetch_add(1, Ordering::SeqCst);
                        }
                        b.done(&got).expect("done");
                    }
                });
            }
        });
        let mut seen = seen.lock().expect("lock").clone();
        seen.sort_by_key(|h| h.msg_id[1..].parse::<usize>().expect("n"));
        assert_eq!(seen, (0..40).map(handoff).collect::<Vec<_>>());
        let b = RedisRelay::new(server.target("s"), "host-b");
        assert!(b.take(Duration::from_millis(10)).expect("take").is_empty());
    }

    #[test]
    fn the_same_delivery_waits_once_and_may_come_again_once_done() {
        let server = TestServer::start();
        let a = RedisRelay::new(server.target("s"), "host-a");
        let b = RedisRelay::new(server.target("s"), "host-b");
        let queued = |h: &Handoff| a.hand_over("host-b", h).expect("hand over");
        assert_eq!(queued(&handoff(1)), HandedOver::Queued);
        // A redelivery before host B took it adds nothing.
        assert_eq!(queued(&handoff(1)), HandedOver::AlreadyWaiting);
        // A retry (another text) is another delivery.
        let mut retry = handoff(1);
        retry.text = format!("[RETRY 1] {}", retry.text);
        assert_eq!(queued(&retry), HandedOver::Queued);
        let got = b.take(Duration::from_millis(10)).expect("take");
        assert_eq!(got.len(), 2);
        b.done(&got).expect("done");
        // Once typed in, the same delivery can be handed over again.
        assert_eq!(queued(&handoff(1)), HandedOver::Queued);
    }

    #[test]
    fn a_broadcasts_share_is_handed_over_together_and_once() {
        use HandedOver::{AlreadyWaiting, Queued};
        let server = TestServer::start();
        let a = RedisRelay::new(server.target("s"), "host-a");
        let b = RedisRelay::new(server.target("s"), "host-b");
        assert_eq!(
            a.hand_over("host-b", &handoff(2)).expect("hand over"),
            Queued
        );
        let share: Vec<Handoff> = (1..=4).map(handoff).chain([handoff(3)]).collect();
        let said = a.hand_over_all("host-b", &share).expect("hand over all");
        // The one already waiting and the repeat within the batch add nothing.
        assert_eq!(
            said,
            [Queued, AlreadyWaiting, Queued, Queued, AlreadyWaiting]
        );
        let got = b.take(Duration::from_millis(10)).expect("take");
        let ids: Vec<String> = got
            .iter()
            .map(|t| t.handoff.as_ref().expect("readable").identity())
            .collect();
        let want: Vec<String> = [2, 1, 3, 4].map(|n| handoff(n).identity()).to_vec();
        assert_eq!(ids, want);
        b.done(&got).expect("done");
        assert_eq!(a.hand_over_all("host-b", &[]).expect("nothing"), []);
        assert_eq!(
            a.hand_over_all("host-b", &[handoff(1)]).expect("again"),
            [Queued]
        );
    }

    #[test]
    fn an_unreadable_entry_is_handed_out_as_such() {
        let server = TestServer::start();
        let b = RedisRelay::new(server.target("s"), "host-b");
        let mut r = server.target("s").connect().expect("connect");
        let key = r.keys.deliver("host-b");
        r.query::<String>(redis::cmd("XADD").arg(&key).arg("*").arg("h").arg("{"))
            .expect("xadd");
        let got = b.take(Duration::from_millis(10)).expect("take");
        assert_eq!(got.len(), 1);
        assert!(got[0].handoff.is_none());
    }
}
