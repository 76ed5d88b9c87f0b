//! `swarm down`: which session it stops, the locks of the agents it
//! stops, and a hint when it cannot tell which session is meant.

use crate::harness::{
    Project, TmuxServer, fails_with, launch_idle, ok, outcome, stdout_json, swarm,
};

#[test]
fn down_of_the_last_session_succeeds_every_time() {
    let server = TmuxServer::start();
    let project = Project::new();
    // Only the launched session lives on the server, so `down` ends the
    // server too, while swarm asks it for its panes.
    server.tmux(&["kill-server"]);
    for round in 0..20 {
        ok(swarm(&project, &server).args([
            "launch",
            "2",
            "--cmd",
            "sleep 600",
            "--session",
            "last",
            "--no-attach",
        ]));
        let out = swarm(&project, &server)
            .args(["down", "--session", "last"])
            .output()
            .expect("run");
        assert!(
            out.status.success(),
            "round {round}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(project.agents().is_empty(), "round {round}");
    }
}

/// The paths of the locks listed by `swarm locks --json`.
fn locked_paths(project: &Project, server: &TmuxServer) -> Vec<String> {
    let out = ok(swarm(project, server).args(["locks", "--json"]));
    stdout_json(&out)
        .as_array()
        .expect("locks")
        .iter()
        .map(|l| l["filepath"].as_str().expect("filepath").to_owned())
        .collect()
}

#[test]
fn down_releases_the_locks_of_the_agents_it_stops_and_records_each() {
    let server = TmuxServer::start();
    let project = Project::new();
    launch_idle(&project, &server, 2, "demo");
    launch_idle(&project, &server, 1, "other");
    ok(swarm(&project, &server).args(["lock", "src/a.rs", "--agent", "agent-0"]));
    ok(swarm(&project, &server).args(["lock", "src/b.rs", "--agent", "agent-1"]));
    ok(swarm(&project, &server).args(["lock", "src/c.rs", "--agent", "agent-2"]));
    let out = ok(swarm(&project, &server).args(["down", "--session", "demo"]));
    let stdout = String::from_utf8_lossy(&out.stdout).to_lowercase();
    assert!(
        stdout.contains("2 agents left the registry")
            && stdout.contains("released 2 locks of agent-0, agent-1"),
        "{stdout}"
    );
    // The other session's agent keeps its lock.
    assert_eq!(locked_paths(&project, &server), ["src/c.rs"]);
    let audit = project.read(".swarm/audit.log");
    for (path, holder) in [("src/a.rs", "agent-0"), ("src/b.rs", "agent-1")] {
        assert!(
            audit.lines().any(|l| {
                let e: serde_json::Value = serde_json::from_str(l).expect("audit line");
                e["event"] == "force-unlock" && e["path"] == path && e["holder"] == holder
            }),
            "{audit}"
        );
    }
}

#[test]
fn down_without_a_session_stops_the_registered_agents_session() {
    let server = TmuxServer::start();
    let project = Project::new();
    launch_idle(&project, &server, 2, "demo");
    let out = ok(swarm(&project, &server).arg("down"));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("Stopped tmux session demo"),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(project.agents().is_empty());
    // With agents in two sessions, it asks which.
    launch_idle(&project, &server, 1, "first");
    launch_idle(&project, &server, 1, "second");
    let stderr = fails_with(swarm(&project, &server).arg("down"), 2);
    assert!(
        stderr.contains("first") && stderr.contains("second") && stderr.contains("--session"),
        "{stderr}"
    );
    assert!(
        stderr
            .lines()
            .nth(1)
            .is_some_and(|l| l.starts_with("  hint: ")),
        "{stderr}"
    );
    assert_eq!(project.agents().len(), 2);
    ok(swarm(&project, &server).args(["down", "--session", "first"]));
    ok(swarm(&project, &server).arg("down"));
    assert!(project.agents().is_empty());
}

#[test]
fn down_with_an_unknown_session_points_to_sessions() {
    let server = TmuxServer::start();
    let project = Project::new();
    let (code, _, stderr) = outcome(swarm(&project, &server).args(["down", "--session", "nosuch"]));
    assert_eq!(code, Some(4), "{stderr}");
    assert!(
        stderr.contains("hint:") && stderr.contains("`swarm sessions`"),
        "{stderr}"
    );
}

#[test]
fn down_stops_the_session_and_drops_its_agents() {
    let server = TmuxServer::start();
    let project = Project::new();
    swarm(&project, &server)
        .args([
            "launch",
            "2",
            "--agent",
            "demo",
            "--session",
            "gone",
            "--no-attach",
        ])
        .assert()
        .success();
    assert_eq!(project.agents().len(), 2);
    let out = swarm(&project, &server)
        .args(["down", "--session", "gone"])
        .output()
        .expect("run");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("2 agents left the registry"));
    assert!(project.agents().is_empty());
    let again = swarm(&project, &server)
        .args(["down", "--session", "gone"])
        .output()
        .expect("run");
    assert_eq!(again.status.code(), Some(4));
}
