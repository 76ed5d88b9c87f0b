//! Posting one message to the thread a Codex TUI shows, through the app
//! server it runs against, and reading back what became of it.
//!
//! The thread: of the threads loaded in the server (`thread/loaded/list`),
//! the one a person sees: not one of the server's own side threads
//! (ephemeral: titles, reviews), not a sub-agent's, the most recently
//! updated when the person opened several. None loaded: refused (swarm
//! never starts a thread the person cannot see).
//!
//! The message is a turn of its own: `turn/start` when the thread is
//! idle, `thread/queue/add` while a turn runs (the thread takes it when
//! that turn ends), `turn/steer` into the running turn when it is urgent.
//! It carries swarm's message id as its `clientUserMessageId`, and the
//! thread's user-message item names that id as its `clientId`: that item
//! (an `item/started` event, or the thread's turns read back) is the
//! receipt.
//!
//! Exactly once: anything that fails before a turn/start, steer or queue
//! request was sent is `Refused` (typing may go ahead); once one was sent,
//! the message is Codex's, whatever comes back: accepted, or `Unknown`
//! when no answer came in time. An error answer means the server did not
//! take it, so a steer refused (the turn had just ended) is queued or
//! started instead, within the same post.
//!
//! A turn that ends by being stopped (the person pressed Escape at an
//! approval, say) leaves the thread idle with its queue kept: Codex takes
//! nothing from it until asked. A message of swarm's first in that queue,
//! the thread still idle a moment later, is started from there
//! (`thread/queue/start` of that very submission): the same input, once,
//! as it would have gone in had the turn ended by itself.

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::json;

use super::protocol::{
    ItemStarted, LoadedList, QueueList, Queued, Steered, Thread, ThreadRead, TurnList, TurnStarted,
    method, notification, text_input, user_message_client_id,
};
use super::rpc::{Connection, RpcFailure};

/// Time for connecting, the handshake and `initialize`.
const OPEN_WITHIN: Duration = Duration::from_secs(3);
/// Time for each request's answer.
const ANSWER_WITHIN: Duration = Duration::from_secs(5);
/// Time for the event that shows a started turn took the message.
const CONFIRM_WITHIN: Duration = Duration::from_secs(4);
/// Most loaded threads looked at.
const MAX_THREADS: usize = 64;
/// Turns read back, newest first, to find a message's item.
const TURNS_READ: u32 = 8;

/// How long a thread found idle with swarm's message first in its queue
/// must stay so before that message is started from the queue.
const SETTLE: Duration = Duration::from_secs(1);

/// How a message wants to reach the agent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Urgency {
    /// A turn of its own: now when idle, after the running turn otherwise.
    Normal,
    /// Into the running turn when one runs (`turn/steer`), else now.
    Urgent,
}

/// How the thread took the message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Taken {
    /// It started this turn.
    Started(String),
    /// It went into this running turn.
    Steered(String),
    /// It waits in the thread's queue (this submission) for the running
    /// turn to end.
    Queued(String),
}

/// What a post did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Posted {
    /// Nothing was sent that could start a turn: typing may go ahead.
    Refused(String),
    /// The thread took it.
    Accepted {
        /// The thread.
        thread: String,
        /// How.
        taken: Taken,
        /// The thread's user-message item for it was seen: the model has
        /// it.
        confirmed: bool,
    },
    /// A request that hands it over was sent and no answer came: it may
    /// have been taken, so it is never typed.
    Unknown(String),
}

/// What the thread's own records say of a message posted before.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Found {
    /// A turn took it.
    Delivered,
    /// Still in the thread's queue.
    Queued,
    /// Neither queued nor in the recent turns, the thread idle: removed
    /// from the queue without being taken.
    Gone,
    /// Cannot tell now (no server, a turn starting): ask again later.
    Unknown(String),
}

