//! `swarm inbox`: a plain inbox marks nothing read (only `--new` does),
//! and the messages of an agent that left can still be read.

use crate::harness::{Project, TmuxServer, fails_with, launch_idle, ok, ok_stdout, swarm};

#[test]
fn the_messages_of_an_agent_that_left_can_still_be_read() {
    let server = TmuxServer::start();
    let project = Project::new();
    launch_idle(&project, &server, 2, "demo");
    // The pane runs no agent: the message waits in the log (exit 7).
    fails_with(
        swarm(&project, &server).args(["msg", "agent-1", "INFO", "kept for later"]),
        7,
    );
    ok(swarm(&project, &server).args(["down", "--session", "demo"]));
    assert!(project.agents().is_empty());
    for args in [
        &["inbox", "--agent", "agent-1", "--all-history"][..],
        &["inbox", "--agent", "agent-1"],
    ] {
        let out = ok(swarm(&project, &server).args(args));
        assert!(
            String::from_utf8_lossy(&out.stdout).contains("kept for later"),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stdout)
        );
    }
    // An id that neither is registered nor has messages is no agent.
    let stderr = fails_with(
        swarm(&project, &server).args(["inbox", "--agent", "agent-7", "--all-history"]),
        4,
    );
    assert!(stderr.contains("no agent agent-7"), "{stderr}");
}

#[test]
fn a_plain_inbox_marks_nothing_read() {
    let server = TmuxServer::start();
    let project = Project::new();
    project.register(&["agent-1"]);
    for body in ["first", "second"] {
        // No pane: each waits in the inbox (exit 7).
        swarm(&project, &server)
            .args(["msg", "agent-1", "INFO", body])
            .output()
            .expect("run");
    }
    for limit in [None, Some("1"), Some("10")] {
        let mut cmd = swarm(&project, &server);
        cmd.args(["inbox", "--agent", "agent-1"]);
        if let Some(n) = limit {
            cmd.args(["--limit", n]);
        }
        let shown = ok_stdout(&mut cmd);
        assert!(shown.contains("second"), "{shown}");
    }
    let new = ok_stdout(
        swarm(&project, &server).args(["inbox", "--agent", "agent-1", "--new", "--json"]),
    );
    let new: serde_json::Value = serde_json::from_str(&new).expect("json");
    assert_eq!(new["messages"].as_array().map(Vec::len), Some(2), "{new}");
    // `--new` marked them.
    let again = ok_stdout(swarm(&project, &server).args(["inbox", "--agent", "agent-1", "--new"]));
    assert!(again.contains("No new messages"), "{again}");
}
