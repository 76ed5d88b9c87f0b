//! Delivery by screen state, through real tmux and the demo agent (which
//! plays each state a real agent shows): a half-typed line is never
//! merged with a message, an open question is never answered by one, a
//! busy agent gets an urgent message as its own turn, and held messages go in
//! by themselves, in order and exactly once, when the pane is safe.

use std::process::Command;

use crate::harness::{Project, TmuxServer, records, swarm, swarm_bin, wait_for, wait_for_records};

/// One demo agent registered as agent-0, recording into `rec.jsonl`.
fn one_agent(server: &TmuxServer, project: &Project) -> String {
    let pane = server.demo_agent(&project.path(), &project.file("rec.jsonl"));
    swarm(project, server).arg("discover").assert().success();
    pane
}

/// The id of the agent registered in `pane`.
fn agent_in(project: &Project, pane: &str) -> String {
    project
        .agents()
        .into_iter()
        .find(|a| a.1 == pane)
        .map(|a| a.0)
        .expect("registered")
}

/// Types `text` as a person would (keys, not a paste).
fn type_keys(server: &TmuxServer, pane: &str, text: &str) {
    server.tmux(&["send-keys", "-t", pane, "-l", "--", text]);
}

fn press(server: &TmuxServer, pane: &str, key: &str) {
    server.tmux(&["send-keys", "-t", pane, key]);
}

/// The body of a delivered submission (after `]: `).
fn body(record: &serde_json::Value) -> String {
    let text = record["text"].as_str().expect("a submission");
    text.split_once("]: ").expect("a swarm header").1.to_owned()
}

fn submissions(project: &Project) -> Vec<serde_json::Value> {
    records(&project.file("rec.jsonl"))
        .into_iter()
        .filter(|r| r.get("text").is_some())
        .collect()
}

fn wait_for_submissions(project: &Project, n: usize) -> Vec<serde_json::Value> {
    wait_for(&format!("{n} submissions"), || {
        let s = submissions(project);
        (s.len() >= n).then_some(s)
    })
}

fn held(project: &Project) -> Vec<serde_json::Value> {
    let path = project.file(".swarm/held.json");
    if !path.exists() {
        return Vec::new();
    }
    let v: serde_json::Value =
        serde_json::from_str(&project.read(".swarm/held.json")).expect("held.json is JSON");
    v["held"].as_array().cloned().unwrap_or_default()
}

