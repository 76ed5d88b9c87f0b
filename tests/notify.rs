//! Notifications: `swarm notify-event` delivers one feed entry to a real
//! HTTP server on 127.0.0.1 (retrying a failure) and to a command, and
//! records what failed in the feed; the webhook URL, a secret, is taken
//! only from the environment or the user's own file and never shown
//! whole.

use std::collections::HashMap;
use std::net::TcpListener;

use crate::harness::http::http_server;
use crate::harness::{PATIENCE, Project, stderr, stdout, stdout_json, swarm_outside_tmux};

/// `swarm notify-event` in `project`, with `EVENT` on its stdin and no
/// proxy between it and the test's server.
fn notify_event(project: &Project) -> assert_cmd::Command {
    let mut cmd = swarm_outside_tmux(project);
    cmd.arg("notify-event").write_stdin(EVENT);
    for var in ["HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"] {
        cmd.env_remove(var).env_remove(var.to_ascii_lowercase());
    }
    cmd
}

/// A feed entry as `swarm notify-event` reads it on stdin.
const EVENT: &str = r#"{"time":"2026-11-26T08:00:00.000000+00:00","event":"needs_input","agent":"agent-1","detail":"Do you want to proceed? $(touch pwned)","episode":4,"options":[{"number":1,"label":"Yes","highlighted":true}]}"#;

#[test]
fn a_webhook_gets_the_event_as_json() {
    let project = Project::new();
    let (port, requests) = http_server(&[200]);
    let out = notify_event(&project)
        .env(
            "SWARM_NOTIFY_WEBHOOK",
            format!("http://127.0.0.1:{port}/topic"),
        )
        .output()
        .expect("run");
    assert!(out.status.success(), "{}", stderr(&out));
    let got = requests.recv_timeout(PATIENCE).expect("a request");
    assert_eq!(got.method, "POST");
    assert_eq!(got.path, "/topic");
    assert_eq!(
        got.headers.get("content-type").map(String::as_str),
        Some("application/json")
    );
    let body = got.json();
    assert_eq!(body["event"], "needs_input");
    assert_eq!(body["agent"], "agent-1");
    assert_eq!(body["detail"], "Do you want to proceed? $(touch pwned)");
    assert_eq!(body["episode"], 4);
    assert_eq!(body["options"][0]["label"], "Yes");
    let text = "agent-1 needs you: Do you want to proceed? $(touch pwned)";
    assert_eq!(body["text"], text);
    assert_eq!(body["content"], text);
    assert!(body.get("link").is_none());
    assert!(!project.file("pwned").exists());
}

#[test]
fn a_failed_post_is_tried_again() {
    let project = Project::new();
    let (port, requests) = http_server(&[500, 200]);
    let out = notify_event(&project)
        .args(["--link", "http://localhost:8080/"])
        .env("SWARM_NOTIFY_WEBHOOK", format!("http://127.0.0.1:{port}/t"))
        .output()
        .expect("run");
    assert!(out.status.success(), "{}", stderr(&out));
    let first = requests.recv_timeout(PATIENCE).expect("first attempt");
    let second = requests.recv_timeout(PATIENCE).expect("second attempt");
    assert_eq!(first.body, second.body, "the same event both times");
    assert_eq!(second.json()["link"], "http://localhost:8080/");
    assert!(
        !project.file(".swarm/feed.jsonl").exists(),
        "nothing failed in the end"
    );
}

#[test]
fn a_webhook_that_never_answers_is_a_failure_in_the_feed_naming_its_host_only() {
    let project = Project::new();
    // A port nobody listens on any more: every attempt is refused.
    let port = TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port();
    let out = notify_event(&project)
        .env(
            "SWARM_NOTIFY_WEBHOOK",
            format!("http://127.0.0.1:{port}/secret-topic"),
        )
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains(&format!(
            "webhook to 127.0.0.1:{port} failed for needs_input"
        )),
        "{err}"
    );
    assert!(err.contains("(4 attempts)"), "{err}");
    let feed = project.read(".swarm/feed.jsonl");
    assert!(!feed.contains("secret-topic") && !err.contains("secret-topic"));
    let line: serde_json::Value =
        serde_json::from_str(feed.lines().next().expect("a line")).expect("JSON");
    assert_eq!(line["event"], "notify_failed");
    assert_eq!(line["agent"], "agent-1");
    assert!(
        line["detail"]
            .as_str()
            .expect("detail")
            .starts_with(&format!("webhook to 127.0.0.1:{port} failed")),
        "{line}"
    );
}

