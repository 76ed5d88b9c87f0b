//! Who needs the person, from the dashboard: the open episodes most
//! urgent first with their dialogs and screens (`/api/v1/attention`), the
//! activity feed (`/api/v1/feed`), an agent's screen
//! (`/api/v1/agents/{id}/screen`), the stream's `attention` and `feed`
//! events, and answering a dialog (`/api/v1/actions/answer`): with the
//! real watcher raising the episode and the demo agent asking.

use std::io::Write;

use serde_json::{Value, json};

use crate::harness::{Project, wait_for};

use crate::harness::answers;
use crate::harness::dashboard::{Dashboard, Watched};

use super::{populated_project, snapshots};

/// `.swarm/episodes.json` as the watcher keeps it: agent-0 waits in a
/// dialog (its second), agent-1 exited, agent-2 (not registered) wrote to
/// the person, and agent-1's finished turn is closed.
fn episodes() -> Value {
    let record = |open: bool, at: &str, episode: u64, detail: &str| json!({"open": open, "changed": at, "episode": episode, "opened": at, "detail": detail});
    json!({"version": 1, "agents": {
        "agent-0": {
            "needs_input": record(true, "2026-11-21T13:31:00+00:00", 2, "Do you want to proceed?"),
        },
        "agent-1": {
            "exited": record(true, "2026-11-21T13:32:00+00:00", 1, "its pane shows a shell"),
            "finished": record(false, "2026-11-21T13:30:00+00:00", 3, ""),
        },
        "agent-2": {
            "message": record(true, "2026-11-21T13:30:30+00:00", 1, "can I merge?"),
        },
    }})
}

fn option(number: u64, label: &str, highlighted: bool) -> Value {
    let mut o = json!({"number": number, "label": label});
    if highlighted {
        o["highlighted"] = json!(true);
    }
    o
}

/// `.swarm/feed.jsonl`: what happened, oldest first.
fn feed_lines() -> Vec<Value> {
    vec![
        json!({"time": "2026-11-21T13:20:00+00:00", "event": "needs_input", "agent": "agent-0",
               "detail": "Run the migration?", "episode": 1,
               "options": [option(1, "Allow once", true), option(2, "Deny", false)]}),
        json!({"time": "2026-11-21T13:25:00+00:00", "event": "lock_taken", "agent": "agent-1",
               "detail": "docs/*"}),
        json!({"time": "2026-11-21T13:30:30+00:00", "event": "message", "agent": "agent-2",
               "detail": "can I merge?", "by": "agent-2"}),
        json!({"time": "2026-11-21T13:31:00+00:00", "event": "needs_input", "agent": "agent-0",
               "detail": "Do you want to proceed?", "episode": 2,
               "options": [option(1, "Yes", true), option(2, "No", false)],
               "context": ["make canary"]}),
        json!({"time": "2026-11-21T13:32:00+00:00", "event": "exited", "agent": "agent-1",
               "detail": "its pane shows a shell", "episode": 1}),
    ]
}

fn write_feed(project: &Project, lines: &[Value]) {
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .open(project.file(".swarm/feed.jsonl"))
        .expect("open the feed");
    for l in lines {
        writeln!(f, "{l}").expect("append");
    }
}

fn events_of(body: &Value) -> Vec<(String, String)> {
    body["entries"]
        .as_array()
        .expect("entries")
        .iter()
        .map(|e| {
            (
                e["agent"].as_str().unwrap_or("-").to_owned(),
                e["event"].as_str().expect("event").to_owned(),
            )
        })
        .collect()
}

