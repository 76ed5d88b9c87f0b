//! `GET /api/v1/stream`: server-sent events through axum's
//! `Sse`. A stream opens with `connected`, then sends the current agents,
//! locks, pending ACKs, latest messages, counts, who needs the person and
//! the latest lines of the activity feed, then each of them again
//! whenever it changes, and a `heartbeat` every 15 seconds, which also
//! keeps proxies and browsers from closing an idle stream. Stopping the
//! server ends every stream with a complete answer.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::sse::{Event, Sse};
use axum::response::{IntoResponse, Response};
use futures_util::stream;
use tokio::sync::OwnedSemaphorePermit;
use tokio::time::Instant;

use swarm_core::support::time;

use super::api;
use super::app::App;
use super::live::TOPICS;
use super::reply::{self, json_text};

/// Time between heartbeats.
pub(crate) const HEARTBEAT: Duration = Duration::from_secs(15);

/// Longest wait for the first scan after a stream opens.
const FIRST_SCAN: Duration = Duration::from_secs(30);

/// One open stream: what it has sent, and its place among the streams.
struct Subscription {
    app: Arc<App>,
    _slot: OwnedSemaphorePermit,
    sent: [u64; TOPICS.len()],
    after: u64,
    waiting_first: bool,
    opened: Instant,
    last_beat: Instant,
    queue: VecDeque<Event>,
    ended: bool,
}

impl Drop for Subscription {
    fn drop(&mut self) {
        self.app.live.unsubscribe();
    }
}

/// The event stream, or a 503 when too many are open.
pub(super) fn open(app: Arc<App>) -> Response {
    let Ok(slot) = Arc::clone(&app.streams).try_acquire_owned() else {
        let mut busy = reply::detail(
            StatusCode::SERVICE_UNAVAILABLE,
            "Too many open event streams; try again shortly",
        );
        busy.headers_mut()
            .insert(header::RETRY_AFTER, HeaderValue::from_static("5"));
        return busy;
    };
    let after = app.live.subscribe();
    let now = Instant::now();
    let mut first = VecDeque::new();
    first.push_back(event("connected", &json_text(&api::connected(time::now()))));
    let sub = Subscription {
        app,
        _slot: slot,
        sent: [0; TOPICS.len()],
        after,
        waiting_first: true,
        opened: now,
        last_beat: now,
        queue: first,
        ended: false,
    };
    let events = stream::unfold(sub, |mut sub| async move {
        next(&mut sub)
            .await
            .map(|e| (Ok::<Event, Infallible>(e), sub))
    });
    let mut response = Sse::new(events).into_response();
    let h = response.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream; charset=utf-8"),
    );
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    h.insert("x-accel-buffering", HeaderValue::from_static("no"));
    response
}

/// The answer to `HEAD /api/v1/stream`: the stream's headers, no events.
pub(super) fn head() -> Response {
    let mut r = reply::asset("text/event-stream", "");
    r.headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    r
}

fn event(name: &str, json: &str) -> Event {
    Event::default().event(name).data(json)
}

/// The next event to send; `None` ends the stream (the server stops).
async fn next(sub: &mut Subscription) -> Option<Event> {
    loop {
        if let Some(e) = sub.queue.pop_front() {
            return Some(e);
        }
        if sub.ended || sub.app.stopping() {
            return None;
        }
        let until = sub.last_beat + HEARTBEAT;
        let changes = sub.app.live.wait(&sub.sent, sub.after, until).await;
        if changes.stopping {
            sub.ended = true;
            return None;
        }
        for (topic, version, json) in &changes.items {
            sub.queue.push_back(event(topic.event(), json));
            sub.sent[topic.index()] = *version;
        }
        if sub.waiting_first && (!changes.items.is_empty() || sub.opened.elapsed() > FIRST_SCAN) {
            sub.waiting_first = false;
            sub.after = 0;
        }
        if sub.last_beat.elapsed() >= HEARTBEAT {
            sub.last_beat = Instant::now();
            sub.queue
                .push_back(event("heartbeat", &json_text(&api::heartbeat(time::now()))));
        }
    }
}