/// Sends one message; returns stdout (the command may exit non-zero when
/// the message is held).
fn msg(project: &Project, server: &TmuxServer, text: &str) -> String {
    let out = swarm(project, server)
        .args(["msg", "agent-0", "INFO", "--from", "operator", "--", text])
        .output()
        .expect("run");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A command that changes state: its housekeeping delivers what is held
/// (read-only commands such as `agents` never type into a pane).
fn any_command(project: &Project, server: &TmuxServer) {
    swarm(project, server).arg("discover").assert().success();
}

#[test]
fn a_half_typed_line_is_never_merged_and_the_message_follows_it() {
    let server = TmuxServer::start();
    let project = Project::new();
    let pane = one_agent(&server, &project);
    type_keys(&server, &pane, "half typed by a person");
    server.wait_for_screen(&pane, "> half typed by a person");

    let out = msg(&project, &server, "hello from swarm");
    assert!(out.contains("[HELD]"), "{out}");
    assert!(
        out.contains("someone is typing in agent-0's input box"),
        "{out}"
    );
    assert!(
        submissions(&project).is_empty(),
        "nothing may be submitted yet"
    );
    assert_eq!(held(&project).len(), 1);
    assert_eq!(server.pane_option(&pane, "@swarm_held"), "1");
    // The person's line is untouched on screen.
    server.wait_for_screen(&pane, "> half typed by a person");

    // Another command while the person still types: still held.
    any_command(&project, &server);
    assert!(submissions(&project).is_empty());

    press(&server, &pane, "Enter");
    let got = wait_for_submissions(&project, 1);
    assert_eq!(got[0]["text"], "half typed by a person");

    any_command(&project, &server);
    let got = wait_for_submissions(&project, 2);
    assert_eq!(body(&got[1]), "hello from swarm");
    assert_eq!(got[1]["pastes"], 1);
    assert!(held(&project).is_empty());
    assert_eq!(server.pane_option(&pane, "@swarm_held"), "");
    let log = project.read("agent_messages.log");
    assert!(log.contains("\"status\": \"held\""), "{log}");
    assert!(log.contains("released: it had been held"), "{log}");
    assert!(log.contains("\"confirmed\": true"), "{log}");
    assert_eq!(submissions(&project).len(), 2);
}

#[test]
fn a_cleared_line_lets_the_message_in_alone() {
    let server = TmuxServer::start();
    let project = Project::new();
    let pane = one_agent(&server, &project);
    type_keys(&server, &pane, "never mind");
    server.wait_for_screen(&pane, "> never mind");
    let out = msg(&project, &server, "only me");
    assert!(out.contains("[HELD]"), "{out}");
    press(&server, &pane, "C-u");
    wait_for("the box to be cleared", || {
        (!server.capture(&pane).contains("never mind")).then_some(())
    });
    any_command(&project, &server);
    let got = wait_for_submissions(&project, 1);
    assert_eq!(body(&got[0]), "only me");
    assert_eq!(submissions(&project).len(), 1);
}

#[test]
fn an_open_question_is_never_answered_by_a_message() {
    let server = TmuxServer::start();
    let project = Project::new();
    let pane = one_agent(&server, &project);
    type_keys(&server, &pane, "run it DEMOASK");
    press(&server, &pane, "Enter");
    server.wait_for_screen(&pane, "Do you want to proceed?");

    let out = msg(&project, &server, "do not answer the question");
    assert!(out.contains("[HELD]"), "{out}");
    assert!(out.contains("agent-0 is asking for permission"), "{out}");
    any_command(&project, &server);
    let answers = |p: &Project| {
        records(&p.file("rec.jsonl"))
            .into_iter()
            .filter_map(|r| r.get("answer").and_then(|a| a.as_str()).map(str::to_owned))
            .collect::<Vec<_>>()
    };
    assert!(answers(&project).is_empty(), "the question was answered");
    server.wait_for_screen(&pane, "Do you want to proceed?");

    // The person says no; then the message goes in on its own.
    type_keys(&server, &pane, "n");
    wait_for("the answer", || {
        (!answers(&project).is_empty()).then_some(())
    });
    assert_eq!(answers(&project), ["no"]);
    any_command(&project, &server);
    let got = wait_for_submissions(&project, 2);
    assert_eq!(body(&got[1]), "do not answer the question");
    assert_eq!(answers(&project), ["no"]);
}

#[test]
fn a_busy_agent_gets_an_urgent_message_as_its_own_turn() {
    let server = TmuxServer::start();
    let project = Project::new();
    let pane = one_agent(&server, &project);
    type_keys(&server, &pane, "long work DEMOSLEEP2");
    press(&server, &pane, "Enter");
    server.wait_for_screen(&pane, "* working");

    // A normal one would wait for the turn's end (tests/conversations.rs).
    let out = swarm(&project, &server)
        .args(["msg", "agent-0", "INFO", "--urgent", "--", "while you work"])
        .output()
        .expect("run");
    let out = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.contains("[DELIVERED]"), "{out}");
    let got = wait_for_submissions(&project, 2);
    assert_eq!(got[0]["text"], "long work DEMOSLEEP2");
    assert_eq!(body(&got[1]), "while you work");
    assert_eq!(submissions(&project).len(), 2);
}

#[test]
fn busy_with_typed_text_holds_the_message() {
    let server = TmuxServer::start();
    let project = Project::new();
    let pane = one_agent(&server, &project);
    type_keys(&server, &pane, "work DEMOSLEEP1");
    press(&server, &pane, "Enter");
    server.wait_for_screen(&pane, "* working");
    type_keys(&server, &pane, "next idea");
    server.wait_for_screen(&pane, "> next idea");
    let out = msg(&project, &server, "after the idea");
    assert!(out.contains("someone is typing"), "{out}");
    press(&server, &pane, "Enter");
    // The work ends, the queued line is taken, then the held message.
    let got = wait_for_submissions(&project, 2);
    assert_eq!(got[1]["text"], "next idea");
    wait_for("the agent to be done", || {
        server.capture(&pane).contains("* done").then_some(())
    });
    wait_for("the held message", || {
        any_command(&project, &server);
        (submissions(&project).len() >= 3).then_some(())
    });
    assert_eq!(body(&submissions(&project)[2]), "after the idea");
}

