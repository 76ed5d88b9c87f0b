//! What changes something: a foreign `Host` is refused on every path (DNS
//! rebinding), actions need the page's origin and its token, and each
//! action does what its command does (the message log, the pending list,
//! the lock files and the audit log show it).

use serde_json::{Value, json};

use crate::harness::{Project, TmuxServer, records, swarm, swarm_outside_tmux, wait_for};

use crate::harness::dashboard::{Dashboard, Reply, command};

use super::{lock_file_of, populated_project, swarm_ok};

impl Dashboard {
    /// The token this run put into its page.
    pub(super) fn token(&self) -> String {
        let page = self.get("/").text();
        let start = page
            .find("name=\"swarm-token\" content=\"")
            .expect("the page carries a token")
            + "name=\"swarm-token\" content=\"".len();
        let len = page[start..].find('"').expect("end of the token");
        page[start..start + len].to_owned()
    }

    /// `POST path` with a JSON body and the given extra header lines.
    pub(super) fn post(&self, path: &str, headers: &str, body: &Value) -> Reply {
        let body = body.to_string();
        self.send(&format!(
            "POST {path} HTTP/1.1\r\n{}Content-Type: application/json\r\n{headers}\
             Content-Length: {}\r\n\r\n{body}",
            self.host(),
            body.len()
        ))
    }

    /// `POST path` as the dashboard's own page sends it.
    pub(super) fn act(&self, path: &str, body: &Value) -> Reply {
        let headers = format!(
            "Origin: http://{}\r\nX-Swarm-Token: {}\r\n",
            self.addr,
            self.token()
        );
        self.post(path, &headers, body)
    }
}

fn logged(project: &Project, text: &str) -> bool {
    std::fs::read_to_string(project.file("agent_messages.log"))
        .unwrap_or_default()
        .contains(text)
}

#[test]
fn a_foreign_host_is_refused_on_every_path() {
    let project = populated_project();
    let dash = Dashboard::start(&project);
    let port = dash.addr.port();
    for path in [
        "/",
        "/static/dashboard.js",
        "/health",
        "/api/v1/messages",
        "/api/v1/stream",
        "/api/v1/agents/agent-0",
        "/nope",
    ] {
        for host in [
            format!("rebound.evil.example:{port}"),
            format!("localhost.evil.example:{port}"),
            format!("127.0.0.1:{}", port.wrapping_add(1)),
            "127.0.0.1".to_owned(),
        ] {
            let reply = dash.send(&format!("GET {path} HTTP/1.1\r\nHost: {host}\r\n\r\n"));
            assert_eq!(reply.status, 403, "{path} with Host {host}");
            assert!(
                !reply.text().contains("agent-0") && !reply.text().contains("schema v2"),
                "{path}: {}",
                reply.text()
            );
        }
        // No Host at all (only HTTP/1.0 may leave it out) is no better.
        let reply = dash.send(&format!("GET {path} HTTP/1.0\r\n\r\n"));
        assert_eq!(reply.status, 403, "{path} without Host");
    }
    // The names it listens on are answered.
    for host in [format!("127.0.0.1:{port}"), format!("localhost:{port}")] {
        let reply = dash.send(&format!("GET /health HTTP/1.1\r\nHost: {host}\r\n\r\n"));
        assert_eq!(reply.status, 200, "{host}");
    }
}