/// Posts `text` to the thread the TUI behind `socket` shows, with
/// `client_id` (swarm's message id) as its client message id.
pub(crate) fn post(socket: &Path, text: &str, client_id: &str, urgency: Urgency) -> Posted {
    let mut c = match Connection::open(socket, OPEN_WITHIN) {
        Ok(c) => c,
        Err(e) => return Posted::Refused(e.to_string()),
    };
    let thread = match the_thread(&mut c) {
        Ok(t) => t,
        Err(why) => return Posted::Refused(why),
    };
    // Joining the thread brings its turn and item events here. A thread
    // that has not run a turn yet has nothing on disk to join ("no rollout
    // found"): its turns are then read back instead.
    let joined = match c.call_value(
        method::RESUME,
        json!({"threadId": thread.id, "excludeTurns": true}),
        deadline(ANSWER_WITHIN),
    ) {
        Ok(_) => true,
        Err(RpcFailure::Answer(_)) => false,
        Err(e) => return Posted::Refused(e.to_string()),
    };
    let handed = hand_over(&mut c, &thread, text, client_id, urgency);
    let taken = match handed {
        Ok(taken) => taken,
        Err(Handed::Refused(why)) => return Posted::Refused(why),
        Err(Handed::Unknown(why)) => return Posted::Unknown(why),
    };
    let confirmed = match &taken {
        Taken::Queued(_) => false,
        Taken::Started(_) | Taken::Steered(_) => confirm(&mut c, &thread.id, client_id, joined),
    };
    Posted::Accepted {
        thread: thread.id,
        taken,
        confirmed,
    }
}

/// What became of the message posted with `client_id` to the TUI behind
/// `socket`.
pub(crate) fn find(socket: &Path, client_id: &str) -> Found {
    let mut c = match Connection::open(socket, OPEN_WITHIN) {
        Ok(c) => c,
        Err(e) => return Found::Unknown(e.to_string()),
    };
    let thread = match the_thread(&mut c) {
        Ok(t) => t,
        Err(why) => return Found::Unknown(why),
    };
    let queue: Result<QueueList, _> = c.call(
        method::QUEUE_LIST,
        json!({"threadId": thread.id}),
        deadline(ANSWER_WITHIN),
    );
    match queue {
        Ok(q) if q.data.iter().any(|s| s.client_id == client_id) => {
            let first = q.data.first().filter(|s| s.client_id == client_id);
            if let Some(s) = first
                && thread.status.kind == "idle"
            {
                start_if_still_idle(&mut c, &thread.id, &s.id, client_id);
            }
            return Found::Queued;
        }
        Ok(_) => {}
        Err(e) => return Found::Unknown(e.to_string()),
    }
    match in_turns(&mut c, &thread.id, client_id) {
        Ok(true) => Found::Delivered,
        Ok(false) if thread.status.kind == "idle" => Found::Gone,
        Ok(false) => Found::Unknown("a turn is running; not in its queue nor its turns yet".into()),
        Err(e) => Found::Unknown(e.to_string()),
    }
}

/// Starts the queued submission `submission` (swarm's `client_id`) of
/// `thread` when, after `SETTLE`, the thread is still idle and it still
/// heads the queue: a turn that ended by itself is taking its queue by
/// then, one that was stopped is not. What came of it, the next look says.
fn start_if_still_idle(c: &mut Connection, thread: &str, submission: &str, client_id: &str) {
    std::thread::sleep(SETTLE);
    let idle = c
        .call::<ThreadRead>(
            method::READ,
            json!({"threadId": thread}),
            deadline(ANSWER_WITHIN),
        )
        .is_ok_and(|r| r.thread.status.kind == "idle");
    let heads = c
        .call::<QueueList>(
            method::QUEUE_LIST,
            json!({"threadId": thread}),
            deadline(ANSWER_WITHIN),
        )
        .is_ok_and(|q| q.data.first().is_some_and(|s| s.client_id == client_id));
    if idle && heads {
        let _ = c.call::<serde_json::Value>(
            method::QUEUE_START,
            json!({"threadId": thread, "queuedSubmissionId": submission}),
            deadline(ANSWER_WITHIN),
        );
    }
}