#[test]
fn who_needs_you_and_the_feed_are_served_most_urgent_first() {
    let project = populated_project();
    project.write(".swarm/episodes.json", &episodes().to_string());
    // Only these lines (setting the project up recorded its locks).
    let _ = std::fs::remove_file(project.file(".swarm/feed.jsonl"));
    write_feed(&project, &feed_lines());
    let dash = Dashboard::start(&project);

    let attention = dash.get("/api/v1/attention");
    assert_eq!(attention.status, 200, "{}", attention.text());
    let attention = attention.json();
    let order: Vec<(&str, &str)> = attention["open"]
        .as_array()
        .expect("open")
        .iter()
        .map(|e| {
            (
                e["agent"].as_str().expect("agent"),
                e["event"].as_str().expect("event"),
            )
        })
        .collect();
    // A dialog first, then an exit, then a message; the closed one not.
    assert_eq!(
        order,
        [
            ("agent-0", "needs_input"),
            ("agent-1", "exited"),
            ("agent-2", "message")
        ]
    );
    // agent-0's pane is on no tmux server this dashboard sees: its dialog
    // is the one the feed recorded for this episode, not the earlier one.
    let dialog = &attention["open"][0]["dialog"];
    assert_eq!(dialog["source"], json!("feed"));
    assert_eq!(dialog["question"], json!("Do you want to proceed?"));
    assert_eq!(dialog["options"][1]["label"], json!("No"));
    assert_eq!(attention["open"][0]["screen"]["state"], json!("gone"));
    assert_eq!(
        attention["open"][2]["screen"],
        Value::Null,
        "not registered"
    );
    snapshots(|| insta::assert_json_snapshot!("dashboard_attention", attention));

    // The feed, newest last, filtered.
    let all = dash.get("/api/v1/feed").json();
    assert_eq!(all["count"], json!(5));
    assert_eq!(all["limit"], json!(50));
    snapshots(|| insta::assert_json_snapshot!("dashboard_feed", all));
    let last = dash.get("/api/v1/feed?limit=2").json();
    assert_eq!(
        events_of(&last),
        [
            ("agent-0".to_owned(), "needs_input".to_owned()),
            ("agent-1".to_owned(), "exited".to_owned())
        ]
    );
    let theirs = dash.get("/api/v1/feed?agent=agent-0").json();
    assert_eq!(theirs["count"], json!(2));
    let kinds = dash
        .get("/api/v1/feed?event=exited&event=lock_taken,message")
        .json();
    assert_eq!(kinds["count"], json!(3));
    let since = dash
        .get("/api/v1/feed?since=2026-11-21T13:30:30%2B00:00&agent=agent-2,agent-1")
        .json();
    assert_eq!(
        events_of(&since),
        [
            ("agent-2".to_owned(), "message".to_owned()),
            ("agent-1".to_owned(), "exited".to_owned())
        ]
    );
    for (query, param) in [
        ("limit=many", "limit"),
        ("since=soon", "since"),
        ("agent=bad%20id", "agent"),
        ("event=needs-input", "event"),
    ] {
        let reply = dash.get(&format!("/api/v1/feed?{query}"));
        assert_eq!(reply.status, 422, "{query}: {}", reply.text());
        assert_eq!(
            reply.json()["detail"][0]["loc"],
            json!(["query", param]),
            "{query}"
        );
    }

    // The screen of an agent whose pane this dashboard cannot see.
    let screen = dash.get("/api/v1/agents/agent-0/screen");
    assert_eq!(screen.status, 200, "{}", screen.text());
    assert_eq!(
        screen.json(),
        json!({"agent": "agent-0", "pane": "%0", "state": "gone",
               "reason": "its pane is not on the tmux server (run `swarm discover`)", "rows": []})
    );
    assert_eq!(dash.get("/api/v1/agents/agent-9/screen").status, 404);
    assert_eq!(dash.get("/api/v1/agents/bad%20id/screen").status, 404);

    // The stream carries both, and a new feed line as it comes.
    let mut events = dash.events("");
    let (live, _) = events.until("attention", |_| true);
    assert_eq!(live, attention);
    events.until("feed", |f| f["count"] == json!(5));
    write_feed(
        &project,
        &[
            json!({"time": "2026-11-21T13:33:00+00:00", "event": "answered", "agent": "agent-0",
                   "detail": "Do you want to proceed? -> 2. No", "by": "operator"}),
        ],
    );
    let (feed, _) = events.until("feed", |f| f["count"] == json!(6));
    assert_eq!(feed["entries"][5]["event"], json!("answered"));
    // An episode closes (the watcher saw the dialog go): the list follows.
    let mut closed = episodes();
    closed["agents"]["agent-0"]["needs_input"]["open"] = json!(false);
    project.write(".swarm/episodes.json", &closed.to_string());
    events.until("attention", |a| a["count"] == json!(2));
}

#[test]
fn answers_are_checked_before_anything_is_typed() {
    let project = populated_project();
    project.write(".swarm/episodes.json", &episodes().to_string());
    let dash = Dashboard::start(&project);
    for (body, want) in [
        (json!({"agent": "agent-0"}), 422),
        (json!({"agent": "agent-0", "option": "maybe"}), 422),
        (
            json!({"agent": "agent-0", "option": "1", "escape": true}),
            422,
        ),
        (json!({"agent": "agent-0", "option": true}), 422),
        (json!({"agent": "agent 0", "option": "1"}), 422),
        (json!({"agent": "agent-0", "option": "1", "extra": 1}), 422),
        (json!({"agent": "agent-9", "option": "yes"}), 404),
        // Its pane is on no tmux server this dashboard can reach.
        (json!({"agent": "agent-0", "option": 2}), 409),
        (json!({"agent": "agent-0", "escape": true}), 409),
    ] {
        let reply = dash.act("/api/v1/actions/answer", &body);
        assert_eq!(reply.status, want, "{body}: {}", reply.text());
        let got = reply.json();
        assert!(
            got["detail"].as_str().is_some_and(|d| !d.is_empty()) || got["detail"].is_array(),
            "{body}: {got}"
        );
    }
    assert!(
        !project.file(".swarm/audit.log").exists(),
        "nothing was answered"
    );
    // Without the page's token: refused before anything is looked at.
    let origin = format!("Origin: http://{}\r\n", dash.addr);
    let reply = dash.post(
        "/api/v1/actions/answer",
        &origin,
        &json!({"agent": "agent-0", "option": "1"}),
    );
    assert_eq!(reply.status, 403, "{}", reply.text());
}

