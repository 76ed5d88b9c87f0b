//! `App`: the dashboard's shared state (settings, the message feed, the
//! activity feed, the published live state, the page token, the
//! event-stream limit) and its
//! router: which answer each request gets, and the layers
//! every request passes through first.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use axum::Router;
use axum::body::Body;
use axum::extract::{Json, Path, Query, State};
use axum::http::{HeaderValue, Method, Response, StatusCode, header};
use axum::middleware::from_fn_with_state;
use axum::routing::{get, post};
use serde_json::Value;
use tokio::sync::Semaphore;
use tower::util::MapResponse;
use tower_http::validate_request::ValidateRequestHeaderLayer;

use swarm_core::support::time;
use swarm_core::watcher::service;
use swarm_core::worktrees::OverlapNotices;
use swarm_core::{hourly_series, now_secs, read_acks, read_registry, unix_now};

use super::access_key;
use super::action_guard::{self, SessionToken};
use super::actions;
use super::activity::{ActivityFeed, FeedQuery};
use super::api;
use super::assets;
use super::basic_auth::RequireAuth;
use super::conversations;
use super::event_stream;
use super::live::Live;
use super::message_feed::MessageFeed;
use super::middleware;
use super::needs;
use super::reply;
use super::screens;
use super::settings::Settings;

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

/// The shared state of one dashboard server.
pub(super) struct App {
    /// The settings it was started with.
    pub settings: Settings,
    /// What open event streams send.
    pub live: Live,
    /// Event streams that may still open.
    pub streams: Arc<Semaphore>,
    /// The token this run put into its page; actions must carry it.
    pub token: SessionToken,
    /// The port listened on (it names the access cookie).
    pub port: u16,
    feed: Mutex<MessageFeed>,
    activity: Mutex<ActivityFeed>,
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
    /// The state of a server with these settings, listening on `port`.
    pub(super) fn new(settings: Settings, port: u16) -> App {
        App {
            feed: Mutex::new(MessageFeed::new(Arc::clone(&settings.backend))),
            activity: Mutex::new(ActivityFeed::new(Arc::clone(&settings.backend))),
            settings,
            live: Live::default(),
            streams: Arc::new(Semaphore::new(MAX_STREAMS)),
            token: SessionToken::new(),
            port,
            stopping: AtomicBool::new(false),
        }
    }

    /// The message feed (one reader at a time: it follows the log).
    pub(super) fn feed(&self) -> MutexGuard<'_, MessageFeed> {
        self.feed.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The activity feed (one reader at a time: it follows the feed).
    pub(super) fn activity(&self) -> MutexGuard<'_, ActivityFeed> {
        self.activity.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The activity feed brought up to date, or the problem (reported).
    pub(super) fn fresh_activity(&self) -> Result<MutexGuard<'_, ActivityFeed>, Unreadable> {
        let mut activity = self.activity();
        match activity.refresh() {
            Ok(_) => Ok(activity),
            Err(e) => {
                (self.settings.report)(&format!("could not read the activity feed: {e}"));
                Err(Unreadable("Failed to read the activity feed"))
            }
        }
    }

    /// The body of `GET /api/v1/attention`, or the problem (reported).
    pub(super) fn attention(&self) -> Result<Value, Unreadable> {
        let open = self.settings.backend.episodes.open().map_err(|e| {
            (self.settings.report)(&format!("could not read the open episodes: {e}"));
            Unreadable("Failed to read who needs you")
        })?;
        let (registry, _) = read_registry(self.settings.backend.registry.as_ref());
        let activity = self.fresh_activity()?;
        Ok(needs::attention(
            &self.settings,
            open,
            registry.as_ref(),
            &activity,
        ))
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

    fn live_locks(&self) -> Result<api::LiveLocks, Unreadable> {
        let now = unix_now();
        api::locks(
            &*self.settings.backend.locks,
            self.settings.stale_after,
            now,
        )
        .map_err(|e| {
            (self.settings.report)(&format!("could not read the locks: {e}"));
            Unreadable("Failed to read the locks")
        })
    }

    fn fresh_feed(&self) -> Result<MutexGuard<'_, MessageFeed>, Unreadable> {
        let mut feed = self.feed();
        match feed.refresh() {
            Ok(_) => Ok(feed),
            Err(e) => {
                (self.settings.report)(&format!("could not read the message log: {e}"));
                Err(Unreadable("Failed to read the message log"))
            }
        }
    }
}

