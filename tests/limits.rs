//! Usage limits through real tmux and the demo agent (`DEMOLIMIT<n>`
//! shows a limit that resets n seconds later): the watcher raises one
//! `limited` event with the reset time, the agent and every agent of its
//! login are limited (`swarm agents --json`, `swarm limits --json`),
//! messages to them are held (exit 7) except an urgent one from the
//! person, `swarm limits clear` lets the held ones in, and with
//! `on_reset = "resume"` the resume prompt goes in once at the reset,
//! before the held messages, in order.

use crate::harness::agents;
use crate::harness::watcher::{wait_for_event, watch};
use crate::harness::{Project, records, swarm, wait_for};

/// What the demo agent in pane `i` received, in order.
fn received(project: &Project, i: usize) -> Vec<String> {
    records(&project.file(&format!("rec{i}.jsonl")))
        .into_iter()
        .filter_map(|r| r.get("text").and_then(|t| t.as_str()).map(str::to_owned))
        .collect()
}

fn json(out: &[u8]) -> serde_json::Value {
    serde_json::from_slice(out).expect("JSON output")
}

fn agent_json<'a>(all: &'a serde_json::Value, id: &str) -> &'a serde_json::Value {
    all.as_array()
        .expect("a list")
        .iter()
        .find(|a| a["agent_id"] == id || a["id"] == id)
        .expect("the agent is listed")
}

#[test]
fn an_agent_at_its_limit_is_parked_with_its_login_until_cleared() {
    let server = crate::harness::TmuxServer::start();
    let project = Project::new();
    let panes = agents(&server, &project, 2);
    let _w = watch(&project, &server, &[]);

    server.type_line(&panes[0], "work on it DEMOLIMIT3600");
    let got = wait_for_event(&project, "limited", 1);
    assert_eq!(got, [("agent-0".to_owned(), 1)]);
    let line = records(&project.file(".swarm/feed.jsonl"))
        .into_iter()
        .find(|e| e["event"] == "limited")
        .expect("limited");
    assert!(
        line["detail"]
            .as_str()
            .is_some_and(|d| d.starts_with("limited until ") && d.contains("usage limit reached")),
        "{line}"
    );
    let until = line["until"].as_str().expect("until").to_owned();

    // Both demo agents run with one HOME: one login, both limited.
    let out = swarm(&project, &server)
        .args(["agents", "--json"])
        .assert()
        .success();
    let all = json(&out.get_output().stdout);
    for id in ["agent-0", "agent-1"] {
        let a = agent_json(&all, id);
        assert_eq!(a["limited"], true, "{a}");
        assert_eq!(a["limited_until"].as_str(), Some(until.as_str()), "{a}");
    }
    let out = swarm(&project, &server)
        .args(["limits", "--json"])
        .assert()
        .success();
    let limits = json(&out.get_output().stdout);
    assert_eq!(
        limits["limits"].as_array().map(Vec::len),
        Some(1),
        "{limits}"
    );
    assert_eq!(
        limits["limits"][0]["showed_it"],
        serde_json::json!(["agent-0"])
    );
    assert_eq!(
        limits["limits"][0]["agents"],
        serde_json::json!(["agent-0", "agent-1"])
    );
    assert_eq!(limits["on_reset"], "notify");
    // The dashboard says so too, on the screen of each agent of the login.
    #[cfg(feature = "dashboard")]
    dashboard_shows_the_limit(&project, &server, &until);

    // A message to the other agent of the login is held, and says why.
    let out = swarm(&project, &server)
        .args(["msg", "agent-1", "INFO", "held for the limit"])
        .assert()
        .code(7);
    let said = String::from_utf8_lossy(&out.get_output().stdout).into_owned()
        + &String::from_utf8_lossy(&out.get_output().stderr);
    assert!(said.contains("agent-1 is limited until"), "{said}");
    // An urgent one from the person goes in.
    swarm(&project, &server)
        .args(["msg", "agent-1", "INFO", "urgent from you", "--urgent"])
        .assert()
        .success();
    wait_for("the urgent message in agent-1", || {
        received(&project, 1)
            .iter()
            .any(|t| t.ends_with("urgent from you"))
            .then_some(())
    });
    assert!(
        !received(&project, 1)
            .iter()
            .any(|t| t.contains("held for the limit"))
    );

    // Cleared by hand: the held message goes in, once.
    swarm(&project, &server)
        .args(["limits", "clear", "agent-0"])
        .assert()
        .success();
    wait_for("the held message in agent-1", || {
        received(&project, 1)
            .iter()
            .any(|t| t.ends_with("held for the limit"))
            .then_some(())
    });
    let out = swarm(&project, &server)
        .args(["limits", "--json"])
        .assert()
        .success();
    assert_eq!(
        json(&out.get_output().stdout)["limits"],
        serde_json::json!([])
    );
    // The limit still on agent-0's screen is not taken for a new one.
    wait_for("the limited episode closed", || {
        let out = swarm(&project, &server)
            .args(["agents", "--json"])
            .output()
            .expect("swarm agents");
        let all = json(&out.stdout);
        (agent_json(&all, "agent-0")["limited"] == false).then_some(())
    });
    assert_eq!(wait_for_event(&project, "limited", 1).len(), 1);
    let copies = received(&project, 1)
        .iter()
        .filter(|t| t.ends_with("held for the limit"))
        .count();
    assert_eq!(copies, 1);
}