#[test]
fn held_messages_go_in_order_and_exactly_once() {
    let server = TmuxServer::start();
    let project = Project::new();
    project.write(
        ".claudeswarm.toml",
        "[rate_limiting]\nmessages_per_minute = 100\n",
    );
    let pane = one_agent(&server, &project);
    type_keys(&server, &pane, "busy typing");
    server.wait_for_screen(&pane, "> busy typing");
    for i in 0..4 {
        let out = msg(&project, &server, &format!("held {i}"));
        assert!(out.contains("[HELD]"), "{out}");
    }
    assert_eq!(held(&project).len(), 4);
    press(&server, &pane, "C-u");
    wait_for("the box to be cleared", || {
        (!server.capture(&pane).contains("busy typing")).then_some(())
    });
    // Several processes race to deliver them.
    let children: Vec<_> = (0..4)
        .map(|_| {
            Command::new(swarm_bin())
                .current_dir(project.path())
                .env_remove("TMUX")
                .env_remove("TMUX_PANE")
                .env("SWARM_TMUX_SOCKET", &server.socket)
                .arg("discover")
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .spawn()
                .expect("spawn")
        })
        .collect();
    for mut c in children {
        c.wait().expect("wait");
    }
    let got = wait_for_submissions(&project, 4);
    let bodies: Vec<String> = got.iter().map(body).collect();
    assert_eq!(bodies, ["held 0", "held 1", "held 2", "held 3"]);
    any_command(&project, &server);
    assert_eq!(submissions(&project).len(), 4);
    assert!(held(&project).is_empty());
}

#[test]
fn watch_delivers_held_messages_by_itself() {
    let server = TmuxServer::start();
    let project = Project::new();
    let pane = one_agent(&server, &project);
    type_keys(&server, &pane, "draft");
    server.wait_for_screen(&pane, "> draft");
    let out = msg(&project, &server, "via watch");
    assert!(out.contains("[HELD]"), "{out}");
    let mut watch = Command::new(swarm_bin())
        .current_dir(project.path())
        .env_remove("TMUX")
        .env_remove("TMUX_PANE")
        .env("SWARM_TMUX_SOCKET", &server.socket)
        .arg("watch")
        .stdout(std::process::Stdio::null())
        .spawn()
        .expect("watch");
    press(&server, &pane, "Enter");
    let got = wait_for_submissions(&project, 2);
    let _ = watch.kill();
    let _ = watch.wait();
    assert_eq!(got[0]["text"], "draft");
    assert_eq!(body(&got[1]), "via watch");
}

#[test]
fn a_dropped_enter_is_pressed_again_never_pasted_twice() {
    let server = TmuxServer::start();
    let project = Project::new();
    let command = format!(
        "exec '{}' demo-agent --drop-enters 1 --record '{}'",
        swarm_bin(),
        project.file("rec.jsonl").display()
    );
    let pane = server.pane(&project.path(), &command);
    server.wait_for_screen(&pane, "waiting for messages");
    swarm(&project, &server).arg("discover").assert().success();
    let out = msg(&project, &server, "twice entered, once pasted");
    assert!(out.contains("[DELIVERED]"), "{out}");
    assert!(out.contains("confirmed on screen"), "{out}");
    // The sender is told what it took, and so is the log.
    assert!(out.contains("note: Enter pressed a second time"), "{out}");
    let log = project.read("agent_messages.log");
    let delivery: serde_json::Value = log
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .find(|r| r["event"] == "delivery")
        .expect("a delivery record");
    let outcome = &delivery["outcomes"]["agent-0"];
    assert_eq!(outcome["confirmed"], true, "{log}");
    assert!(
        outcome["reason"]
            .as_str()
            .is_some_and(|r| r.starts_with("Enter pressed a second time")),
        "{log}"
    );
    let got = wait_for_records(&project.file("rec.jsonl"), 1);
    assert_eq!(body(&got[0]), "twice entered, once pasted");
    assert_eq!(got[0]["pastes"], 1);
}