/// A state file that could not be read (already reported): a 500.
pub(super) struct Unreadable(pub(super) &'static str);

impl From<Unreadable> for Response<Body> {
    fn from(u: Unreadable) -> Response<Body> {
        reply::detail(StatusCode::INTERNAL_SERVER_ERROR, u.0)
    }
}

/// Runs `f` on a thread where blocking (files, tmux) is fine.
async fn blocking(
    app: Arc<App>,
    f: impl FnOnce(&App) -> Response<Body> + Send + 'static,
) -> Response<Body> {
    tokio::task::spawn_blocking(move || f(&app))
        .await
        .unwrap_or_else(|_| reply::detail(StatusCode::INTERNAL_SERVER_ERROR, "Internal error"))
}

fn ok(value: &Value) -> Response<Body> {
    reply::json(StatusCode::OK, value)
}

/// The service a connection is served by: the router, with a 405's
/// answer made the original's.
pub(super) type Service = MapResponse<Router, fn(Response<Body>) -> Response<Body>>;

/// `router` as the service connections are served by.
pub(super) fn service(app: Arc<App>) -> Service {
    MapResponse::new(
        router(app),
        middleware::method_not_allowed as fn(Response<Body>) -> Response<Body>,
    )
}

/// Every route, behind the layers every request passes through. From the
/// outside in: the security headers (on every answer, refusals included),
/// the Host check, the refusal of disallowed preflights, the CORS headers
/// (which answer allowed preflights before authentication, as browsers
/// send those without credentials), authentication: the password when one
/// is set, else the URL's secret (on every other path, so that a client
/// without either learns nothing, not even which paths exist; a bare
/// health probe excepted). Actions besides need the page's origin and
/// token.
fn router(app: Arc<App>) -> Router {
    let actions = Router::new()
        .route("/api/v1/actions/send", post(send))
        .route("/api/v1/actions/answer", post(answer))
        .route("/api/v1/actions/ack", post(ack))
        .route("/api/v1/actions/unlock", post(unlock))
        .route("/api/v1/actions/release", post(release))
        .route_layer(from_fn_with_state(Arc::clone(&app), action_guard::check));
    let mut routes = Router::new()
        .route("/", get(page))
        .route("/static/index.html", get(page))
        .route("/static/dashboard.js", get(script))
        .route("/static/style.css", get(style))
        .route("/health", get(health))
        .route("/api/v1/agents", get(agents))
        .route("/api/v1/agents/{id}", get(agent))
        .route("/api/v1/agents/{id}/screen", get(screen))
        .route("/api/v1/attention", get(attention))
        .route("/api/v1/feed", get(feed))
        .route("/api/v1/locks", get(locks))
        .route("/api/v1/acks", get(acks))
        .route("/api/v1/overlaps", get(overlaps))
        .route("/api/v1/messages", get(messages))
        .route("/api/v1/messages/{id}/thread", get(thread))
        .route("/api/v1/stats", get(stats))
        .route("/api/v1/delivery", get(delivery))
        .route("/api/v1/usage", get(usage))
        .route("/api/v1/stream", get(stream));
    for path in LEGACY {
        routes = routes.route(path, get(legacy));
    }
    let mut router = routes
        .merge(actions)
        .fallback(not_found)
        .with_state(Arc::clone(&app))
        .layer(from_fn_with_state(Arc::clone(&app), access_key::check))
        .layer(ValidateRequestHeaderLayer::custom(RequireAuth(
            app.settings.auth.clone(),
        )))
        .layer(app.settings.cors.layer())
        .layer(from_fn_with_state(
            Arc::clone(&app),
            middleware::preflight_check,
        ))
        .layer(from_fn_with_state(Arc::clone(&app), middleware::host_check));
    for layer in middleware::security_headers() {
        router = router.layer(layer);
    }
    router
}

async fn not_found() -> Response<Body> {
    reply::detail(StatusCode::NOT_FOUND, "Not Found")
}

async fn page(State(app): State<Arc<App>>) -> Response<Body> {
    reply::asset(
        assets::INDEX.content_type,
        assets::page(app.token.as_str(), &app.settings.person_id),
    )
}

async fn script() -> Response<Body> {
    reply::asset(assets::SCRIPT.content_type, assets::SCRIPT.body)
}

async fn style() -> Response<Body> {
    reply::asset(assets::STYLE.content_type, assets::STYLE.body)
}

async fn health(State(app): State<Arc<App>>) -> Response<Body> {
    blocking(app, |app| {
        ok(&api::health(&app.settings.paths, time::now()))
    })
    .await
}

async fn agents(State(app): State<Arc<App>>) -> Response<Body> {
    blocking(app, |app| {
        let (registry, _) = read_registry(app.settings.backend.registry.as_ref());
        ok(&api::agents(registry.as_ref()))
    })
    .await
}

async fn agent(State(app): State<Arc<App>>, Path(id): Path<String>) -> Response<Body> {
    blocking(app, move |app| {
        let Ok(id) = swarm_core::domain::validate::agent_id(&id) else {
            return reply::detail(StatusCode::NOT_FOUND, "Not Found");
        };
        let (registry, _) = read_registry(app.settings.backend.registry.as_ref());
        let locks = match app.live_locks() {
            Ok(l) => l,
            Err(r) => return r.into(),
        };
        let (pending, _) = read_acks(&*app.settings.backend.acks);
        let states = screens::states(&app.settings, registry.as_ref());
        let screen = states.iter().find(|(a, _)| *a == id).map(|(_, s)| s);
        let now = time::now();
        let held: Vec<Value> = screens::held(&app.settings)
            .iter()
            .filter(|h| h.agent == id.as_str())
            .map(|h| screens::held_json(h, now))
            .collect();
        // A limits store that cannot be read hides nothing else.
        let limits = app.settings.backend.limits.read().unwrap_or_default();
        match app.fresh_feed() {
            Ok(feed) => {
                let mut view = api::agent_view(
                    &id,
                    registry.as_ref(),
                    &locks.body,
                    &pending,
                    &feed,
                    screen,
                    held,
                );
                let limit = limits.of_agent(&id);
                view["limited"] = limit.map(|r| r.describe()).into();
                view["limited_until"] = limit
                    .and_then(|r| r.until)
                    .map(swarm_core::Timestamp::utc_iso)
                    .into();
                ok(&view)
            }
            Err(r) => r.into(),
        }
    })
    .await
}

async fn screen(State(app): State<Arc<App>>, Path(id): Path<String>) -> Response<Body> {
    blocking(app, move |app| {
        let Ok(id) = swarm_core::domain::validate::agent_id(&id) else {
            return reply::detail(StatusCode::NOT_FOUND, "Not Found");
        };
        let (registry, _) = read_registry(app.settings.backend.registry.as_ref());
        match screens::screen(&app.settings, registry.as_ref(), &id) {
            Ok(body) => ok(&body),
            Err((status, why)) => reply::detail(status, &why),
        }
    })
    .await
}

async fn attention(State(app): State<Arc<App>>) -> Response<Body> {
    blocking(app, |app| match app.attention() {
        Ok(body) => ok(&body),
        Err(r) => r.into(),
    })
    .await
}

/// Every value of each query parameter named (repeated ones too).
fn params(query: &Option<Query<Vec<(String, String)>>>, name: &str) -> Vec<String> {
    query
        .as_ref()
        .map(|q| {
            q.0.iter()
                .filter(|(k, _)| k == name)
                .map(|(_, v)| v.clone())
                .collect()
        })
        .unwrap_or_default()
}

async fn feed(
    State(app): State<Arc<App>>,
    query: Result<Query<Vec<(String, String)>>, axum::extract::rejection::QueryRejection>,
) -> Response<Body> {
    let query = query.ok();
    let asked = FeedQuery::parse(
        param(&query, "since").as_deref(),
        &params(&query, "agent"),
        &params(&query, "event"),
        param(&query, "limit").as_deref(),
        swarm_core::Timestamp::now(),
    );
    blocking(app, move |app| match asked {
        Err(body) => reply::json(StatusCode::UNPROCESSABLE_ENTITY, &body),
        Ok(asked) => match app.fresh_activity() {
            Ok(activity) => ok(&super::activity::feed(&activity, &asked)),
            Err(r) => r.into(),
        },
    })
    .await
}

async fn delivery(State(app): State<Arc<App>>) -> Response<Body> {
    blocking(app, |app| {
        let (registry, _) = read_registry(&*app.settings.backend.registry);
        let states = screens::states(&app.settings, registry.as_ref());
        let held = screens::held(&app.settings);
        let mut body = screens::delivery(&states, &held, time::now());
        // Each screen of an agent whose login is at its usage limit says
        // so ("limited until 15:00").
        let limits = app.settings.backend.limits.read().unwrap_or_default();
        if let Some(all) = body["screens"].as_object_mut() {
            for (id, screen) in all.iter_mut() {
                if let (Some(r), Some(obj)) = (limits.of_agent(id), screen.as_object_mut()) {
                    obj.insert("limited".into(), r.describe().into());
                }
            }
        }
        ok(&body)
    })
    .await
}

async fn locks(State(app): State<Arc<App>>) -> Response<Body> {
    blocking(app, |app| match app.live_locks() {
        Ok(l) => ok(&l.body),
        Err(r) => r.into(),
    })
    .await
}

async fn acks(State(app): State<Arc<App>>) -> Response<Body> {
    blocking(app, |app| {
        let (pending, _) = read_acks(&*app.settings.backend.acks);
        ok(&api::acks(&pending))
    })
    .await
}

/// `GET /api/v1/overlaps`: the files two or more agents changed on their
/// worktree branches, as the project's watcher (or `swarm changes`) last
/// found them: `{"overlaps": [{"path": ..., "agents": [...]}], "count": N}`.
async fn overlaps(State(app): State<Arc<App>>) -> Response<Body> {
    blocking(app, |app| {
        let (list, _) = OverlapNotices::new(&app.settings.paths).current();
        ok(&serde_json::json!({"count": list.len(), "overlaps": list}))
    })
    .await
}

/// The first value of each query parameter named.
fn param(query: &Option<Query<Vec<(String, String)>>>, name: &str) -> Option<String> {
    query
        .as_ref()?
        .0
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.clone())
}

