//! Who may use the dashboard: only the person who started it. Every page,
//! API path and the event stream need the secret of the URL it printed
//! (kept in `.swarm/dashboard.url`, 0600), which a browser trades for a
//! cookie; another local account, talking to the same loopback port,
//! gets nothing and cannot act.

use std::os::unix::fs::PermissionsExt;

use serde_json::json;

use crate::harness::{Project, other_account};

use crate::harness::dashboard::Dashboard;

use super::populated_project;

/// What `curl ARGS...` run as `nobody` got: the status code and the body.
fn as_nobody(args: &[&str]) -> (u16, String) {
    let out = other_account::as_other("curl")
        .args(["--silent", "--max-time", "10"])
        .args(["--write-out", "\n%{http_code}"])
        .args(args)
        .output()
        .expect("runuser -u nobody -- curl");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let (body, code) = text.rsplit_once('\n').unwrap_or(("", &text));
    let code = code
        .trim()
        .parse()
        .unwrap_or_else(|_| panic!("curl printed no status: {text:?} {out:?}"));
    (code, body.to_owned())
}

#[test]
fn another_local_account_gets_nothing_and_cannot_act() {
    if !other_account::can_switch("another_local_account_gets_nothing_and_cannot_act") {
        return;
    }
    let project = populated_project();
    let dash = Dashboard::start(&project);
    let base = format!("http://{}", dash.addr);
    for path in [
        "/",
        "/static/index.html",
        "/api/v1/agents",
        "/api/v1/messages",
        "/api/v1/agents/agent-0",
        "/api/v1/agents/agent-0/screen",
        "/api/v1/attention",
        "/api/v1/stream",
        "/api/agents",
        "/api/v1/agents?token=guess",
    ] {
        let (status, body) = as_nobody(&[&format!("{base}{path}")]);
        assert!(
            status == 401 || status == 403,
            "nobody got {status} for {path}: {body}"
        );
        assert!(
            !body.contains("agent-0")
                && !body.contains("schema v2")
                && !body.contains("swarm-token"),
            "nobody read {path}: {body}"
        );
    }
    // What nobody would send as the operator: the page's own origin, and
    // whatever token the page handed out (none, now), or a guess.
    let token = dash
        .page_token_as_anyone()
        .unwrap_or_else(|| "guess".into());
    for (path, body) in [
        (
            "/api/v1/actions/send",
            json!({"to": "agent-1", "type": "INFO", "content": "sent by nobody"}),
        ),
        (
            "/api/v1/actions/answer",
            json!({"agent": "agent-0", "option": "1"}),
        ),
        ("/api/v1/actions/unlock", json!({"path": "src/a.py"})),
    ] {
        let (status, reply) = as_nobody(&[
            "--request",
            "POST",
            "--header",
            "Content-Type: application/json",
            "--header",
            &format!("Origin: {base}"),
            "--header",
            &format!("X-Swarm-Token: {token}"),
            "--data",
            &body.to_string(),
            &format!("{base}{path}"),
        ]);
        assert!(
            status == 401 || status == 403,
            "nobody got {status} for {path}: {reply}"
        );
    }
    let log = project.read("agent_messages.log");
    assert!(
        !log.contains("sent by nobody"),
        "nobody sent a message: {log}"
    );
    assert_eq!(
        dash.get("/api/v1/locks").json()["count"],
        2,
        "no lock released"
    );
    assert!(!project.file(".swarm/audit.log").exists());
    // The health probe stays open, and tells nothing.
    let (status, body) = as_nobody(&[&format!("{base}/health")]);
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&body).expect("JSON"),
        json!({"status": "healthy"})
    );
    // The secret is kept where only its owner can read it.
    let file = project.file(".swarm/dashboard.url");
    let mode = std::fs::metadata(&file)
        .expect("dashboard.url")
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600, "{}", file.display());
    let out = other_account::as_other("cat")
        .arg(&file)
        .output()
        .expect("runuser cat");
    assert!(!out.status.success(), "nobody read {}", file.display());
}