#[test]
fn resume_types_the_prompt_once_at_the_reset_then_the_held_messages_in_order() {
    let server = crate::harness::TmuxServer::start();
    let project = Project::new();
    project.write(
        ".claudeswarm.toml",
        "[limits]\non_reset = \"resume\"\nresume_prompt = \"carry on\"\n",
    );
    let panes = agents(&server, &project, 1);
    let _w = watch(&project, &server, &[]);

    server.type_line(&panes[0], "work DEMOLIMIT4");
    wait_for_event(&project, "limited", 1);
    for text in ["first held", "second held"] {
        swarm(&project, &server)
            .args(["msg", "agent-0", "INFO", text])
            .assert()
            .code(7);
    }
    let got = wait_for("the resume prompt and both held messages", || {
        let r = received(&project, 0);
        r.iter().any(|t| t.ends_with("second held")).then_some(r)
    });
    let at = |needle: &str| {
        got.iter()
            .position(|t| t.ends_with(needle))
            .unwrap_or_else(|| panic!("{needle} in {got:?}"))
    };
    assert!(at("carry on") < at("first held"), "{got:?}");
    assert!(at("first held") < at("second held"), "{got:?}");
    assert_eq!(
        got.iter().filter(|t| *t == "carry on").count(),
        1,
        "{got:?}"
    );
    let reset = wait_for_event(&project, "limit_reset", 1);
    assert_eq!(reset, [("agent-0".to_owned(), 0)]);
}

#[cfg(feature = "dashboard")]
fn dashboard_shows_the_limit(project: &Project, server: &crate::harness::TmuxServer, until: &str) {
    let dash = crate::harness::dashboard::Dashboard::with(
        project,
        &[("SWARM_TMUX_SOCKET", &server.socket)],
        &[],
    );
    let delivery = dash.get("/api/v1/delivery").json();
    for id in ["agent-0", "agent-1"] {
        let said = delivery["screens"][id]["limited"]
            .as_str()
            .unwrap_or_default();
        assert!(said.starts_with("limited until "), "{delivery}");
    }
    let view = dash.get("/api/v1/agents/agent-1").json();
    assert_eq!(view["limited_until"].as_str(), Some(until), "{view}");
    drop(dash);
}

#[test]
fn an_agents_own_hook_reporting_its_limit_holds_its_messages_at_once() {
    let server = crate::harness::TmuxServer::start();
    let project = Project::new();
    let panes = agents(&server, &project, 1);
    // Claude Code's StopFailure at a rate limit, as if run in agent-0's
    // pane (the demo agent stands in for the agent whose hook it is).
    let failed = br#"{"hook_event_name": "StopFailure", "error": "rate_limit", "last_assistant_message": "You've hit your 5-hour limit"}"#;
    let out = crate::harness::run_hook(&project, &server, "claude", Some(&panes[0]), failed);
    assert!(out.status.success(), "{out:?}");
    let listed = swarm(&project, &server)
        .args(["limits", "--json"])
        .assert()
        .success();
    let limits = json(&listed.get_output().stdout);
    assert_eq!(
        limits["limits"][0]["showed_it"],
        serde_json::json!(["agent-0"]),
        "{limits}"
    );
    assert_eq!(limits["limits"][0]["vendor"], "claude", "{limits}");
    let sent = swarm(&project, &server)
        .args(["msg", "agent-0", "INFO", "not now"])
        .assert()
        .code(7);
    let said = String::from_utf8_lossy(&sent.get_output().stdout).into_owned();
    assert!(said.contains("agent-0 is limited, reset unknown"), "{said}");
    assert!(!received(&project, 0).iter().any(|t| t.ends_with("not now")));
}
