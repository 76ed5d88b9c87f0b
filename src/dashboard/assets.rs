//! The page's files, built into the binary: the dashboard serves these and
//! nothing else from its static routes, so no request path ever reaches
//! the file system.

/// One file of the page.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Asset {
    /// Its `Content-Type`.
    pub content_type: &'static str,
    /// Its content.
    pub body: &'static str,
}

const INDEX: Asset = Asset {
    content_type: "text/html; charset=utf-8",
    body: include_str!("assets/index.html"),
};

/// Every route that serves a file, and the file.
pub(super) const ASSETS: [(&str, Asset); 4] = [
    ("/", INDEX),
    ("/static/index.html", INDEX),
    (
        "/static/dashboard.js",
        Asset {
            content_type: "text/javascript; charset=utf-8",
            body: include_str!("assets/dashboard.js"),
        },
    ),
    (
        "/static/style.css",
        Asset {
            content_type: "text/css; charset=utf-8",
            body: include_str!("assets/style.css"),
        },
    ),
];

/// The file served at `path` (compared exactly, never decoded or joined).
pub(super) fn find(path: &str) -> Option<Asset> {
    ASSETS.iter().find(|(p, _)| *p == path).map(|(_, a)| *a)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_exact_paths_serve_files() {
        assert!(find("/static/dashboard.js").is_some());
        for other in [
            "/static/",
            "/static",
            "/static/../Cargo.toml",
            "/static/%2e%2e/Cargo.toml",
            "/static//dashboard.js",
            "/static/dashboard.js/",
            "/STATIC/dashboard.js",
        ] {
            assert_eq!(find(other), None, "{other}");
        }
    }

    #[test]
    fn the_page_needs_nothing_inline_and_nothing_from_elsewhere() {
        let html = INDEX.body;
        assert!(!html.contains("<script>") && !html.contains("style="));
        assert!(!html.contains("http://") && !html.contains("https://"));
        let js = find("/static/dashboard.js").expect("js").body;
        for sink in [
            "innerHTML",
            "outerHTML",
            "insertAdjacentHTML",
            "document.write",
            "eval(",
        ] {
            assert!(!js.contains(sink), "dashboard.js uses {sink}");
        }
    }
}