#[test]
fn a_dialog_the_watcher_raised_is_answered_from_the_api() {
    // Bound in this order, they go the other way: the dashboard first,
    // the tmux server last.
    let Watched {
        server,
        project,
        record,
        pane,
        watch: _watch,
        dash,
    } = Watched::start();

    // No dialog open: nothing to answer, nothing typed.
    let reply = dash.act(
        "/api/v1/actions/answer",
        &json!({"agent": "agent-0", "option": "yes"}),
    );
    assert_eq!(reply.status, 409, "{}", reply.text());
    assert!(
        reply.json()["detail"]
            .as_str()
            .is_some_and(|d| d.contains("shows no dialog")),
        "{}",
        reply.text()
    );

    server.type_line(&pane, "run it DEMOASK");
    server.wait_for_screen(&pane, "Do you want to proceed?");
    let item = wait_for("the watcher to raise the dialog", || {
        let body = dash.get("/api/v1/attention").json();
        body["open"]
            .as_array()
            .and_then(|open| {
                open.iter()
                    .find(|e| e["event"] == json!("needs_input") && e["dialog"].is_object())
            })
            .cloned()
    });
    assert_eq!(item["agent"], json!("agent-0"));
    assert_eq!(item["detail"], json!("Do you want to proceed?"));
    let dialog = &item["dialog"];
    assert_eq!(dialog["source"], json!("screen"));
    assert_eq!(dialog["question"], json!("Do you want to proceed?"));
    assert_eq!(
        dialog["options"],
        json!([option(1, "Yes", true), option(2, "No", false)])
    );
    assert_eq!(item["screen"]["state"], json!("dialog"));
    let rows: Vec<&str> = item["screen"]["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .map(|r| r.as_str().expect("row"))
        .collect();
    assert!(rows.contains(&"? Do you want to proceed?"), "{rows:?}");
    let screen = dash.get("/api/v1/agents/agent-0/screen").json();
    assert_eq!(screen["state"], json!("dialog"));
    assert!(
        screen["rows"]
            .as_array()
            .is_some_and(|r| r.contains(&json!("  2. No"))),
        "{screen}"
    );
    // The feed has the line that raised it, once (the watcher writes it
    // in the same round, after the episode opened).
    let raised = wait_for("the feed line that raised it", || {
        let body = dash
            .get("/api/v1/feed?event=needs_input&agent=agent-0")
            .json();
        (body["count"] != json!(0)).then_some(body)
    });
    assert_eq!(raised["count"], json!(1), "{raised}");
    assert_eq!(raised["entries"][0]["episode"], json!(1), "{raised}");

    // An answer meant for another dialog is not typed.
    let reply = dash.act(
        "/api/v1/actions/answer",
        &json!({"agent": "agent-0", "option": "2", "dialog": "0123456789abcdef"}),
    );
    assert_eq!(reply.status, 409, "{}", reply.text());
    assert!(answers(&record).is_empty());

    let reply = dash.act(
        "/api/v1/actions/answer",
        &json!({"agent": "agent-0", "option": "2", "dialog": dialog["fingerprint"]}),
    );
    assert_eq!(reply.status, 200, "{}", reply.text());
    let done = reply.json();
    assert_eq!(done["picked"], json!("2. No"));
    assert_eq!(done["keys"], json!(["2"]));
    assert_eq!(done["closed"], json!(true));
    assert_eq!(done["question"], json!("Do you want to proceed?"));
    wait_for("the demo agent's answer", || {
        (!answers(&record).is_empty()).then_some(())
    });
    assert_eq!(answers(&record), ["no"]);
    let answered = dash.get("/api/v1/feed?event=answered").json();
    assert_eq!(answered["entries"][0]["by"], json!("operator"));
    assert_eq!(
        answered["entries"][0]["detail"],
        json!("Do you want to proceed? -> 2. No")
    );
    let audit = project.read(".swarm/audit.log");
    assert!(audit.contains("answered"), "{audit}");
    // The watcher sees the dialog go: nobody needs the person any more.
    wait_for("the episode to close", || {
        let body = dash.get("/api/v1/attention").json();
        body["open"]
            .as_array()
            .is_some_and(|o| !o.iter().any(|e| e["event"] == json!("needs_input")))
            .then_some(())
    });
    // Answering again finds no dialog.
    let reply = dash.act(
        "/api/v1/actions/answer",
        &json!({"agent": "agent-0", "escape": true}),
    );
    assert_eq!(reply.status, 409, "{}", reply.text());
    assert_eq!(answers(&record), ["no"]);
}