#[test]
fn configured_names_are_answered_too() {
    let project = Project::new();
    project.user_config("[dashboard]\nallowed_hosts = [\"dash.example\", \"box.lan:9\"]\n");
    let dash = Dashboard::start(&project);
    let port = dash.addr.port();
    let status = |host: &str| {
        dash.send(&format!("GET /health HTTP/1.1\r\nHost: {host}\r\n\r\n"))
            .status
    };
    assert_eq!(status(&format!("dash.example:{port}")), 200);
    assert_eq!(status("DASH.EXAMPLE"), 200);
    assert_eq!(status("box.lan:9"), 200);
    assert_eq!(status(&format!("box.lan:{port}")), 403);
    assert_eq!(status(&format!("evil.example:{port}")), 403);
    drop(dash);
    // From the environment too.
    let dash = Dashboard::with(
        &project,
        &[("SWARM_DASHBOARD_ALLOWED_HOSTS", "env.example")],
        &[],
    );
    let reply = dash.send(&format!(
        "GET /health HTTP/1.1\r\nHost: env.example:{}\r\n\r\n",
        dash.addr.port()
    ));
    assert_eq!(reply.status, 200);
    drop(dash);
    // A configured entry that is no host name is a clear error.
    project.user_config("[dashboard]\nallowed_hosts = [\"bad host\"]\n");
    let out = command(
        &project,
        &[
            "dashboard",
            "--host",
            "127.0.0.1",
            "--port",
            "0",
            "--no-browser",
        ],
    )
    .output()
    .expect("run");
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("dashboard.allowed_hosts"));
}

/// A committed project file could name a host an attacker controls and so
/// re-open DNS rebinding: the names come only from the person's own file
/// and the environment, and a refused Host is told so before any
/// question of authentication.
#[test]
fn a_project_file_cannot_widen_the_allowed_hosts() {
    let project = populated_project();
    project.write(
        ".claudeswarm.toml",
        "[dashboard]\nallowed_hosts = [\"rebound.evil.example\"]\n",
    );
    let dash = Dashboard::start(&project);
    let port = dash.addr.port();
    let host = format!("Host: rebound.evil.example:{port}\r\n");
    for (path, extra) in [
        ("/", String::new()),
        ("/api/v1/messages", String::new()),
        // Even with the secret: the name is refused, whoever asks.
        ("/api/v1/messages", dash.cookie()),
        ("/health", String::new()),
    ] {
        let reply = dash.send(&format!("GET {path} HTTP/1.1\r\n{host}{extra}\r\n"));
        assert_eq!(reply.status, 403, "{path}: {}", reply.text());
        assert!(
            reply.text().contains("Host not allowed"),
            "{}",
            reply.text()
        );
        assert!(!reply.text().contains("schema v2"), "{}", reply.text());
    }
    let (_, _, stderr) = dash.stop();
    assert!(
        stderr.contains("dashboard.allowed_hosts: ignored"),
        "the person is told: {stderr}"
    );
    // `config show` does not show it in force.
    let out = command(&project, &["config", "show", "--json"])
        .output()
        .expect("config show");
    let shown: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(shown["dashboard"]["allowed_hosts"], json!([]), "{shown}");
}

#[test]
fn beyond_loopback_a_password_is_required() {
    let project = Project::new();
    let out = command(
        &project,
        &[
            "dashboard",
            "--host",
            "0.0.0.0",
            "--port",
            "0",
            "--no-browser",
        ],
    )
    .output()
    .expect("run");
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("without a password") && err.contains("DASHBOARD_PASSWORD"),
        "{err}"
    );
    // With credentials it serves (on every interface, reached on loopback).
    let dash = Dashboard::with(
        &project,
        &[("DASHBOARD_USERNAME", "a"), ("DASHBOARD_PASSWORD", "b")],
        &["--host", "0.0.0.0", "--port", "0", "--no-browser"],
    );
    assert_eq!(dash.get("/health").status, 401);
}

