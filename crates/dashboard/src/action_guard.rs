//! What a request that changes something must show besides its Host and
//! credentials: that it comes from the dashboard's own page. Its `Origin`
//! must be the dashboard itself (a browser always sends it with a POST and
//! a page cannot forge it), and it must carry the token this run of the
//! dashboard put into its page (`X-Swarm-Token`), which no other site can
//! read. Either check alone stops a cross-site request; both are required.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{StatusCode, header};
use axum::middleware::Next;
use axum::response::Response;

use super::app::App;
use super::reply;

/// The header that carries the page's token.
pub(crate) const TOKEN_HEADER: &str = "x-swarm-token";

/// A random token for one run of the dashboard, put into the page it
/// serves and required on every action.
#[derive(Clone)]
pub(crate) struct SessionToken(String);

impl std::fmt::Debug for SessionToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SessionToken(..)")
    }
}

impl SessionToken {
    /// A fresh token: 244 random bits from the system's generator.
    pub(crate) fn new() -> SessionToken {
        SessionToken(format!(
            "{}{}",
            uuid::Uuid::new_v4().simple(),
            uuid::Uuid::new_v4().simple()
        ))
    }

    /// Its text, for the page.
    pub(crate) fn as_str(&self) -> &str {
        &self.0
    }

    /// True when `given` is this token, comparing every byte whatever the
    /// first difference.
    pub(crate) fn matches(&self, given: &str) -> bool {
        let (a, b) = (self.0.as_bytes(), given.as_bytes());
        if a.len() != b.len() {
            return false;
        }
        let mut diff = 0u8;
        for (x, y) in a.iter().zip(b) {
            diff |= std::hint::black_box(x ^ y);
        }
        diff == 0
    }
}

/// True when `origin` is the origin of a page served from `host` (which
/// the Host check has already allowed).
fn same_origin(origin: Option<&str>, host: Option<&str>) -> bool {
    let (Some(origin), Some(host)) = (origin, host) else {
        return false;
    };
    ["http://", "https://"].iter().any(|scheme| {
        origin
            .strip_prefix(scheme)
            .is_some_and(|rest| rest.eq_ignore_ascii_case(host))
    })
}

/// Lets an action through only from the dashboard's own page.
pub(super) async fn check(State(app): State<Arc<App>>, req: Request, next: Next) -> Response {
    if let Some(refusal) = refusal(&app, &req) {
        return reply::detail(StatusCode::FORBIDDEN, refusal);
    }
    next.run(req).await
}

/// Why `req` may not act, if it may not.
fn refusal(app: &App, req: &Request) -> Option<&'static str> {
    let text = |name: &str| req.headers().get(name).and_then(|v| v.to_str().ok());
    if !same_origin(text(header::ORIGIN.as_str()), text(header::HOST.as_str())) {
        return Some(
            "Cross-origin request refused: actions can only be taken from the dashboard's own page",
        );
    }
    if !text(TOKEN_HEADER).is_some_and(|t| app.token.matches(t)) {
        return Some("Missing or wrong page token: reload the dashboard page");
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_dashboards_own_origin() {
        let host = Some("127.0.0.1:8080");
        assert!(same_origin(Some("http://127.0.0.1:8080"), host));
        for other in [
            None,
            Some("null"),
            Some("http://127.0.0.1:8081"),
            Some("http://evil.example"),
            Some("http://127.0.0.1:8080.evil.example"),
        ] {
            assert!(!same_origin(other, host), "{other:?}");
        }
        assert!(!same_origin(Some("http://127.0.0.1:8080"), None));
    }

    #[test]
    fn tokens_are_random_and_compared_whole() {
        let t = SessionToken::new();
        assert_eq!(t.as_str().len(), 64);
        assert!(t.matches(t.as_str()));
        assert!(!t.matches(&t.as_str()[..63]));
        assert!(!t.matches(""));
        assert_ne!(t.as_str(), SessionToken::new().as_str());
    }
}