async fn messages(
    State(app): State<Arc<App>>,
    query: Result<Query<Vec<(String, String)>>, axum::extract::rejection::QueryRejection>,
) -> Response<Body> {
    let query = query.ok();
    let limit = param(&query, "limit");
    let search = api::Search {
        text: param(&query, "q").unwrap_or_default(),
        agent: param(&query, "agent").unwrap_or_default(),
    };
    blocking(app, move |app| match api::limit(limit.as_deref()) {
        Err(body) => reply::json(StatusCode::UNPROCESSABLE_ENTITY, &body),
        // Words go to the message index, ranked; an agent alone is the
        // latest of its messages.
        Ok(limit) if !search.text.trim().is_empty() => {
            match conversations::search(&app.settings, &search.text, &search.agent, limit) {
                Ok(body) => ok(&body),
                Err((status, why)) => reply::detail(status, &why),
            }
        }
        Ok(limit) => match app.fresh_feed() {
            Ok(feed) if search.is_empty() => ok(&api::messages(&feed, limit)),
            Ok(feed) => ok(&api::search(&feed, &search, limit)),
            Err(r) => r.into(),
        },
    })
    .await
}

async fn thread(State(app): State<Arc<App>>, Path(id): Path<String>) -> Response<Body> {
    blocking(app, move |app| {
        match conversations::thread(&app.settings, &id) {
            Ok(body) => ok(&body),
            Err((status, why)) => reply::detail(status, &why),
        }
    })
    .await
}

