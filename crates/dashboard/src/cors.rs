//! `Cors`: which other web origins may read the dashboard's API from a
//! browser (`ALLOWED_ORIGINS`). tower-http's CORS layer sends
//! the headers; this module decides the list and refuses preflights the
//! list does not allow (with the original's 400). Only reading is ever
//! allowed across origins: the methods offered are GET and HEAD, and the
//! page's actions check their origin besides (`action_guard`).

use axum::http::{HeaderName, HeaderValue, Method, header};
use std::time::Duration;
use tower_http::cors::{AllowOrigin, CorsLayer};

/// Origins allowed when `ALLOWED_ORIGINS` is unset (the original's list).
pub(crate) const DEFAULT_ORIGINS: [&str; 4] = [
    "http://localhost:8000",
    "http://127.0.0.1:8000",
    "http://localhost:3000",
    "http://127.0.0.1:3000",
];

/// The methods another origin may use.
const ALLOWED_METHODS: [Method; 3] = [Method::GET, Method::HEAD, Method::OPTIONS];

/// The request headers a cross-origin call may send.
const ALLOWED_HEADERS: [HeaderName; 3] =
    [header::CONTENT_TYPE, header::ACCEPT, header::AUTHORIZATION];

/// The allow-list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cors {
    origins: Vec<String>,
    any: bool,
    credentials: bool,
}

/// Why a preflight is refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// The origin is not listed.
    Origin,
    /// A method other than GET, HEAD, OPTIONS.
    Method,
    /// A request header not offered.
    Headers,
}

impl Refusal {
    /// The text of the 400 answer.
    pub(crate) fn detail(self) -> &'static str {
        match self {
            Refusal::Origin => "Disallowed CORS origin",
            Refusal::Method => "Disallowed CORS method",
            Refusal::Headers => "Disallowed CORS headers",
        }
    }
}

impl Cors {
    /// The list from `ALLOWED_ORIGINS` (comma-separated; surrounding spaces
    /// ignored). A lone `*` allows every origin; `*` mixed with other
    /// origins is a mistake and falls back to the default list, as in the
    /// original. `credentials` says whether browsers may send credentials
    /// (only when authentication is on, and never with `*`).
    pub fn from_env_value(value: Option<&str>, credentials: bool) -> Cors {
        let mut origins: Vec<String> = match value {
            Some(v) => v
                .split(',')
                .map(str::trim)
                .filter(|o| !o.is_empty())
                .map(str::to_owned)
                .collect(),
            None => Vec::new(),
        };
        if value.is_none() || (origins.len() > 1 && origins.iter().any(|o| o.contains('*'))) {
            origins = DEFAULT_ORIGINS.iter().map(|o| o.to_string()).collect();
        }
        let any = origins.len() == 1 && origins[0] == "*";
        // A value a header cannot carry can never match an Origin header.
        origins.retain(|o| !o.contains('*') && HeaderValue::from_str(o).is_ok());
        Cors {
            origins,
            any,
            credentials: credentials && !any,
        }
    }

    /// True when a page from `origin` may read answers.
    pub(crate) fn allows(&self, origin: &str) -> bool {
        self.any || self.origins.iter().any(|o| o == origin)
    }

    /// Judges a preflight request: `None` when the CORS layer may answer
    /// it.
    pub(crate) fn refusal(
        &self,
        origin: Option<&str>,
        method: &str,
        headers: Option<&str>,
    ) -> Option<Refusal> {
        if !origin.is_some_and(|o| self.allows(o)) {
            return Some(Refusal::Origin);
        }
        if !ALLOWED_METHODS
            .iter()
            .any(|m| m.as_str().eq_ignore_ascii_case(method.trim()))
        {
            return Some(Refusal::Method);
        }
        let ok_header = |h: &str| {
            h.is_empty()
                || ALLOWED_HEADERS
                    .iter()
                    .any(|a| a.as_str().eq_ignore_ascii_case(h))
        };
        if !headers
            .unwrap_or("")
            .split(',')
            .map(str::trim)
            .all(ok_header)
        {
            return Some(Refusal::Headers);
        }
        None
    }

    /// The tower-http layer that sends the headers.
    pub(super) fn layer(&self) -> CorsLayer {
        let origin = if self.any {
            AllowOrigin::any()
        } else {
            AllowOrigin::list(
                self.origins
                    .iter()
                    .filter_map(|o| HeaderValue::from_str(o).ok()),
            )
        };
        let layer = CorsLayer::new()
            .allow_origin(origin)
            .allow_methods(ALLOWED_METHODS)
            .allow_headers(ALLOWED_HEADERS)
            .max_age(Duration::from_secs(600));
        if self.any {
            layer
        } else {
            layer
                .vary([header::ORIGIN])
                .allow_credentials(self.credentials)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_list_and_a_custom_one() {
        let c = Cors::from_env_value(None, false);
        assert!(c.allows("http://localhost:3000"));
        assert!(!c.allows("http://evil.example"));
        let c = Cors::from_env_value(Some("https://a.example, https://b.example"), true);
        assert!(c.allows("https://b.example"));
        assert!(!c.allows("http://localhost:3000"));
        assert!(c.credentials);
    }

    #[test]
    fn wildcards() {
        let c = Cors::from_env_value(Some("*"), true);
        assert!(c.allows("http://x"));
        assert!(!c.credentials, "browsers refuse credentials with *");
        // Mixed with others: the default list instead.
        let c = Cors::from_env_value(Some("*,https://a.example"), false);
        assert!(!c.allows("https://a.example"));
        assert!(c.allows("http://127.0.0.1:8000"));
    }

    #[test]
    fn preflights() {
        let c = Cors::from_env_value(Some("https://a.example"), false);
        assert_eq!(
            c.refusal(
                Some("https://a.example"),
                "GET",
                Some("authorization, accept")
            ),
            None
        );
        assert_eq!(
            c.refusal(Some("https://b.example"), "GET", None),
            Some(Refusal::Origin)
        );
        assert_eq!(
            c.refusal(Some("https://a.example"), "POST", None),
            Some(Refusal::Method)
        );
        assert_eq!(
            c.refusal(Some("https://a.example"), "GET", Some("X-Swarm-Token")),
            Some(Refusal::Headers)
        );
    }
}
