//! `AccessKey`: the secret that lets in the person who started the
//! dashboard, and nobody else. Loopback TCP is open to every account of
//! the machine (the tmux socket is not), so without a password every page,
//! API path and the event stream need this run's key: in the URL the
//! dashboard printed (`?token=`), which a browser trades for an HttpOnly,
//! SameSite=Strict cookie named after the port, or as `Authorization:
//! Bearer` from a script. Only a bare health probe is answered without it,
//! and it tells nothing. With `DASHBOARD_USERNAME`/`DASHBOARD_PASSWORD`
//! set, the password guards the dashboard instead (`basic_auth`).

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::Response;
use serde_json::json;

use super::action_guard::SessionToken;
use super::app::App;
use super::reply;

/// The query parameter of the printed URL that carries the key.
pub(crate) const QUERY_PARAM: &str = "token";

/// The path answered without the key, with nothing but that the server
/// runs.
const HEALTH: &str = "/health";

/// One run's secret: 244 random bits, as lower-case hex.
#[derive(Clone)]
pub struct AccessKey(SessionToken);

impl std::fmt::Debug for AccessKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("AccessKey(..)")
    }
}

impl AccessKey {
    /// A fresh key from the system's random generator.
    pub fn random() -> AccessKey {
        AccessKey(SessionToken::new())
    }

    /// Its text, for the printed URL and `.swarm/dashboard.url` only.
    pub fn as_str(&self) -> &str {
        self.0.as_str()
    }

    /// True when `given` is this key (compared in constant time).
    fn matches(&self, given: &str) -> bool {
        self.0.matches(given)
    }
}

/// The name of the cookie of a dashboard on `port`. Browsers send cookies
/// to every port of a host, so the port in the name keeps two dashboards
/// of one machine from overwriting each other's.
pub(crate) fn cookie_name(port: u16) -> String {
    format!("swarm-dashboard-{port}")
}

/// How a request showed the key, if it did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Shown {
    /// In the query of the URL: the browser gets the cookie.
    Query,
    /// In the cookie, or as a bearer token.
    Kept,
}

/// Lets a request through only with this run's key (nothing to check when
/// a password guards the dashboard instead).
pub(super) async fn check(State(app): State<Arc<App>>, req: Request, next: Next) -> Response {
    if app.settings.auth.is_some() {
        return next.run(req).await;
    }
    let name = cookie_name(app.port);
    match shown(&app.settings.key, &name, &req) {
        Some(Shown::Kept) => next.run(req).await,
        Some(Shown::Query) => {
            let mut response = next.run(req).await;
            let cookie = format!(
                "{name}={}; Path=/; HttpOnly; SameSite=Strict",
                app.settings.key.as_str()
            );
            if let Ok(v) = HeaderValue::from_str(&cookie) {
                response.headers_mut().append(header::SET_COOKIE, v);
            }
            response
        }
        None if req.uri().path() == HEALTH => {
            reply::json(StatusCode::OK, &json!({"status": "healthy"}))
        }
        None => {
            let mut refusal = reply::detail(
                StatusCode::UNAUTHORIZED,
                "Not authorized: open the URL `swarm dashboard` printed (also in \
                 .swarm/dashboard.url)",
            );
            refusal.headers_mut().insert(
                header::WWW_AUTHENTICATE,
                HeaderValue::from_static("Bearer realm=\"swarm dashboard\""),
            );
            refusal
        }
    }
}

/// Where `req` showed `key`, if anywhere: the query, the cookie `name`, or
/// a bearer token.
fn shown(key: &AccessKey, name: &str, req: &Request) -> Option<Shown> {
    let in_query = req.uri().query().is_some_and(|q| {
        q.split('&')
            .filter_map(|pair| pair.split_once('='))
            .any(|(k, v)| k == QUERY_PARAM && key.matches(v))
    });
    if in_query {
        return Some(Shown::Query);
    }
    let headers = req.headers();
    let in_cookie = headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .any(|(k, v)| k == name && key.matches(v));
    let as_bearer = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().split_once(' '))
        .is_some_and(|(scheme, v)| scheme.eq_ignore_ascii_case("bearer") && key.matches(v.trim()));
    (in_cookie || as_bearer).then_some(Shown::Kept)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(uri: &str, headers: &[(&str, &str)]) -> Request {
        let mut b = Request::builder().uri(uri);
        for (n, v) in headers {
            b = b.header(*n, *v);
        }
        b.body(axum::body::Body::empty()).expect("request")
    }

    #[test]
    fn the_key_counts_in_the_query_the_right_cookie_or_as_a_bearer() {
        let key = AccessKey::random();
        let k = key.as_str();
        let name = cookie_name(8080);
        let seen = |uri: &str, headers: &[(&str, &str)]| shown(&key, &name, &request(uri, headers));
        assert_eq!(seen(&format!("/?a=1&token={k}"), &[]), Some(Shown::Query));
        let cookie = format!("x=1; swarm-dashboard-8080={k}");
        assert_eq!(seen("/", &[("cookie", &cookie)]), Some(Shown::Kept));
        let bearer = format!("Bearer {k}");
        assert_eq!(seen("/", &[("authorization", &bearer)]), Some(Shown::Kept));
        let other_port = format!("swarm-dashboard-8081={k}");
        let short = format!("swarm-dashboard-8080={}", &k[1..]);
        let basic = format!("Basic {k}");
        for (uri, headers) in [
            ("/", vec![]),
            ("/?token=", vec![]),
            ("/?tokens=x", vec![]),
            ("/", vec![("cookie", other_port.as_str())]),
            ("/", vec![("cookie", short.as_str())]),
            ("/", vec![("authorization", basic.as_str())]),
        ] {
            assert_eq!(seen(uri, &headers), None, "{uri} {headers:?}");
        }
        assert_ne!(k, AccessKey::random().as_str());
        assert_eq!(format!("{key:?}"), "AccessKey(..)");
    }
}
