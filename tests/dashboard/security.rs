//! What the dashboard protects: authentication on every path, CORS only
//! for listed origins, security headers with no inline script allowed,
//! no file outside the page reachable, agent text never served as markup.

use serde_json::json;

use crate::harness::Project;

use crate::harness::dashboard::Dashboard;

use super::populated_project;

/// `Authorization: Basic ...` for `user:password`.
fn basic(user_password: &str) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut s = String::from("Authorization: Basic ");
    for chunk in user_password.as_bytes().chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, &b)| n | u32::from(b) << (16 - 8 * i));
        for i in 0..4 {
            s.push(if i <= chunk.len() {
                ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char
            } else {
                '='
            });
        }
    }
    s.push_str("\r\n");
    s
}

const EVERY_PATH: [&str; 14] = [
    "/",
    "/static/index.html",
    "/static/dashboard.js",
    "/static/style.css",
    "/health",
    "/api/v1/agents",
    "/api/v1/locks",
    "/api/v1/messages?limit=1",
    "/api/v1/stats",
    "/api/v1/acks",
    "/api/v1/attention",
    "/api/v1/feed?limit=5",
    "/api/v1/agents/agent-0/screen",
    "/api/agents",
];

#[test]
fn with_credentials_set_every_path_needs_them() {
    let project = populated_project();
    let dash = Dashboard::with(
        &project,
        &[
            ("DASHBOARD_USERNAME", "alice"),
            ("DASHBOARD_PASSWORD", "s3cr:t pw"),
        ],
        &[],
    );
    let right = basic("alice:s3cr:t pw");
    for path in EVERY_PATH.iter().chain(&["/api/v1/stream", "/nope"]) {
        let reply = dash.get(path);
        assert_eq!(reply.status, 401, "{path} without credentials");
        assert_eq!(reply.json(), json!({"detail": "Authentication required"}));
        assert!(
            reply
                .header("www-authenticate")
                .is_some_and(|v| v.starts_with("Basic ")),
            "{path}"
        );
        for wrong in ["alice:s3cr", "bob:s3cr:t pw", "alice:", ""] {
            let reply = dash.get_with(path, &basic(wrong));
            assert_eq!(reply.status, 401, "{path} as {wrong:?}");
            assert_eq!(reply.json(), json!({"detail": "Invalid credentials"}));
        }
        let reply = dash.get_with(path, "Authorization: Basic !!!\r\n");
        assert_eq!(reply.status, 401, "{path} with garbage");
    }
    for path in EVERY_PATH {
        let reply = dash.get_with(path, &right);
        let want = if path == "/api/agents" { 307 } else { 200 };
        assert_eq!(reply.status, want, "{path} with the right credentials");
    }
    assert_eq!(dash.get_with("/nope", &right).status, 404);
    // Actions too: even with the page's origin and token, no credentials
    // is no answer.
    let page = dash.get_with("/", &right).text();
    let token = page
        .split("name=\"swarm-token\" content=\"")
        .nth(1)
        .and_then(|t| t.split('"').next())
        .expect("the page's token");
    let origin = format!("Origin: http://{}\r\nX-Swarm-Token: {token}\r\n", dash.addr);
    for path in ["/api/v1/actions/answer", "/api/v1/actions/send"] {
        let reply = dash.post(path, &origin, &json!({"agent": "agent-0", "option": "1"}));
        assert_eq!(reply.status, 401, "{path}: {}", reply.text());
        assert_eq!(reply.json(), json!({"detail": "Authentication required"}));
    }
    let mut events = dash.events(&right);
    assert_eq!(events.status, 200);
    let (hello, _) = events.until("connected", |_| true);
    assert_eq!(hello["status"], json!("connected"));
}

#[test]
fn without_both_variables_there_is_no_authentication_and_a_warning() {
    let project = Project::new();
    let dash = Dashboard::with(&project, &[("DASHBOARD_USERNAME", "alice")], &[]);
    assert_eq!(dash.get("/api/v1/agents").status, 200);
    let (status, _, stderr) = dash.stop();
    assert!(status.success());
    assert!(stderr.contains("without a password"), "stderr: {stderr}");
}