#[test]
fn actions_need_the_pages_origin_and_token() {
    let project = populated_project();
    let dash = Dashboard::start(&project);
    let token = dash.token();
    let body = json!({"to": "agent-1", "type": "INFO", "content": "forged"});
    let own = format!("http://{}", dash.addr);
    for (headers, why) in [
        (String::new(), "no origin, no token"),
        (format!("X-Swarm-Token: {token}\r\n"), "no origin"),
        (
            format!("Origin: http://evil.example\r\nX-Swarm-Token: {token}\r\n"),
            "another origin",
        ),
        (
            format!("Origin: null\r\nX-Swarm-Token: {token}\r\n"),
            "null",
        ),
        (format!("Origin: {own}\r\n"), "no token"),
        (
            format!("Origin: {own}\r\nX-Swarm-Token: {}x\r\n", &token[1..]),
            "a wrong token",
        ),
    ] {
        for path in [
            "/api/v1/actions/send",
            "/api/v1/actions/answer",
            "/api/v1/actions/ack",
            "/api/v1/actions/unlock",
            "/api/v1/actions/release",
        ] {
            let reply = dash.post(path, &headers, &body);
            assert_eq!(reply.status, 403, "{path} with {why}: {}", reply.text());
        }
    }
    assert!(!logged(&project, "forged"), "nothing was sent");
    // A browser's cross-origin preflight for an action is refused too.
    let reply = dash.send(&format!(
        "OPTIONS /api/v1/actions/send HTTP/1.1\r\n{}Origin: http://localhost:3000\r\n\
         Access-Control-Request-Method: POST\r\n\
         Access-Control-Request-Headers: content-type, x-swarm-token\r\n\r\n",
        dash.host()
    ));
    assert_eq!(reply.status, 400);
    assert_eq!(reply.header("access-control-allow-origin"), None);
    // The same request from the page goes through.
    let reply = dash.act(
        "/api/v1/actions/send",
        &json!({"to": "agent-1", "type": "INFO", "content": "from the page"}),
    );
    assert_eq!(reply.status, 200, "{}", reply.text());
    assert!(logged(&project, "from the page"));
}

#[test]
fn sending_acknowledging_and_releasing_do_what_the_commands_do() {
    let project = populated_project();
    let dash = Dashboard::start(&project);

    // A message asking for an ACK: logged from the operator, pending.
    let reply = dash.act(
        "/api/v1/actions/send",
        &json!({"to": "agent-1", "type": "question", "content": "ready?", "ack": true}),
    );
    assert_eq!(reply.status, 200, "{}", reply.text());
    let sent = reply.json();
    assert_eq!(sent["sender"], json!("operator"));
    assert_eq!(sent["msg_type"], json!("QUESTION"));
    assert_eq!(sent["requires_ack"], json!(true));
    // No tmux here: queued in the inbox, as `swarm msg` would.
    assert_eq!(sent["outcomes"]["agent-1"]["status"], json!("queued"));
    assert_eq!(sent["ok"], json!(true));
    // After its "ok", the answer is the view `swarm msg --json` prints,
    // key for key and in its order.
    let out = swarm_outside_tmux(&project)
        .args([
            "msg", "agent-1", "INFO", "by hand", "--from", "agent-0", "--ack", "--json",
        ])
        .output()
        .expect("msg");
    let by_hand: Value = serde_json::from_slice(&out.stdout).expect("msg --json");
    let keys =
        |v: &Value| -> Vec<String> { v.as_object().expect("object").keys().cloned().collect() };
    let mut want = vec!["ok".to_owned()];
    want.extend(keys(&by_hand));
    assert_eq!(keys(&sent), want, "{sent} against {by_hand}");
    let id = sent["msg_id"].as_str().expect("id").to_owned();
    let pending = project.read("PENDING_ACKS.json");
    assert!(pending.contains(&id), "{pending}");

    // Refusals come back as the commands' errors, nothing logged.
    for (body, want) in [
        (
            json!({"to": "all", "type": "INFO", "content": "x", "ack": true}),
            422,
        ),
        (
            json!({"to": "agent 1", "type": "INFO", "content": "x"}),
            422,
        ),
        (
            json!({"to": "agent-1", "type": "NOPE", "content": "x"}),
            422,
        ),
        (json!({"to": "agent-1", "type": "INFO", "content": ""}), 422),
        (json!({"to": "agent-1", "type": "INFO"}), 422),
    ] {
        let reply = dash.act("/api/v1/actions/send", &body);
        assert_eq!(reply.status, want, "{body}: {}", reply.text());
        assert_eq!(reply.json()["ok"], json!(false), "{body}");
    }

    // Acknowledged for its recipient: removed, and the sender told.
    let reply = dash.act("/api/v1/actions/ack", &json!({"msg_id": id}));
    assert_eq!(reply.status, 200, "{}", reply.text());
    assert_eq!(reply.json()["acknowledged_for"], json!("agent-1"));
    assert!(!project.read("PENDING_ACKS.json").contains(&id));
    assert!(logged(&project, &format!("ACK {id}")));
    let audit = project.read(".swarm/audit.log");
    assert!(
        audit.contains(r#""event": "as-other", "by": "agent-1""#) && audit.contains("dashboard"),
        "{audit}"
    );
    // Only what is pending can be acknowledged.
    let reply = dash.act("/api/v1/actions/ack", &json!({"msg_id": id}));
    assert_eq!(reply.status, 404);
    let reply = dash.act(
        "/api/v1/actions/ack",
        &json!({"msg_id": "9c2c68bd-7f2c-490f-a333-2015aba90f22"}),
    );
    assert_eq!(reply.status, 404, "a message that asked for no ACK");

    // Another agent's lock, released by force and recorded.
    assert!(lock_file_of(&project, "src/a.py").exists());
    let reply = dash.act("/api/v1/actions/unlock", &json!({"path": "src/a.py"}));
    assert_eq!(reply.status, 200, "{}", reply.text());
    assert_eq!(reply.json()["holder"], json!("agent-0"));
    let audit = project.read(".swarm/audit.log");
    let forced: Value = audit
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).expect("JSON line"))
        .find(|e| e["event"] == json!("force-unlock"))
        .expect("a force-unlock event");
    assert_eq!(forced["by"], json!("operator"));
    assert_eq!(forced["holder"], json!("agent-0"));
    assert_eq!(forced["path"], json!("src/a.py"));
    assert_eq!(
        dash.get("/api/v1/locks").json()["count"],
        json!(1),
        "one live lock left"
    );
    let reply = dash.act("/api/v1/actions/unlock", &json!({"path": "src/a.py"}));
    assert_eq!(reply.status, 404, "nothing left to release");
    let reply = dash.act("/api/v1/actions/unlock", &json!({"path": "../outside"}));
    assert_eq!(reply.status, 422);
    swarm_ok(&project, &["locks"]);
}

