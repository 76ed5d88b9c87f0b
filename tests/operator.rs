//! The operator: the person at a terminal outside tmux. What they send
//! goes out as `operator` (or the name `messaging.operator` gives), and
//! the inbox they read is the operator's, with no advice about a pane.

use crate::harness::{Project, TmuxServer, fails_with, launch_demo, ok, stdout_json, swarm};

#[test]
fn a_person_outside_tmux_sends_as_the_operator() {
    let server = TmuxServer::start();
    let project = Project::new();
    launch_demo(&project, &server, 2, "team");
    let out = ok(swarm(&project, &server).args(["msg", "agent-1", "INFO", "hello", "--json"]));
    assert_eq!(stdout_json(&out)["sender"], "operator");
    // The name is configurable, and the operator can read its own inbox.
    project.write(".claudeswarm.toml", "[messaging]\noperator = \"alice\"\n");
    let out = ok(swarm(&project, &server).args(["broadcast", "INFO", "hi all", "--json"]));
    assert_eq!(stdout_json(&out)["sender"], "alice");
    ok(swarm(&project, &server).args(["inbox", "--agent", "alice"]));
    // A bad name is a config error like any other.
    project.write(".claudeswarm.toml", "[messaging]\noperator = \"a b\"\n");
    let stderr = fails_with(
        swarm(&project, &server).args(["msg", "agent-1", "INFO", "x"]),
        1,
    );
    assert!(stderr.contains("messaging.operator"), "{stderr}");
}

#[test]
fn outside_tmux_the_inbox_is_the_operators_and_gives_it_no_pane_advice() {
    let project = Project::new();
    project.register(&["agent-1"]);
    let run = |args: &[&str]| {
        crate::harness::swarm_outside_tmux(&project)
            .args(args)
            .output()
            .expect("run")
    };
    // The recipient has no pane: the question waits in its inbox (exit 7).
    let sent = run(&["msg", "agent-1", "QUESTION", "ready?", "--ack", "--json"]);
    assert_eq!(sent.status.code(), Some(7));
    let id = stdout_json(&sent)["msg_id"]
        .as_str()
        .expect("id")
        .to_owned();
    let acked = run(&["ack", &id[..8], "--agent", "agent-1"]);
    assert!(
        acked.status.success(),
        "{}",
        String::from_utf8_lossy(&acked.stderr)
    );
    let inbox = run(&["inbox"]);
    let stdout = String::from_utf8_lossy(&inbox.stdout);
    assert!(
        inbox.status.success(),
        "{}",
        String::from_utf8_lossy(&inbox.stderr)
    );
    assert!(
        stdout.contains("Messages for operator") && stdout.contains(&format!("ACK {id}")),
        "{stdout}"
    );
    assert!(
        !stdout.contains("not typed into your pane") && !stdout.contains("discover"),
        "{stdout}"
    );
    let json = stdout_json(&run(&["inbox", "--json"]));
    assert_eq!(json["agent"], "operator");
    assert!(json["messages"][0]["queued_reason"].is_null(), "{json}");
}
