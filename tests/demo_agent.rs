//! The demo agent as a new user meets it: its trigger words on its screen
//! and in `swarm help launch`, and a reply to a question sent to it.

use crate::harness::{Project, TmuxServer, launch_demo, stdout_json, swarm, wait_for};

/// The messages in the operator's inbox, as JSON.
fn operators_inbox(project: &Project, server: &TmuxServer) -> Vec<serde_json::Value> {
    let out = swarm(project, server)
        .args(["inbox", "--agent", "operator", "--json"])
        .output()
        .expect("run");
    stdout_json(&out)["messages"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

#[test]
fn the_demo_agent_lists_its_words_and_answers_a_question() {
    let server = TmuxServer::start();
    let project = Project::new();
    let out = swarm(&project, &server)
        .args([
            "launch",
            "1",
            "--agent",
            "demo",
            "--session",
            "team",
            "--no-attach",
            "--json",
        ])
        .output()
        .expect("run");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let pane = stdout_json(&out)["agents"][0]["pane"]
        .as_str()
        .expect("pane")
        .to_owned();
    server.wait_for_screen(&pane, "agent-0: swarm demo agent");
    let screen = server.capture(&pane);
    assert!(
        [
            "DEMOASK",
            "DEMOSLEEP",
            "DEMOLIMIT",
            "DEMOPRINT",
            "DEMOREDRAW"
        ]
        .iter()
        .all(|w| screen.contains(w)),
        "{screen}"
    );

    // A statement gets no reply; a question does, to the sender, in its
    // thread.
    let sent = swarm(&project, &server)
        .args(["msg", "agent-0", "INFO", "the build is green", "--json"])
        .output()
        .expect("run");
    assert!(
        sent.status.success(),
        "{}",
        String::from_utf8_lossy(&sent.stderr)
    );
    let sent = swarm(&project, &server)
        .args(["msg", "agent-0", "QUESTION", "are you ready?", "--json"])
        .output()
        .expect("run");
    assert!(
        sent.status.success(),
        "{}",
        String::from_utf8_lossy(&sent.stderr)
    );
    let asked = stdout_json(&sent)["msg_id"]
        .as_str()
        .expect("id")
        .to_owned();
    let replies = wait_for("the demo agent's reply in the operator's inbox", || {
        let inbox = operators_inbox(&project, &server);
        (!inbox.is_empty()).then_some(inbox)
    });
    assert_eq!(replies.len(), 1, "{replies:?}");
    assert_eq!(replies[0]["sender"], "agent-0");
    assert_eq!(replies[0]["parent_msg_id"], asked.as_str());
    assert!(
        replies[0]["content"]
            .as_str()
            .is_some_and(|c| c.contains("are you ready?")),
        "{replies:?}"
    );
    let plain = swarm(&project, &server)
        .args(["inbox", "--agent", "operator"])
        .output()
        .expect("run");
    assert!(String::from_utf8_lossy(&plain.stdout).contains("From: agent-0"));
}

#[test]
fn help_launch_names_the_demo_agents_words() {
    let project = Project::new();
    let out = crate::harness::swarm_outside_tmux(&project)
        .args(["help", "launch"])
        .output()
        .expect("run");
    let text = String::from_utf8_lossy(&out.stdout);
    for word in [
        "DEMOASK",
        "DEMOSLEEP",
        "DEMOPRINT",
        "DEMOLIMIT",
        "DEMOREDRAW",
        "a reply",
    ] {
        assert!(text.contains(word), "{word}: {text}");
    }
}

#[test]
fn the_demo_agent_shows_its_agent_id() {
    let server = TmuxServer::start();
    let project = Project::new();
    for (id, pane) in launch_demo(&project, &server, 2, "team") {
        server.wait_for_screen(&pane, &format!("{id}: swarm demo agent"));
    }
}