#[test]
fn search_and_the_per_agent_view() {
    let project = populated_project();
    let dash = Dashboard::start(&project);
    let found = dash.get("/api/v1/messages?q=SCHEMA%20v2").json();
    assert_eq!(found["count"], json!(1));
    assert_eq!(found["messages"][0]["content"], json!("schema v2 merged"));
    let none = dash.get("/api/v1/messages?q=nothing-like-this").json();
    assert_eq!(none["count"], json!(0));
    let theirs = dash.get("/api/v1/messages?agent=agent-2").json();
    assert_eq!(theirs["count"], json!(1), "agent-2 got one message");
    // Words go through the message index (ranked), the agent's filter
    // beside them.
    assert_eq!(found["order"], json!("best first"));
    let words = dash.get("/api/v1/messages?q=need&agent=agent-1").json();
    assert_eq!(words["count"], json!(1));
    assert_eq!(words["messages"][0]["msg_type"], json!("BLOCKED"));
    let elsewhere = dash.get("/api/v1/messages?q=need&agent=agent-2").json();
    assert_eq!(elsewhere["count"], json!(0));
    // The thread view: a message without replies is a thread of one.
    let thread = dash.get("/api/v1/messages/9c2c68bd/thread").json();
    assert_eq!(thread["count"], json!(1));
    assert_eq!(
        thread["messages"][0]["msg_id"],
        json!("9c2c68bd-7f2c-490f-a333-2015aba90f22")
    );
    assert_eq!(dash.get("/api/v1/messages/ffffffff/thread").status, 404);
    assert_eq!(dash.get("/api/v1/messages/a%20b/thread").status, 422);

    let view = dash.get("/api/v1/agents/agent-0").json();
    assert_eq!(view["agent"]["id"], json!("agent-0"));
    assert_eq!(view["messages"].as_array().map(Vec::len), Some(3));
    let locks: Vec<&str> = view["locks"]
        .as_array()
        .expect("locks")
        .iter()
        .map(|l| l["filepath"].as_str().expect("path"))
        .collect();
    assert_eq!(locks, ["src/a.py"]);
    assert_eq!(view["pending_acks"].as_array().map(Vec::len), Some(1));
    // Its pane is on no tmux server this dashboard can see.
    assert_eq!(view["screen_state"], json!("gone"));
    assert_eq!(view["held_messages"], json!([]));
    let unknown = dash.get("/api/v1/agents/agent-9").json();
    assert_eq!(unknown["agent"], Value::Null);
    assert_eq!(unknown["messages"], json!([]));
    assert_eq!(dash.get("/api/v1/agents/bad%20id").status, 404);
}