enum Handed {
    Refused(String),
    Unknown(String),
}

/// Sends the one request that hands the message over (two when a steer
/// is refused): the thread's status chooses which.
fn hand_over(
    c: &mut Connection,
    thread: &Thread,
    text: &str,
    client_id: &str,
    urgency: Urgency,
) -> Result<Taken, Handed> {
    let input = text_input(text);
    match thread.status.kind.as_str() {
        "idle" => start(c, &thread.id, &input, client_id),
        "active" => {
            if urgency == Urgency::Urgent
                && let Some(turn) = running_turn(c, &thread.id)
            {
                let steered: Result<Steered, _> = c.call(
                    method::TURN_STEER,
                    json!({"threadId": thread.id, "expectedTurnId": turn, "input": input,
                           "clientUserMessageId": client_id}),
                    deadline(ANSWER_WITHIN),
                );
                match steered {
                    Ok(s) => return Ok(Taken::Steered(s.turn_id)),
                    // The turn ended meanwhile: it goes in as a turn.
                    Err(RpcFailure::Answer(_)) => {}
                    Err(e) => return Err(after_sending(e)),
                }
            }
            let queued: Result<Queued, _> = c.call(
                method::QUEUE_ADD,
                json!({"threadId": thread.id, "input": input, "clientUserMessageId": client_id}),
                deadline(ANSWER_WITHIN),
            );
            match queued {
                Ok(q) => Ok(Taken::Queued(q.submission.id)),
                Err(RpcFailure::Answer(e)) => Err(Handed::Refused(format!(
                    "the app server did not queue it: {}",
                    e.message
                ))),
                Err(e) => Err(after_sending(e)),
            }
        }
        other => Err(Handed::Refused(format!(
            "the thread the TUI shows is {other}, not idle or running"
        ))),
    }
}

fn start(
    c: &mut Connection,
    thread: &str,
    input: &serde_json::Value,
    client_id: &str,
) -> Result<Taken, Handed> {
    let started: Result<TurnStarted, _> = c.call(
        method::TURN_START,
        json!({"threadId": thread, "input": input, "clientUserMessageId": client_id}),
        deadline(ANSWER_WITHIN),
    );
    match started {
        Ok(t) => Ok(Taken::Started(t.turn.id)),
        Err(RpcFailure::Answer(e)) => Err(Handed::Refused(format!(
            "the app server did not start a turn: {}",
            e.message
        ))),
        Err(e) => Err(after_sending(e)),
    }
}

/// A failure once a hand-over request was sent: the server may have it.
/// Only an answer that does not parse tells that it took it; the rest
/// (no answer, a closed connection) cannot tell.
fn after_sending(e: RpcFailure) -> Handed {
    Handed::Unknown(format!("sent, but {e}"))
}

/// The id of the thread's running turn.
fn running_turn(c: &mut Connection, thread: &str) -> Option<String> {
    let turns: TurnList = c
        .call(
            method::TURNS,
            json!({"threadId": thread, "limit": 1, "sortDirection": "desc", "itemsView": "notLoaded"}),
            deadline(ANSWER_WITHIN),
        )
        .ok()?;
    turns
        .data
        .into_iter()
        .find(|t| t.status == "inProgress")
        .map(|t| t.id)
}

/// Waits for the item that shows a turn took the message: its event when
/// this connection joined the thread, else the thread's turns read back.
fn confirm(c: &mut Connection, thread: &str, client_id: &str, joined: bool) -> bool {
    let until = deadline(CONFIRM_WITHIN);
    if joined {
        let seen = c.wait_for(until, |n| {
            if n.method != notification::ITEM_STARTED {
                return None;
            }
            let item: ItemStarted = serde_json::from_value(n.params.clone()).ok()?;
            (item.thread_id == thread && user_message_client_id(&item.item) == Some(client_id))
                .then_some(item.turn_id)
        });
        return matches!(seen, Ok(Some(_)));
    }
    while Instant::now() < until {
        if let Ok(true) = in_turns(c, thread, client_id) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(150));
    }
    false
}