async fn stats(State(app): State<Arc<App>>) -> Response<Body> {
    blocking(app, |app| {
        let (registry, _) = read_registry(app.settings.backend.registry.as_ref());
        let locks = match app.live_locks() {
            Ok(l) => l,
            Err(r) => return r.into(),
        };
        match app.fresh_feed() {
            Ok(feed) => {
                let watcher = service::status(&app.settings.paths).ok().map(|s| s.running);
                ok(&api::stats(registry.as_ref(), locks.count, &feed, watcher))
            }
            Err(r) => r.into(),
        }
    })
    .await
}

/// `GET /api/v1/usage`: what `swarm usage --json` prints (docs/USAGE.md);
/// with `?series=hour`, also each agent's tokens per hour over the last
/// day (docs/FORMATS.md).
async fn usage(
    State(app): State<Arc<App>>,
    query: Result<Query<Vec<(String, String)>>, axum::extract::rejection::QueryRejection>,
) -> Response<Body> {
    let series = match param(&query.ok(), "series").as_deref() {
        None => false,
        Some("hour") => true,
        Some(_) => {
            return reply::detail(
                StatusCode::UNPROCESSABLE_ENTITY,
                "series: the only series is `hour`",
            );
        }
    };
    blocking(app, move |app| {
        let (registry, _) = read_registry(app.settings.backend.registry.as_ref());
        let registry = registry.unwrap_or_default();
        let tally = app.settings.op.tally();
        match tally.refresh(&registry, app.settings.backend.shared_host()) {
            Ok((ledger, notes)) => {
                for n in &notes {
                    (app.settings.report)(n);
                }
                let now = now_secs();
                let standing = tally.standing(&ledger, &registry, now);
                let report = tally.report(&ledger, &standing, None, None);
                let mut body = serde_json::to_value(&report).unwrap_or_default();
                if series {
                    let shown: Vec<String> =
                        report.agents.iter().map(|a| a.agent.clone()).collect();
                    body["series"] = serde_json::to_value(hourly_series(&ledger, &shown, now))
                        .unwrap_or_default();
                }
                ok(&body)
            }
            Err(e) => {
                (app.settings.report)(&format!("could not read the agents' usage: {e}"));
                Unreadable("Failed to read the agents' usage").into()
            }
        }
    })
    .await
}