#[test]
fn screen_states_and_held_messages_are_served_and_released_when_safe() {
    let server = TmuxServer::start();
    let project = Project::new();
    let record = project.file("rec.jsonl");
    let pane = server.demo_agent(&project.path(), &record);
    swarm(&project, &server).arg("discover").assert().success();
    // A person half-way through a line: the message is held.
    server.tmux(&["send-keys", "-t", &pane, "-l", "--", "half typed"]);
    server.wait_for_screen(&pane, "> half typed");
    let out = swarm(&project, &server)
        .args([
            "msg",
            "agent-0",
            "INFO",
            "--from",
            "operator",
            "--",
            "wait for me",
        ])
        .output()
        .expect("run");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("[HELD]"), "{stdout}");

    let dash = Dashboard::with(&project, &[("SWARM_TMUX_SOCKET", &server.socket)], &[]);
    let delivery = dash.get("/api/v1/delivery").json();
    assert_eq!(delivery["screens"]["agent-0"]["state"], json!("typing"));
    assert_eq!(delivery["screens"]["agent-0"]["deliverable"], json!(false));
    assert_eq!(delivery["held_count"], json!(1));
    let held = &delivery["held"][0];
    assert_eq!(held["agent"], json!("agent-0"));
    assert!(
        held["reason"]
            .as_str()
            .is_some_and(|r| r.contains("typing")),
        "{held}"
    );
    assert!(
        held["text"]
            .as_str()
            .is_some_and(|t| t.contains("wait for me")),
        "{held}"
    );
    assert!(held["age_seconds"].is_u64(), "{held}");
    let view = dash.get("/api/v1/agents/agent-0").json();
    assert_eq!(view["screen_state"], json!("typing"));
    assert_eq!(view["held_messages"][0]["msg_id"], held["msg_id"]);

    // Releasing keeps the rules: while the person types, it still waits.
    let reply = dash.act("/api/v1/actions/release", &json!({}));
    assert_eq!(reply.status, 200, "{}", reply.text());
    let body = reply.json();
    assert_eq!(body["released"], json!([]));
    assert_eq!(body["still_held"][0]["agent"], json!("agent-0"));
    let submitted = |rec: &std::path::Path| {
        records(rec)
            .into_iter()
            .filter(|r| r.get("text").is_some())
            .count()
    };
    assert_eq!(
        submitted(&record),
        0,
        "nothing typed over the person's line"
    );

    // The line is cleared: the message goes in, once (by the action or by
    // the dashboard's own round, whichever comes first).
    server.tmux(&["send-keys", "-t", &pane, "C-u"]);
    wait_for("the box to be cleared", || {
        (!server.capture(&pane).contains("half typed")).then_some(())
    });
    let reply = dash.act("/api/v1/actions/release", &json!({}));
    assert_eq!(reply.status, 200, "{}", reply.text());
    wait_for("the held message to go in", || {
        (submitted(&record) == 1).then_some(())
    });
    let delivery = wait_for("the held list to empty", || {
        let d = dash.get("/api/v1/delivery").json();
        (d["held_count"] == json!(0)).then_some(d)
    });
    assert_eq!(delivery["held"], json!([]));
    assert_eq!(submitted(&record), 1);
}
