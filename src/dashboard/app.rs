//! `App`: the dashboard's shared state (settings, the message feed, the
//! published live state, connection limits) and its routes: which answer
//! each request gets (README, Dashboard).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use serde_json::json;

use crate::snapshot;
use crate::support::time;

use super::api;
use super::assets;
use super::basic_auth::Verdict;
use super::cors::Preflight;
use super::live::Live;
use super::message_feed::MessageFeed;
use super::request::Request;
use super::response::Response;
use super::settings::Settings;
use super::slots::Slots;

/// Most connections served at once (event streams included).
pub(super) const MAX_CONNECTIONS: usize = 64;

/// Most event streams open at once.
pub(super) const MAX_STREAMS: usize = 32;

/// The old API paths, answered with a redirect to `/api/v1/...`.
pub(super) const LEGACY: [&str; 5] = [
    "/api/agents",
    "/api/locks",
    "/api/messages",
    "/api/stats",
    "/api/stream",
];

/// What a request gets.
#[derive(Debug)]
pub(super) enum Reply {
    /// A complete answer.
    Full(Response),
    /// The event stream.
    Stream,
}

/// The shared state of one dashboard server.
pub(super) struct App {
    /// The settings it was started with.
    pub settings: Settings,
    /// What open event streams send.
    pub live: Live,
    /// Connections being served.
    pub connections: Arc<Slots>,
    /// Event streams open.
    pub streams: Arc<Slots>,
    feed: Mutex<MessageFeed>,
    stopping: AtomicBool,
}

impl std::fmt::Debug for App {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("App")
            .field("settings", &self.settings)
            .finish_non_exhaustive()
    }
}

impl App {
    /// The state of a server with these settings.
    pub(super) fn new(settings: Settings) -> App {
        App {
            feed: Mutex::new(MessageFeed::new(&settings.paths)),
            settings,
            live: Live::default(),
            connections: Slots::new(MAX_CONNECTIONS),
            streams: Slots::new(MAX_STREAMS),
            stopping: AtomicBool::new(false),
        }
    }

    /// The message feed (one reader at a time: it follows the log).
    pub(super) fn feed(&self) -> MutexGuard<'_, MessageFeed> {
        self.feed.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// True once the server is stopping.
    pub(super) fn stopping(&self) -> bool {
        self.stopping.load(Ordering::SeqCst)
    }

    /// Marks the server as stopping and wakes everything that waits.
    pub(super) fn stop(&self) {
        self.stopping.store(true, Ordering::SeqCst);
        self.live.stop();
    }

    /// The answer to `req`. Authentication comes first, for every path
    /// (the page's files and `/health` included), so that a client without
    /// credentials learns nothing, not even which paths exist; only CORS
    /// preflights, which browsers send without credentials, come before.
    pub(super) fn handle(&self, req: &Request) -> Reply {
        let origin = req.header("origin");
        if req.method == "OPTIONS"
            && let Some(method) = req.header("access-control-request-method")
        {
            let headers = req.header("access-control-request-headers");
            return Reply::Full(
                match self.settings.cors.preflight(origin, method, headers) {
                    Preflight::Allowed(h) => {
                        let mut r = Response::detail(200, "OK");
                        r.headers.extend(h);
                        r
                    }
                    Preflight::Refused(why) => Response::detail(400, why),
                },
            );
        }
        if let Some(auth) = &self.settings.auth {
            let refusal = match auth.check(req.header("authorization")) {
                Verdict::Allowed => None,
                Verdict::Missing => Some("Authentication required"),
                Verdict::Wrong => Some("Invalid credentials"),
            };
            if let Some(text) = refusal {
                return Reply::Full(Response::detail(401, text).with(
                    "WWW-Authenticate",
                    "Basic realm=\"swarm dashboard\", charset=\"UTF-8\"",
                ));
            }
        }
        let path = req.path.as_str();
        let known = assets::find(path).is_some()
            || matches!(
                path,
                "/health"
                    | "/api/v1/agents"
                    | "/api/v1/locks"
                    | "/api/v1/acks"
                    | "/api/v1/messages"
                    | "/api/v1/stats"
                    | "/api/v1/stream"
            )
            || LEGACY.contains(&path);
        if !known {
            return Reply::Full(Response::detail(404, "Not Found"));
        }
        if req.method != "GET" && req.method != "HEAD" {
            return Reply::Full(
                Response::detail(405, "Method Not Allowed").with("Allow", "GET, HEAD"),
            );
        }
        if let Some(asset) = assets::find(path) {
            return Reply::Full(Response::asset(asset.content_type, asset.body));
        }
        if LEGACY.contains(&path) {
            let mut to = format!("/api/v1{}", &path["/api".len()..]);
            if let Some(q) = &req.query {
                to.push('?');
                to.push_str(q);
            }
            return Reply::Full(Response::redirect(to));
        }
        Reply::Full(match path {
            "/health" => Response::json(200, &api::health(&self.settings.paths, time::now())),
            "/api/v1/agents" => {
                let (registry, _) = snapshot::read_registry(&self.settings.paths);
                Response::json(200, &api::agents(registry.as_ref()))
            }
            "/api/v1/locks" => match self.live_locks() {
                Ok(l) => Response::json(200, &l.body),
                Err(r) => r,
            },
            "/api/v1/acks" => {
                let (pending, _) = snapshot::read_acks(&self.settings.paths);
                Response::json(200, &api::acks(&pending))
            }
            "/api/v1/messages" => match api::limit(req.query_param("limit").as_deref()) {
                Err(body) => Response::json(422, &body),
                Ok(limit) => match self.fresh_feed() {
                    Ok(feed) => Response::json(200, &api::messages(&feed, limit)),
                    Err(r) => r,
                },
            },
            "/api/v1/stats" => self.stats(),
            "/api/v1/stream" if req.method == "HEAD" => {
                let mut r = Response::asset("text/event-stream", "");
                r.headers.retain(|(n, _)| *n != "Cache-Control");
                r.with("Cache-Control", "no-cache")
            }
            "/api/v1/stream" => return Reply::Stream,
            _ => Response::detail(404, "Not Found"),
        })
    }

    fn live_locks(&self) -> Result<api::LiveLocks, Response> {
        let now = crate::locks::now();
        api::locks(&self.settings.paths, self.settings.stale_after, now).map_err(|e| {
            (self.settings.report)(&format!("could not read the locks: {e}"));
            Response::detail(500, "Failed to read the locks")
        })
    }

    fn fresh_feed(&self) -> Result<MutexGuard<'_, MessageFeed>, Response> {
        let mut feed = self.feed();
        match feed.refresh() {
            Ok(_) => Ok(feed),
            Err(e) => {
                (self.settings.report)(&format!("could not read the message log: {e}"));
                Err(Response::detail(500, "Failed to read the message log"))
            }
        }
    }

    fn stats(&self) -> Response {
        let (registry, _) = snapshot::read_registry(&self.settings.paths);
        let locks = match self.live_locks() {
            Ok(l) => l,
            Err(r) => return r,
        };
        match self.fresh_feed() {
            Ok(feed) => Response::json(200, &api::stats(registry.as_ref(), locks.count, &feed)),
            Err(r) => r,
        }
    }
}

/// The answer when every connection slot is taken.
pub(super) fn busy() -> Response {
    Response::json(
        503,
        &json!({"detail": "Too many connections; try again shortly"}),
    )
    .with("Retry-After", "2")
}