async fn stream(State(app): State<Arc<App>>, method: Method) -> Response<Body> {
    if method == Method::HEAD {
        return event_stream::head();
    }
    event_stream::open(app)
}

async fn legacy(uri: axum::http::Uri) -> Response<Body> {
    let path = uri.path();
    let mut to = format!("/api/v1{}", &path["/api".len().min(path.len())..]);
    if let Some(q) = uri.query() {
        to.push('?');
        to.push_str(q);
    }
    let mut r = reply::detail(StatusCode::TEMPORARY_REDIRECT, "Temporary Redirect");
    if let Ok(v) = HeaderValue::from_str(&to) {
        r.headers_mut().insert(header::LOCATION, v);
    }
    r
}

fn action_reply((status, body): actions::Outcome) -> Response<Body> {
    reply::json(status, &body)
}

/// A JSON body the action could not read: the original's 422 shape.
fn unreadable(e: &axum::extract::rejection::JsonRejection) -> Response<Body> {
    reply::json(
        e.status(),
        &serde_json::json!({"ok": false, "detail": e.body_text()}),
    )
}

async fn send(
    State(app): State<Arc<App>>,
    body: Result<Json<actions::SendBody>, axum::extract::rejection::JsonRejection>,
) -> Response<Body> {
    match body {
        Ok(Json(b)) => {
            blocking(app, move |app| {
                action_reply(actions::send(&app.settings, b))
            })
            .await
        }
        Err(e) => unreadable(&e),
    }
}

async fn answer(
    State(app): State<Arc<App>>,
    body: Result<Json<actions::AnswerBody>, axum::extract::rejection::JsonRejection>,
) -> Response<Body> {
    match body {
        Ok(Json(b)) => {
            blocking(app, move |app| {
                action_reply(actions::answer(&app.settings, b))
            })
            .await
        }
        Err(e) => unreadable(&e),
    }
}

async fn ack(
    State(app): State<Arc<App>>,
    body: Result<Json<actions::AckBody>, axum::extract::rejection::JsonRejection>,
) -> Response<Body> {
    match body {
        Ok(Json(b)) => blocking(app, move |app| action_reply(actions::ack(&app.settings, b))).await,
        Err(e) => unreadable(&e),
    }
}

async fn unlock(
    State(app): State<Arc<App>>,
    body: Result<Json<actions::UnlockBody>, axum::extract::rejection::JsonRejection>,
) -> Response<Body> {
    match body {
        Ok(Json(b)) => {
            blocking(app, move |app| {
                action_reply(actions::unlock(&app.settings, b))
            })
            .await
        }
        Err(e) => unreadable(&e),
    }
}

async fn release(State(app): State<Arc<App>>) -> Response<Body> {
    blocking(app, |app| action_reply(actions::release(&app.settings))).await
}