#[test]
fn the_printed_url_lets_its_person_in_and_a_cookie_keeps_them_in() {
    let project = populated_project();
    let dash = Dashboard::start(&project);
    let printed = dash.url();
    let key = dash.key();
    assert!(key.len() >= 32, "a secret worth the name: {printed}");
    // The same URL, kept for scripts and for a later look.
    assert_eq!(project.read(".swarm/dashboard.url").trim(), printed);
    // Without it: nothing, on every path but the bare health probe.
    for path in [
        "/",
        "/static/dashboard.js",
        "/api/v1/agents",
        "/api/v1/stream",
        "/nope",
    ] {
        let reply = dash.get_anonymous(path);
        assert_eq!(reply.status, 401, "{path}: {}", reply.text());
        assert!(!reply.text().contains("swarm-token"), "{path}");
    }
    for wrong in ["", "x", &key[..key.len() - 1], &format!("{key}x")] {
        let reply = dash.get_anonymous(&format!("/?token={wrong}"));
        assert_eq!(reply.status, 401, "token {wrong:?}");
        let reply = dash.get_anonymous_with(
            "/api/v1/agents",
            &format!("Cookie: {}={wrong}\r\n", dash.cookie_name()),
        );
        assert_eq!(reply.status, 401, "cookie {wrong:?}");
    }
    // A cookie of another dashboard (another port) is not this one's.
    let reply = dash.get_anonymous_with(
        "/api/v1/agents",
        &format!(
            "Cookie: swarm-dashboard-{}={key}\r\n",
            dash.addr.port().wrapping_add(1)
        ),
    );
    assert_eq!(reply.status, 401);
    // With it: the page, and a cookie for the rest that scripts cannot read.
    let page = dash.get_anonymous(&format!("/?token={key}"));
    assert_eq!(page.status, 200, "{}", page.text());
    assert!(page.text().contains("name=\"swarm-token\""));
    let cookie = page.header("set-cookie").expect("a cookie").to_owned();
    assert!(
        cookie.starts_with(&format!("{}={key};", dash.cookie_name())),
        "{cookie}"
    );
    for part in ["HttpOnly", "SameSite=Strict", "Path=/"] {
        assert!(cookie.contains(part), "{part} in {cookie}");
    }
    let with_cookie = format!("Cookie: other=1; {}={key}\r\n", dash.cookie_name());
    let reply = dash.get_anonymous_with("/api/v1/agents", &with_cookie);
    assert_eq!(reply.status, 200);
    assert_eq!(reply.json()["agents"][0]["id"], "agent-0");
    // A script may send the secret as a bearer token instead.
    let reply =
        dash.get_anonymous_with("/api/v1/stats", &format!("Authorization: Bearer {key}\r\n"));
    assert_eq!(reply.status, 200);
    // The page can act with its cookie, as the operator.
    let reply = dash.act(
        "/api/v1/actions/send",
        &json!({"to": "agent-1", "type": "INFO", "content": "from the page"}),
    );
    assert_eq!(reply.status, 200, "{}", reply.text());
    // The secret stops being valid with the run: the file goes too.
    let (status, _, stderr) = dash.stop();
    assert!(status.success(), "{stderr}");
    assert!(!stderr.contains(&key), "the secret in a log: {stderr}");
    assert!(!project.file(".swarm/dashboard.url").exists());
}

#[test]
fn the_secret_is_printed_when_the_output_is_no_terminal_and_differs_per_run() {
    let project = Project::new();
    let first = Dashboard::start(&project);
    let second = Dashboard::start(&project);
    assert_ne!(first.key(), second.key());
    // Each run's secret opens only that run.
    let reply = first.get_anonymous(&format!("/?token={}", second.key()));
    assert_eq!(reply.status, 401);
}