/// True when one of the thread's recent turns holds a user message with
/// `client_id`.
fn in_turns(c: &mut Connection, thread: &str, client_id: &str) -> Result<bool, RpcFailure> {
    let turns: TurnList = c.call(
        method::TURNS,
        json!({"threadId": thread, "limit": TURNS_READ, "sortDirection": "desc", "itemsView": "full"}),
        deadline(ANSWER_WITHIN),
    )?;
    Ok(turns.data.iter().any(|t| {
        t.items
            .iter()
            .any(|i| user_message_client_id(i) == Some(client_id))
    }))
}

/// The thread the person sees in the TUI.
fn the_thread(c: &mut Connection) -> Result<Thread, String> {
    let mut ids = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let page: LoadedList = c
            .call(
                method::LOADED,
                json!({"cursor": cursor}),
                deadline(ANSWER_WITHIN),
            )
            .map_err(|e| e.to_string())?;
        ids.extend(page.data);
        cursor = page.next_cursor;
        if cursor.is_none() || ids.len() >= MAX_THREADS {
            break;
        }
    }
    let mut best: Option<Thread> = None;
    for id in ids.into_iter().take(MAX_THREADS) {
        let Ok(read) = c.call::<ThreadRead>(
            method::READ,
            json!({"threadId": id}),
            deadline(ANSWER_WITHIN),
        ) else {
            continue;
        };
        let t = read.thread;
        let seen = !t.ephemeral
            && t.parent.is_none()
            && t.attached_to.is_none()
            && t.status.kind != "notLoaded";
        if seen && best.as_ref().is_none_or(|b| t.updated_at > b.updated_at) {
            best = Some(t);
        }
    }
    best.ok_or_else(|| "the app server has no thread loaded that its TUI shows".to_owned())
}

fn deadline(within: Duration) -> Instant {
    Instant::now() + within
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};
    use std::os::unix::net::UnixListener;

    /// A peer on a Unix socket that answers each connection with `reply`
    /// (after reading what came) and closes it.
    fn peer(reply: &'static [u8]) -> (tempfile::TempDir, std::path::PathBuf) {
        let dir = tempfile::tempdir().expect("no error");
        let path = dir.path().join("s.sock");
        let listener = UnixListener::bind(&path).expect("no error");
        std::thread::spawn(move || {
            for conn in listener.incoming() {
                let Ok(mut conn) = conn else { return };
                let mut buf = [0u8; 4096];
                let _ = conn.read(&mut buf);
                let _ = conn.write_all(reply);
            }
        });
        (dir, path)
    }

    #[test]
    fn what_fails_before_the_hand_over_is_refused() {
        let gone = tempfile::tempdir().expect("no error");
        for (what, posted) in [
            (
                "no socket",
                post(&gone.path().join("none.sock"), "m", "id-1", Urgency::Normal),
            ),
            (
                "closed at once",
                post(&peer(b"").1, "m", "id-1", Urgency::Normal),
            ),
            (
                "not a WebSocket",
                post(
                    &peer(b"HTTP/1.1 400 Bad Request\r\n\r\n").1,
                    "m",
                    "id-1",
                    Urgency::Normal,
                ),
            ),
        ] {
            assert!(matches!(posted, Posted::Refused(_)), "{what}: {posted:?}");
        }
        let Posted::Refused(why) = post(&gone.path().join("none.sock"), "m", "id", Urgency::Normal)
        else {
            panic!("refused")
        };
        assert!(why.contains("cannot connect"), "{why}");
        assert!(matches!(
            find(&gone.path().join("none.sock"), "id"),
            Found::Unknown(_)
        ));
    }

    #[test]
    fn a_failure_after_the_hand_over_is_never_a_refusal() {
        for e in [
            RpcFailure::Timeout,
            RpcFailure::Transport("closed".into()),
            RpcFailure::Protocol("bad answer".into()),
        ] {
            assert!(matches!(after_sending(e), Handed::Unknown(_)));
        }
    }
}
