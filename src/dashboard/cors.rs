//! `Cors`: which other web origins may call the dashboard's API from a
//! browser (`ALLOWED_ORIGINS`, README, Dashboard). Origins not on the list get no
//! CORS headers at all, so the browser keeps their scripts out.

/// Origins allowed when `ALLOWED_ORIGINS` is unset (the original's list).
pub(crate) const DEFAULT_ORIGINS: [&str; 4] = [
    "http://localhost:8000",
    "http://127.0.0.1:8000",
    "http://localhost:3000",
    "http://127.0.0.1:3000",
];

/// The methods that exist (every route is GET).
pub(super) const ALLOWED_METHODS: &str = "GET, HEAD, OPTIONS";

/// The request headers a cross-origin call may send.
pub(super) const ALLOWED_HEADERS: &str = "Content-Type, Accept, Authorization";

/// The allow-list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Cors {
    origins: Vec<String>,
    any: bool,
    credentials: bool,
}

/// The answer to a preflight (`OPTIONS` with `Access-Control-Request-Method`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Preflight {
    /// Allowed: send these headers with a 200.
    Allowed(Vec<(&'static str, String)>),
    /// Refused, and why (sent with a 400).
    Refused(&'static str),
}

impl Cors {
    /// The list from `ALLOWED_ORIGINS` (comma-separated; surrounding spaces
    /// ignored). A lone `*` allows every origin; `*` mixed with other
    /// origins is a mistake and falls back to the default list, as in the
    /// original. `credentials` says whether browsers may send credentials
    /// (only when authentication is on).
    pub(crate) fn from_env_value(value: Option<&str>, credentials: bool) -> Cors {
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
        Cors {
            origins,
            any,
            credentials,
        }
    }

    /// The headers to add to an answer to a request from `origin`.
    pub(crate) fn headers(&self, origin: Option<&str>) -> Vec<(&'static str, String)> {
        let Some(origin) = origin else {
            return Vec::new();
        };
        if self.any {
            // Browsers refuse credentials with `*`, so none are offered.
            return vec![("Access-Control-Allow-Origin", "*".into())];
        }
        if !self.origins.iter().any(|o| o == origin) {
            return Vec::new();
        }
        let mut h = vec![
            ("Access-Control-Allow-Origin", origin.to_owned()),
            ("Vary", "Origin".into()),
        ];
        if self.credentials {
            h.push(("Access-Control-Allow-Credentials", "true".into()));
        }
        h
    }

    /// Judges a preflight request.
    pub(crate) fn preflight(
        &self,
        origin: Option<&str>,
        method: &str,
        headers: Option<&str>,
    ) -> Preflight {
        let allowed = self.headers(origin);
        if allowed.is_empty() {
            return Preflight::Refused("Disallowed CORS origin");
        }
        if !ALLOWED_METHODS
            .split(", ")
            .any(|m| m.eq_ignore_ascii_case(method.trim()))
        {
            return Preflight::Refused("Disallowed CORS method");
        }
        let wanted = headers.unwrap_or("");
        let ok_header = |h: &str| {
            h.is_empty()
                || ALLOWED_HEADERS
                    .split(", ")
                    .any(|a| a.eq_ignore_ascii_case(h))
        };
        if !wanted.split(',').map(str::trim).all(ok_header) {
            return Preflight::Refused("Disallowed CORS headers");
        }
        let mut h = allowed;
        h.push(("Access-Control-Allow-Methods", ALLOWED_METHODS.into()));
        h.push(("Access-Control-Allow-Headers", ALLOWED_HEADERS.into()));
        h.push(("Access-Control-Max-Age", "600".into()));
        Preflight::Allowed(h)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn origin_header(c: &Cors, origin: &str) -> Option<String> {
        c.headers(Some(origin))
            .into_iter()
            .find(|(k, _)| *k == "Access-Control-Allow-Origin")
            .map(|(_, v)| v)
    }

    #[test]
    fn the_default_list_and_a_custom_one() {
        let c = Cors::from_env_value(None, false);
        assert_eq!(
            origin_header(&c, "http://localhost:3000").as_deref(),
            Some("http://localhost:3000")
        );
        assert_eq!(origin_header(&c, "http://evil.example"), None);
        assert!(c.headers(None).is_empty());
        let c = Cors::from_env_value(Some("https://a.example, https://b.example"), true);
        assert!(origin_header(&c, "https://b.example").is_some());
        assert!(origin_header(&c, "http://localhost:3000").is_none());
        assert!(
            c.headers(Some("https://a.example"))
                .contains(&("Access-Control-Allow-Credentials", "true".into()))
        );
    }

    #[test]
    fn wildcards() {
        let c = Cors::from_env_value(Some("*"), true);
        assert_eq!(
            c.headers(Some("http://x")),
            [("Access-Control-Allow-Origin", "*".to_string())]
        );
        // Mixed with others: the default list instead.
        let c = Cors::from_env_value(Some("*,https://a.example"), false);
        assert!(origin_header(&c, "https://a.example").is_none());
        assert!(origin_header(&c, "http://127.0.0.1:8000").is_some());
    }

    #[test]
    fn preflights() {
        let c = Cors::from_env_value(Some("https://a.example"), false);
        assert!(matches!(
            c.preflight(
                Some("https://a.example"),
                "GET",
                Some("authorization, accept")
            ),
            Preflight::Allowed(_)
        ));
        assert_eq!(
            c.preflight(Some("https://b.example"), "GET", None),
            Preflight::Refused("Disallowed CORS origin")
        );
        assert_eq!(
            c.preflight(Some("https://a.example"), "DELETE", None),
            Preflight::Refused("Disallowed CORS method")
        );
        assert_eq!(
            c.preflight(Some("https://a.example"), "GET", Some("X-Evil")),
            Preflight::Refused("Disallowed CORS headers")
        );
    }
}