#[test]
fn a_broadcast_says_which_recipients_needed_a_second_enter() {
    let server = TmuxServer::start();
    let project = Project::new();
    let dropping = server.pane(
        &project.path(),
        &format!(
            "exec '{}' demo-agent --drop-enters 1 --record '{}'",
            swarm_bin(),
            project.file("dropping.jsonl").display()
        ),
    );
    server.wait_for_screen(&dropping, "waiting for messages");
    let taking = server.demo_agent(&project.path(), &project.file("taking.jsonl"));
    swarm(&project, &server).arg("discover").assert().success();
    let id_of = |pane: &str| agent_in(&project, pane);
    let out = swarm(&project, &server)
        .args([
            "broadcast",
            "INFO",
            "--from",
            "operator",
            "--json",
            "to both",
        ])
        .output()
        .expect("run");
    let sent: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let outcome = |pane: &str| sent["outcomes"][id_of(pane)].clone();
    assert_eq!(outcome(&dropping)["status"], "delivered", "{sent}");
    assert_eq!(outcome(&dropping)["confirmed"], true, "{sent}");
    assert!(
        outcome(&dropping)["reason"]
            .as_str()
            .is_some_and(|r| r.starts_with("Enter pressed a second time")),
        "{sent}"
    );
    assert_eq!(outcome(&taking)["confirmed"], true, "{sent}");
    assert_eq!(outcome(&taking).get("reason"), None, "{sent}");
    for rec in ["dropping.jsonl", "taking.jsonl"] {
        let got = wait_for_records(&project.file(rec), 1);
        assert_eq!(got.len(), 1, "{rec}");
        assert_eq!(got[0]["pastes"], 1, "{rec}");
    }
}

#[test]
fn a_broadcast_types_into_safe_panes_and_holds_for_the_others() {
    let server = TmuxServer::start();
    let project = Project::new();
    let panes: Vec<String> = (0..3)
        .map(|i| server.demo_agent(&project.path(), &project.file(&format!("rec-{i}.jsonl"))))
        .collect();
    swarm(&project, &server).arg("discover").assert().success();
    let id_of = |pane: &str| agent_in(&project, pane);
    let typing = &panes[1];
    type_keys(&server, typing, "mine");
    server.wait_for_screen(typing, "> mine");
    let out = swarm(&project, &server)
        .args(["broadcast", "INFO", "--from", "operator", "to everyone"])
        .output()
        .expect("run");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains(&format!("held: {}", id_of(typing))), "{text}");
    let rec = |pane: &String| {
        let i = panes.iter().position(|p| p == pane).expect("pane");
        project.file(&format!("rec-{i}.jsonl"))
    };
    for pane in [&panes[0], &panes[2]] {
        let got = wait_for_records(&rec(pane), 1);
        assert_eq!(body(&got[0]), "to everyone");
    }
    assert!(records(&rec(typing)).is_empty());
    press(&server, typing, "C-u");
    wait_for("the box to be cleared", || {
        (!server.capture(typing).contains("> mine")).then_some(())
    });
    any_command(&project, &server);
    let got = wait_for_records(&rec(typing), 1);
    assert_eq!(body(&got[0]), "to everyone");
    for pane in &panes {
        assert_eq!(records(&rec(pane)).len(), 1, "{pane}");
    }
}

#[test]
fn a_profile_in_the_config_changes_how_the_screen_is_read() {
    let server = TmuxServer::start();
    let project = Project::new();
    // A box the demo agent never draws: its screen reads as unknown.
    project.write(
        ".claudeswarm.toml",
        "[profiles.swarm-demo]\ninput = { start = { plain = '^NEVER HERE' } }\n",
    );
    one_agent(&server, &project);
    let out = msg(&project, &server, "not typed");
    assert!(out.contains("swarm cannot read agent-0's screen"), "{out}");
    assert!(submissions(&project).is_empty());
    let json = swarm(&project, &server)
        .args(["agents", "--json"])
        .output()
        .expect("run");
    let agents: serde_json::Value = serde_json::from_slice(&json.stdout).expect("json");
    assert_eq!(agents[0]["state"], "unknown");
    assert_eq!(agents[0]["profile"], "swarm-demo");
}

#[test]
fn a_bad_profile_is_a_config_error_naming_the_field() {
    let project = Project::new();
    project.write(
        ".claudeswarm.toml",
        "[profiles.mine]\ncommands = [\"mine\"]\nbusy = [{ plain = \"(\" }]\npause_ms = 9000\n",
    );
    let out = crate::harness::swarm_outside_tmux(&project)
        .args(["config", "validate"])
        .output()
        .expect("run");
    assert!(!out.status.success());
    let err =
        String::from_utf8_lossy(&out.stderr).into_owned() + &String::from_utf8_lossy(&out.stdout);
    assert!(err.contains("profiles.mine.busy[0].plain"), "{err}");
    assert!(err.contains("profiles.mine.pause_ms"), "{err}");
}
