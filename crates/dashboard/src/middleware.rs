//! What every request passes through before its route: the Host check
//! (DNS rebinding, answered before any authentication), the refusal of preflights the CORS list does not allow,
//! the security headers on every answer, and the original's JSON body on
//! a 405. Authentication and the CORS headers come from tower-http (see
//! `app::router` for the order).

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{HeaderName, HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::Response;
use tower_http::set_header::SetResponseHeaderLayer;

use super::app::App;
use super::reply;

/// The content security policy: the dashboard's own files and nothing
/// inline, no framing, no form posting anywhere.
pub(super) const CSP: &str = "default-src 'self'; script-src 'self'; style-src 'self'; \
     img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; \
     form-action 'none'; frame-ancestors 'none'";

/// Sent with every answer: no sniffing, no framing, the CSP, no referrer
/// leaving the page.
pub(super) const SECURITY_HEADERS: [(&str, &str); 5] = [
    ("x-content-type-options", "nosniff"),
    ("x-frame-options", "DENY"),
    ("content-security-policy", CSP),
    ("x-xss-protection", "1; mode=block"),
    ("referrer-policy", "no-referrer"),
];

/// tower-http layers that set `SECURITY_HEADERS` on every answer.
pub(super) fn security_headers() -> Vec<SetResponseHeaderLayer<HeaderValue>> {
    SECURITY_HEADERS
        .iter()
        .map(|(name, value)| {
            SetResponseHeaderLayer::overriding(
                HeaderName::from_static(name),
                HeaderValue::from_static(value),
            )
        })
        .collect()
}

/// Refuses a request whose `Host` is not one the dashboard answers to.
pub(super) async fn host_check(State(app): State<Arc<App>>, req: Request, next: Next) -> Response {
    let allowed = app.settings.hosts.allows(
        req.headers()
            .get(header::HOST)
            .and_then(|v| v.to_str().ok()),
    );
    if !allowed {
        return reply::detail(
            StatusCode::FORBIDDEN,
            "Host not allowed: open the dashboard at the address it was started on, or add \
             this name to dashboard.allowed_hosts in your own config file (or \
             SWARM_DASHBOARD_ALLOWED_HOSTS)",
        );
    }
    next.run(req).await
}

/// Answers a CORS preflight that the origin list does not allow with the
/// original's 400 (the CORS layer would answer 200 without headers).
pub(super) async fn preflight_check(
    State(app): State<Arc<App>>,
    req: Request,
    next: Next,
) -> Response {
    if let Some(why) = preflight_refusal(&app, &req) {
        return reply::detail(StatusCode::BAD_REQUEST, why);
    }
    next.run(req).await
}

fn preflight_refusal(app: &App, req: &Request) -> Option<&'static str> {
    if req.method() != Method::OPTIONS {
        return None;
    }
    let method = req.headers().get(header::ACCESS_CONTROL_REQUEST_METHOD)?;
    let text = |name: HeaderName| req.headers().get(name).and_then(|v| v.to_str().ok());
    app.settings
        .cors
        .refusal(
            text(header::ORIGIN),
            method.to_str().unwrap_or(""),
            text(header::ACCESS_CONTROL_REQUEST_HEADERS),
        )
        .map(|r| r.detail())
}

/// Gives a 405 the original's JSON body, with its `Allow` list spelled
/// `GET, HEAD`. It wraps the whole router: axum sets `Allow` outside the
/// layers of a route.
pub(super) fn method_not_allowed(response: Response) -> Response {
    if response.status() != StatusCode::METHOD_NOT_ALLOWED {
        return response;
    }
    let (mut parts, _) = response.into_parts();
    let allow = parts
        .headers
        .get(header::ALLOW)
        .and_then(|v| v.to_str().ok())
        .map(|v| {
            v.split(',')
                .map(str::trim)
                .filter(|m| !m.is_empty())
                .collect::<Vec<_>>()
                .join(", ")
        })
        .unwrap_or_default();
    let json = reply::detail(StatusCode::METHOD_NOT_ALLOWED, "Method Not Allowed");
    let (json_parts, body) = json.into_parts();
    for (name, value) in &json_parts.headers {
        parts.headers.insert(name, value.clone());
    }
    parts.headers.remove(header::CONTENT_LENGTH);
    if let Ok(v) = HeaderValue::from_str(&allow) {
        parts.headers.insert(header::ALLOW, v);
    }
    Response::from_parts(parts, body)
}
