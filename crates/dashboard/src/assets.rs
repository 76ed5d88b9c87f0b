//! The page's files, built into the binary: the dashboard serves these and
//! nothing else from its static routes, so no request path ever reaches
//! the file system. The page carries this run's action token in a `<meta>`
//! element (no inline script: the CSP forbids it).

/// One file of the page.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Asset {
    /// Its `Content-Type`.
    pub content_type: &'static str,
    /// Its content.
    pub body: &'static str,
}

/// `/` and `/static/index.html`.
pub(super) const INDEX: Asset = Asset {
    content_type: "text/html; charset=utf-8",
    body: include_str!("assets/index.html"),
};

/// `/static/dashboard.js`.
pub(super) const SCRIPT: Asset = Asset {
    content_type: "text/javascript; charset=utf-8",
    body: include_str!("assets/dashboard.js"),
};

/// `/static/style.css`.
pub(super) const STYLE: Asset = Asset {
    content_type: "text/css; charset=utf-8",
    body: include_str!("assets/style.css"),
};

/// Where the page's token goes.
const TOKEN_SLOT: &str = "content=\"SWARM-TOKEN\"";

/// Where the operator's id goes.
const PERSON_SLOT: &str = "content=\"SWARM-OPERATOR\"";

/// The page with this run's token and the operator's id (both made of
/// letters, digits, `-` and `_`, so nothing needs escaping).
pub(super) fn page(token: &str, person: &str) -> String {
    let safe = |s: &str| {
        s.chars()
            .filter(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
            .collect::<String>()
    };
    INDEX
        .body
        .replacen(TOKEN_SLOT, &format!("content=\"{}\"", safe(token)), 1)
        .replacen(PERSON_SLOT, &format!("content=\"{}\"", safe(person)), 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_page_needs_nothing_inline_and_nothing_from_elsewhere() {
        let html = INDEX.body;
        assert!(!html.contains("<script>") && !html.contains("style="));
        assert!(!html.contains("http://") && !html.contains("https://"));
        for sink in [
            "innerHTML",
            "outerHTML",
            "insertAdjacentHTML",
            "document.write",
            "eval(",
        ] {
            assert!(!SCRIPT.body.contains(sink), "dashboard.js uses {sink}");
        }
    }

    #[test]
    fn the_page_carries_the_token_and_the_person_id() {
        let html = page("abc123", "operator\"><x");
        assert!(html.contains("<meta name=\"swarm-token\" content=\"abc123\">"));
        assert!(html.contains("<meta name=\"swarm-operator\" content=\"operatorx\">"));
        assert!(!html.contains("SWARM-TOKEN") && !html.contains("SWARM-OPERATOR"));
    }
}
