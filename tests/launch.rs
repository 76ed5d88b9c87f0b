//! `swarm launch` against a private server (`swarm down`: tests/down.rs).

use crate::harness::{Project, TmuxServer, ok, outcome, stdout_json, swarm};

#[test]
fn launch_four_then_discover_finds_exactly_four() {
    let server = TmuxServer::start();
    let project = Project::new();
    let out = swarm(&project, &server)
        .args([
            "launch",
            "4",
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
    let report = stdout_json(&out);
    let launched: Vec<(String, String)> = report["agents"]
        .as_array()
        .expect("agents")
        .iter()
        .map(|a| {
            (
                a["id"].as_str().expect("id").into(),
                a["pane"].as_str().expect("pane").into(),
            )
        })
        .collect();
    let expected_ids = ["agent-0", "agent-1", "agent-2", "agent-3"];
    assert_eq!(
        launched
            .iter()
            .map(|(id, _)| id.as_str())
            .collect::<Vec<_>>(),
        expected_ids
    );

    // Wait for the agents to be up, then discover from scratch.
    for (_, pane) in &launched {
        server.wait_for_screen(pane, "waiting for messages");
    }
    swarm(&project, &server).arg("discover").assert().success();
    let agents = project.agents();
    assert_eq!(agents.len(), 4);
    for ((id, pane), (rid, rpane, status)) in launched.iter().zip(&agents) {
        assert_eq!((id, pane, status.as_str()), (rid, rpane, "active"));
        // Each pane is labelled: option, title, and the border shows it.
        assert_eq!(&server.pane_option(pane, "@swarm_agent"), id);
        assert_eq!(&server.pane_option(pane, "pane_title"), id);
    }
    assert_eq!(
        server
            .tmux(&[
                "show-options",
                "-w",
                "-v",
                "-t",
                "team:",
                "pane-border-status"
            ])
            .trim(),
        "top"
    );
    // Panes read left to right in launch order.
    let order = server.tmux(&["list-panes", "-t", "team:", "-F", "#{@swarm_agent}"]);
    assert_eq!(order.lines().collect::<Vec<_>>(), expected_ids);
}

#[test]
fn launch_refuses_an_existing_session_unless_forced() {
    let server = TmuxServer::start();
    let project = Project::new();
    let launch = |extra: &[&str]| {
        let mut cmd = swarm(&project, &server);
        cmd.args([
            "launch",
            "1",
            "--agent",
            "demo",
            "--session",
            "dup",
            "--no-attach",
        ])
        .args(extra);
        cmd.output().expect("run")
    };
    assert!(launch(&[]).status.success());
    let again = launch(&[]);
    assert_eq!(again.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&again.stderr);
    assert!(
        stderr.contains("\"dup\" already exists") && stderr.contains("--force"),
        "{stderr}"
    );
    let forced = launch(&["--force"]);
    assert!(
        forced.status.success(),
        "{}",
        String::from_utf8_lossy(&forced.stderr)
    );
    // The replaced pane's agent left; the new one has a fresh id.
    let agents = project.agents();
    assert_eq!(agents.iter().filter(|a| a.2 == "active").count(), 1);
    assert_eq!(agents[0].0, "agent-1");
}

#[test]
fn launch_without_claude_suggests_the_demo_agent() {
    let server = TmuxServer::start();
    let project = Project::new();
    // A PATH with tmux but without claude.
    let bin = project.file("bin");
    std::fs::create_dir(&bin).expect("mkdir");
    let tmux = swarm::find_on_path("tmux").expect("tmux on PATH");
    std::os::unix::fs::symlink(tmux, bin.join("tmux")).expect("symlink");
    let out = swarm(&project, &server)
        .env("PATH", &bin)
        .args(["launch", "2", "--no-attach"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("`claude` is not installed"), "{stderr}");
    assert!(stderr.contains("swarm launch 2 --agent demo"), "{stderr}");
    assert!(
        server
            .try_tmux(&["has-session", "-t", "=swarm-x"])
            .status
            .code()
            != Some(0)
    );
}

#[test]
fn launch_validates_its_arguments() {
    let server = TmuxServer::start();
    let project = Project::new();
    for (args, code) in [
        (vec!["launch", "0", "--agent", "demo"], 2),
        (vec!["launch", "17", "--agent", "demo"], 2),
        (
            vec!["launch", "2", "--agent", "demo", "--layout", "spiral"],
            2,
        ),
        (vec!["launch", "2", "--agent", "demo", "--cmd", "x"], 2),
        (
            vec!["launch", "2", "--agent", "demo", "--session", "a.b"],
            1,
        ),
        (vec!["launch", "2", "--cmd", "  "], 1),
    ] {
        let out = swarm(&project, &server)
            .args(&args)
            .arg("--no-attach")
            .output()
            .expect("run");
        assert_eq!(
            out.status.code(),
            Some(code),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    assert!(!project.file("ACTIVE_AGENTS.json").exists());
}

#[test]
fn launch_outside_a_project_says_where_it_keeps_its_state() {
    let server = TmuxServer::start();
    let project = Project::new();
    std::fs::remove_dir(project.file(".git")).expect("remove the marker");
    let out = ok(swarm(&project, &server).args([
        "launch",
        "1",
        "--cmd",
        "sleep 600",
        "--session",
        "demo",
        "--no-attach",
    ]));
    let stderr = String::from_utf8_lossy(&out.stderr);
    let dir = project.path().display().to_string();
    assert!(
        stderr.starts_with("swarm: warning: no project marker")
            && stderr.contains(&dir)
            && stderr.contains("--root")
            && stderr.contains("git init"),
        "{stderr}"
    );
    // It went on.
    assert_eq!(project.agents().len(), 1);
}

#[test]
fn launching_too_many_agents_says_the_limit() {
    let server = TmuxServer::start();
    let project = Project::new();
    let (code, _, stderr) =
        outcome(swarm(&project, &server).args(["launch", "20", "--agent", "demo"]));
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("at most 16 agents"), "{stderr}");
    assert!(stderr.contains("`swarm help launch`"), "{stderr}");
}