#[test]
fn a_command_gets_the_event_in_its_environment_only() {
    let project = Project::new();
    let out_file = project.file("event.txt");
    let command = format!(
        "for v in KIND AGENT DETAIL TEXT TITLE TIME EPISODE JSON; do \
         eval \"printf '%s=%s\\n' $v \\\"\\$SWARM_EVENT_$v\\\"\"; done > '{}'",
        out_file.display()
    );
    let out = notify_event(&project)
        .env("SWARM_NOTIFY_COMMAND", &command)
        .output()
        .expect("run");
    assert!(out.status.success(), "{}", stderr(&out));
    let written = project.read("event.txt");
    let vars: HashMap<&str, &str> = written.lines().filter_map(|l| l.split_once('=')).collect();
    assert_eq!(vars["KIND"], "needs_input", "{written}");
    assert_eq!(vars["AGENT"], "agent-1");
    assert_eq!(vars["DETAIL"], "Do you want to proceed? $(touch pwned)");
    assert_eq!(
        vars["TEXT"],
        "agent-1 needs you: Do you want to proceed? $(touch pwned)"
    );
    assert_eq!(vars["TITLE"], "swarm: agent-1 needs you");
    assert_eq!(vars["TIME"], "2026-11-26T08:00:00.000000+00:00");
    assert_eq!(vars["EPISODE"], "4");
    let json: serde_json::Value = serde_json::from_str(vars["JSON"]).expect("JSON");
    assert_eq!(json["event"], "needs_input");
    assert_eq!(json["detail"], "Do you want to proceed? $(touch pwned)");
    assert!(!project.file("pwned").exists(), "the detail ran");

    // A kind `[notify] events` leaves out goes nowhere.
    std::fs::remove_file(&out_file).expect("rm");
    notify_event(&project)
        .env("SWARM_NOTIFY_COMMAND", &command)
        .env("SWARM_NOTIFY_EVENTS", "exited,stuck")
        .assert()
        .success();
    assert!(!out_file.exists());
}

#[test]
fn config_show_never_prints_the_webhook_url() {
    let project = Project::new();
    let url = "https://user:hunter2@ntfy.sh/my-secret-topic?auth=xyz";
    for json in [false, true] {
        let mut cmd = swarm_outside_tmux(&project);
        cmd.args(["config", "show"])
            .env("SWARM_NOTIFY_WEBHOOK", url);
        if json {
            cmd.arg("--json");
        }
        let out = cmd.output().expect("run");
        assert!(out.status.success(), "{}", stderr(&out));
        let text = format!("{}{}", stdout(&out), stderr(&out));
        for secret in ["hunter2", "my-secret-topic", "xyz", "user"] {
            assert!(!text.contains(secret), "{secret} shown: {text}");
        }
        if json {
            let doc = stdout_json(&out);
            assert_eq!(doc["notify"]["webhook"], "https://***@ntfy.sh/…");
            assert_eq!(
                doc["_sources"]["notify.webhook"],
                serde_json::json!({"from": "env", "variable": "SWARM_NOTIFY_WEBHOOK"})
            );
        } else {
            assert!(
                text.contains("webhook = \"https://***@ntfy.sh/…\""),
                "{text}"
            );
        }
    }
    // Nor does the warning about a bad one (config show goes on with the
    // defaults when the config has a problem).
    let out = swarm_outside_tmux(&project)
        .args(["config", "show"])
        .env("SWARM_NOTIFY_WEBHOOK", "ftp://ntfy.sh/my-secret-topic")
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(0));
    assert!(
        stderr(&out).contains("\"ftp://ntfy.sh/…\""),
        "{}",
        stderr(&out)
    );
    assert!(!stderr(&out).contains("my-secret-topic"));
}

#[test]
fn a_webhook_in_the_projects_file_is_ignored_with_a_warning() {
    let project = Project::new();
    project.write(
        ".claudeswarm.toml",
        "[notify]\ndesktop = false\nwebhook = \"https://ntfy.sh/leaked-topic\"\n",
    );
    let out = swarm_outside_tmux(&project)
        .args(["config", "validate"])
        .output()
        .expect("run");
    assert!(
        out.status.success(),
        "a warning, not a failure: {}",
        stderr(&out)
    );
    let err = stderr(&out);
    assert!(
        err.contains(".claudeswarm.toml:3: notify.webhook: ignored"),
        "{err}"
    );
    assert!(err.contains("$SWARM_NOTIFY_WEBHOOK"), "{err}");
    assert!(!err.contains("leaked-topic"), "{err}");
    assert!(stdout(&out).contains("every key known"), "{}", stdout(&out));

    let out = swarm_outside_tmux(&project)
        .args(["config", "show", "--json"])
        .output()
        .expect("run");
    assert!(out.status.success());
    assert!(stderr(&out).contains("notify.webhook: ignored"));
    let doc = stdout_json(&out);
    assert_eq!(doc["notify"]["webhook"], serde_json::Value::Null);
    assert_eq!(
        doc["_sources"]["notify.webhook"],
        serde_json::json!({"from": "default"})
    );

    // The same key in the user's own file is used.
    let user = project.user_config("[notify]\nwebhook = \"https://ntfy.sh/mine\"\n");
    let out = swarm_outside_tmux(&project)
        .args(["config", "show", "--json"])
        .output()
        .expect("run");
    let doc = stdout_json(&out);
    assert_eq!(doc["notify"]["webhook"], "https://ntfy.sh/…");
    assert_eq!(
        doc["_sources"]["notify.webhook"],
        serde_json::json!({"from": "user_file", "path": user.display().to_string()})
    );
    let out = swarm_outside_tmux(&project)
        .args(["config", "show"])
        .output()
        .expect("run");
    assert!(
        stdout(&out).contains(&format!("User config file: {}", user.display())),
        "{}",
        stdout(&out)
    );
}

#[test]
fn notify_event_refuses_what_is_no_feed_entry_and_is_hidden_from_help() {
    let project = Project::new();
    let out = notify_event(&project)
        .write_stdin("not json")
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("not one feed entry"),
        "{}",
        stderr(&out)
    );
    let help = swarm_outside_tmux(&project)
        .arg("--help")
        .output()
        .expect("run");
    assert!(
        !stdout(&help).contains("notify-event"),
        "hidden from --help"
    );
}