#[test]
fn cors_headers_only_for_listed_origins() {
    let project = Project::new();
    let dash = Dashboard::with(
        &project,
        &[(
            "ALLOWED_ORIGINS",
            "https://tools.example, http://localhost:3000",
        )],
        &[],
    );
    let reply = dash.get_with("/api/v1/stats", "Origin: https://tools.example\r\n");
    assert_eq!(
        reply.header("access-control-allow-origin"),
        Some("https://tools.example")
    );
    assert!(
        reply
            .header("vary")
            .is_some_and(|v| v.eq_ignore_ascii_case("origin")),
        "{:?}",
        reply.header("vary")
    );
    // No authentication: no credentials offered.
    assert_eq!(reply.header("access-control-allow-credentials"), None);
    let reply = dash.get_with("/api/v1/stats", "Origin: https://evil.example\r\n");
    assert_eq!(reply.status, 200);
    assert_eq!(reply.header("access-control-allow-origin"), None);
    let preflight = |origin: &str, method: &str| {
        dash.send(&format!(
            "OPTIONS /api/v1/agents HTTP/1.1\r\n{}Origin: {origin}\r\n\
             Access-Control-Request-Method: {method}\r\n\
             Access-Control-Request-Headers: authorization\r\n\r\n",
            dash.host()
        ))
    };
    let reply = preflight("http://localhost:3000", "GET");
    assert_eq!(reply.status, 200);
    let methods: Vec<String> = reply
        .header("access-control-allow-methods")
        .unwrap_or_default()
        .split(',')
        .map(|m| m.trim().to_owned())
        .collect();
    assert_eq!(methods, ["GET", "HEAD", "OPTIONS"]);
    assert_eq!(preflight("https://evil.example", "GET").status, 400);
    assert_eq!(preflight("http://localhost:3000", "DELETE").status, 400);
}

#[test]
fn every_answer_carries_the_security_headers() {
    let project = Project::new();
    let dash = Dashboard::start(&project);
    for path in ["/", "/static/dashboard.js", "/api/v1/agents", "/nope"] {
        let reply = dash.get(path);
        assert_eq!(
            reply.header("x-content-type-options"),
            Some("nosniff"),
            "{path}"
        );
        assert_eq!(reply.header("x-frame-options"), Some("DENY"), "{path}");
        let csp = reply.header("content-security-policy").expect("a CSP");
        assert!(csp.contains("script-src 'self'"), "{csp}");
        assert!(
            !csp.contains("unsafe-inline") && !csp.contains("unsafe-eval"),
            "{csp}"
        );
    }
    let events = dash.events("");
    let csp = events.header("content-security-policy").expect("a CSP");
    assert!(!csp.contains("unsafe-inline"));
    assert_eq!(
        events.header("content-type"),
        Some("text/event-stream; charset=utf-8")
    );
    assert_eq!(events.header("cache-control"), Some("no-cache"));
    assert_eq!(events.header("x-accel-buffering"), Some("no"));
}

#[test]
fn the_page_is_served_and_nothing_else_is() {
    let project = Project::new();
    project.write("secret.txt", "TOP SECRET");
    let dash = Dashboard::start(&project);
    let page = dash.get("/");
    assert_eq!(page.status, 200);
    assert_eq!(
        page.header("content-type"),
        Some("text/html; charset=utf-8")
    );
    let html = page.text();
    assert!(html.contains("<script src=\"/static/dashboard.js\" defer></script>"));
    // Nothing inline (the CSP would block it) and nothing from elsewhere.
    assert!(!html.contains("<script>") && !html.contains(" style=") && !html.contains("://"));
    assert_eq!(
        dash.get("/static/style.css").header("content-type"),
        Some("text/css; charset=utf-8")
    );
    for path in [
        "/static/../secret.txt",
        "/static/%2e%2e/secret.txt",
        "/static/%2E%2E%2Fsecret.txt",
        "/static/..%2fsecret.txt",
        "/static/..%5csecret.txt",
        "/../secret.txt",
        "/..%2f..%2f..%2fetc%2fpasswd",
        "/static/../../../../etc/passwd",
        "/static//etc/passwd",
        "/secret.txt",
        "/static/secret.txt",
        "/static/dashboard.js%00.txt",
        "/static/./dashboard.js",
    ] {
        let reply = dash.send(&format!("GET {path} HTTP/1.1\r\n{}\r\n", dash.host()));
        assert_eq!(reply.status, 404, "{path}");
        assert_eq!(reply.json(), json!({"detail": "Not Found"}), "{path}");
        let text = reply.text();
        assert!(
            !text.contains("SECRET") && !text.contains("root:"),
            "{path}"
        );
    }
}

#[test]
fn agent_text_never_reaches_the_page_as_markup() {
    let project = populated_project();
    let dash = Dashboard::start(&project);
    for path in ["/api/v1/messages", "/api/v1/locks", "/api/v1/stats"] {
        let reply = dash.get(path);
        // Escaped in the JSON itself: no `<`, `>` or `&` byte at all.
        let raw = reply.text();
        assert!(
            !raw.contains('<') && !raw.contains('>') && !raw.contains('&'),
            "{path}: {raw}"
        );
    }
    // ...and the same text once parsed.
    let messages = dash.get("/api/v1/messages").json();
    assert_eq!(
        messages["messages"][1]["content"],
        json!("<script>alert('x')</script> & <img src=x onerror=alert(1)>")
    );
    let locks = dash.get("/api/v1/locks").json();
    assert_eq!(locks["locks"][1]["reason"], json!("editing <a>"));
    // The page puts text in with textContent only, never as HTML.
    let js = dash.get("/static/dashboard.js").text();
    assert!(js.contains("textContent"));
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
