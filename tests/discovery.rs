//! Discovery against real panes: which panes are agents, which ids they
//! get, and how the registry survives damage.

use crate::harness::{
    Project, TmuxServer, launch_demo, ok, outcome, stdout_json, swarm, swarm_bin,
};

fn ids(project: &Project) -> Vec<(String, String)> {
    project
        .agents()
        .into_iter()
        .map(|(id, pane, _)| (id, pane))
        .collect()
}

#[test]
fn agents_are_found_and_shells_are_not() {
    let server = TmuxServer::start();
    let project = Project::new();
    let a = server.demo_agent(&project.path(), &project.file("a.jsonl"));
    let _shell = server.shell(&project.path());
    let b = server.demo_agent(&project.path(), &project.file("b.jsonl"));
    let _other = server.pane(&project.path(), "sleep 86400");
    swarm(&project, &server).arg("discover").assert().success();
    assert_eq!(
        ids(&project),
        [
            ("agent-0".to_string(), a.clone()),
            ("agent-1".to_string(), b.clone())
        ]
    );
    assert_eq!(server.pane_option(&a, "@swarm_agent"), "agent-0");
    assert_eq!(server.pane_option(&b, "@swarm_agent"), "agent-1");
}

#[test]
fn agents_of_other_projects_are_left_out() {
    let server = TmuxServer::start();
    let project = Project::new();
    let elsewhere = Project::new();
    let mine = server.demo_agent(&project.path(), &project.file("a.jsonl"));
    server.demo_agent(&elsewhere.path(), &elsewhere.file("b.jsonl"));
    swarm(&project, &server).arg("discover").assert().success();
    assert_eq!(ids(&project), [("agent-0".to_string(), mine)]);
}

#[test]
fn ids_are_stable_and_never_reused() {
    let server = TmuxServer::start();
    let project = Project::new();
    let panes: Vec<String> = (0..3)
        .map(|i| server.demo_agent(&project.path(), &project.file(&format!("{i}.jsonl"))))
        .collect();
    swarm(&project, &server).arg("discover").assert().success();
    let first = ids(&project);
    swarm(&project, &server).arg("discover").assert().success();
    assert_eq!(ids(&project), first, "rediscovery changed ids");

    server.kill_pane(&panes[1]);
    swarm(&project, &server).arg("discover").assert().success();
    assert_eq!(
        ids(&project),
        [
            ("agent-0".to_string(), panes[0].clone()),
            ("agent-2".to_string(), panes[2].clone())
        ]
    );
    let newcomer = server.demo_agent(&project.path(), &project.file("new.jsonl"));
    swarm(&project, &server).arg("discover").assert().success();
    let now = ids(&project);
    assert_eq!(now.len(), 3);
    assert!(now.contains(&("agent-3".to_string(), newcomer)), "{now:?}");
}

#[test]
fn an_agent_that_exits_leaves_a_stale_entry_while_its_pane_lives() {
    let server = TmuxServer::start();
    let project = Project::new();
    // The agent runs under a shell that stays once it quits.
    let command = format!("'{}' demo-agent; exec bash --norc --noprofile", swarm_bin());
    let pane = server.pane(&project.path(), &command);
    server.wait_for_screen(&pane, "waiting for messages");
    swarm(&project, &server).arg("discover").assert().success();
    assert_eq!(
        project.agents(),
        [("agent-0".into(), pane.clone(), "active".into())]
    );
    server.tmux(&["send-keys", "-t", &pane, "C-c"]);
    crate::harness::wait_for("the demo agent to exit", || {
        let out = server.tmux(&[
            "display-message",
            "-p",
            "-t",
            &pane,
            "#{pane_current_command}",
        ]);
        (out.trim() == "bash").then_some(())
    });
    swarm(&project, &server).arg("discover").assert().success();
    assert_eq!(
        project.agents(),
        [("agent-0".into(), pane.clone(), "stale".into())]
    );
    // `agents` lists only active agents unless asked.
    let out = swarm(&project, &server)
        .args(["agents", "--json"])
        .output()
        .expect("run");
    assert_eq!(stdout_json(&out), serde_json::json!([]));
    let out = swarm(&project, &server)
        .args(["agents", "--json", "--all"])
        .output()
        .expect("run");
    assert_eq!(stdout_json(&out)[0]["status"], "stale");
}

/// The activity feed's lines of `kind` about `agent`.
fn feed_lines(project: &Project, kind: &str, agent: &str) -> Vec<serde_json::Value> {
    crate::harness::records(&project.file(".swarm/feed.jsonl"))
        .into_iter()
        .filter(|e| e["event"] == kind && e["agent"] == agent)
        .collect()
}

#[test]
fn an_agent_killed_and_found_stale_by_discover_is_reported_exited_once() {
    let server = TmuxServer::start();
    let project = Project::new();
    // The agent runs under a shell that is left at its prompt when the
    // agent dies; a second agent shows when the watcher has looked.
    let shell = server.demo_agent_from_shell(&project.path(), &project.file("a.jsonl"));
    let other = server.demo_agent(&project.path(), &project.file("b.jsonl"));
    swarm(&project, &server).arg("discover").assert().success();
    let id_of = |pane: &str| {
        ids(&project)
            .into_iter()
            .find(|(_, p)| p == pane)
            .map(|(id, _)| id)
            .expect("registered")
    };
    let (killed, alive) = (id_of(&shell), id_of(&other));

    let shell_pid = server.tmux(&["display-message", "-p", "-t", &shell, "#{pane_pid}"]);
    let out = std::process::Command::new("pgrep")
        .args(["-P", shell_pid.trim()])
        .output()
        .expect("pgrep");
    let agent_pid = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    assert!(!agent_pid.is_empty(), "no child of the shell {shell_pid}");
    let killed_it = std::process::Command::new("kill")
        .args(["-KILL", &agent_pid])
        .status()
        .expect("kill");
    assert!(killed_it.success());
    crate::harness::wait_for("the shell to reap the agent", || {
        (!std::path::Path::new(&format!("/proc/{agent_pid}")).exists()).then_some(())
    });

    // Discover at once: it finds the agent gone from its pane (stale) and
    // is the first to see it, so it raises `exited`.
    swarm(&project, &server).arg("discover").assert().success();
    assert_eq!(
        project
            .agents()
            .into_iter()
            .find(|a| a.0 == killed)
            .map(|a| a.2),
        Some("stale".to_owned())
    );
    let exited = feed_lines(&project, "exited", &killed);
    assert_eq!(exited.len(), 1, "{exited:?}");
    assert!(exited[0]["episode"].as_u64().is_some(), "{exited:?}");

    // A watcher round and another discover raise it no more.
    {
        let _watch = crate::harness::watcher::watch(&project, &server, &[]);
        server.type_line(&other, "work DEMOSLEEP1");
        crate::harness::wait_for("the watcher to see a turn end", || {
            (!feed_lines(&project, "finished", &alive).is_empty()).then_some(())
        });
    }
    swarm(&project, &server).arg("discover").assert().success();
    let exited = feed_lines(&project, "exited", &killed);
    assert_eq!(exited.len(), 1, "{exited:?}");
    assert!(feed_lines(&project, "exited", &alive).is_empty());
    assert!(feed_lines(&project, "left", &killed).len() <= 1);
}

#[test]
fn a_corrupt_registry_is_preserved_and_rebuilt_with_the_same_ids() {
    let server = TmuxServer::start();
    let project = Project::new();
    let a = server.demo_agent(&project.path(), &project.file("a.jsonl"));
    let b = server.demo_agent(&project.path(), &project.file("b.jsonl"));
    swarm(&project, &server).arg("discover").assert().success();
    let before = ids(&project);

    project.write("ACTIVE_AGENTS.json", "{\"agents\": [garbage");
    // Readers warn and carry on.
    let out = swarm(&project, &server)
        .arg("agents")
        .output()
        .expect("run");
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("damaged"));

    let out = swarm(&project, &server)
        .arg("discover")
        .output()
        .expect("run");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("warning") && stderr.contains("damaged"),
        "{stderr}"
    );
    // Same ids as before: the panes carry their labels.
    assert_eq!(ids(&project), before);
    assert_eq!(
        before.iter().map(|(_, p)| p.clone()).collect::<Vec<_>>(),
        [a, b]
    );
    // The damaged file was kept for inspection.
    let aside: Vec<String> = project
        .ls(".")
        .into_iter()
        .filter(|n| n.starts_with("ACTIVE_AGENTS.json.corrupt-"))
        .collect();
    assert_eq!(aside.len(), 1);
    assert_eq!(project.read(&aside[0]), "{\"agents\": [garbage");
}

#[test]
fn the_registry_has_the_python_shape() {
    let server = TmuxServer::start();
    let project = Project::new();
    server.demo_agent(&project.path(), &project.file("a.jsonl"));
    let out = swarm(&project, &server)
        .args(["discover", "--json"])
        .output()
        .expect("run");
    assert!(out.status.success());
    let file = project.read("ACTIVE_AGENTS.json");
    // What --json prints is the file (plus a newline).
    assert_eq!(String::from_utf8_lossy(&out.stdout), format!("{file}\n"));
    crate::harness::redacted(|| insta::assert_snapshot!("registry_file", file));
}

#[test]
fn an_agent_started_from_a_shell_is_found_through_its_parent() {
    let server = TmuxServer::start();
    let project = Project::new();
    // The pane's root process is a shell that stays; the agent is its
    // child and holds the terminal.
    let record = project.file("a.jsonl");
    let shell = server.demo_agent_from_shell(&project.path(), &record);
    swarm(&project, &server).arg("discover").assert().success();
    assert_eq!(ids(&project), [("agent-0".to_string(), shell.clone())]);
    // And a message reaches it through the same facts.
    swarm(&project, &server)
        .args([
            "msg",
            "agent-0",
            "INFO",
            "--from",
            "operator",
            "hello child",
        ])
        .assert()
        .success();
    let got = crate::harness::wait_for_records(&record, 1);
    assert!(
        got[0].to_string().contains("hello child"),
        "{got:?} ({} backend)",
        crate::harness::process_backend()
    );
}

#[test]
fn a_bad_process_backend_is_refused_with_the_choices() {
    let server = TmuxServer::start();
    let project = Project::new();
    server.demo_agent(&project.path(), &project.file("a.jsonl"));
    let out = swarm(&project, &server)
        .env("SWARM_PROCESS_BACKEND", "procps")
        .arg("discover")
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("invalid SWARM_PROCESS_BACKEND \"procps\"")
            && stderr.contains("expected auto, proc or portable"),
        "{stderr}"
    );
    assert!(!project.file("ACTIVE_AGENTS.json").exists());
}

#[test]
fn the_portable_backend_without_ps_says_what_is_missing() {
    let server = TmuxServer::start();
    let project = Project::new();
    server.demo_agent(&project.path(), &project.file("a.jsonl"));
    // A PATH with tmux on it and no ps.
    let bin = tempfile::tempdir().expect("tempdir");
    let tmux = swarm::find_on_path("tmux").expect("tmux on PATH");
    std::os::unix::fs::symlink(tmux, bin.path().join("tmux")).expect("symlink");
    let out = swarm(&project, &server)
        .env("SWARM_PROCESS_BACKEND", "portable")
        .env("PATH", bin.path())
        .arg("discover")
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("`ps` is not installed"), "{stderr}");
}

#[test]
fn discover_help_explains_the_process_backends() {
    let project = Project::new();
    let out = crate::harness::swarm_outside_tmux(&project)
        .args(["discover", "--help"])
        .output()
        .expect("run");
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("SWARM_PROCESS_BACKEND") && text.contains("portable"),
        "{text}"
    );
}

/// A registry listing `panes` (id, pane) as active agents, whatever runs
/// in them.
fn register_as_agents(project: &Project, server: &TmuxServer, panes: &[(&str, &str)]) {
    let agents: Vec<String> = panes
        .iter()
        .map(|(id, pane)| {
            let pid = server.tmux(&["display-message", "-p", "-t", pane, "#{pane_pid}"]);
            format!(
                r#"{{"id": "{id}", "pane_index": "harness:1.0", "pid": {}, "status": "active", "last_seen": "2026-11-21T00:00:00+00:00", "session_name": "harness", "tmux_pane_id": "{pane}"}}"#,
                pid.trim()
            )
        })
        .collect();
    project.write(
        "ACTIVE_AGENTS.json",
        &format!(
            r#"{{"session_name": "harness", "updated_at": "2026-11-21T00:00:00+00:00", "agents": [{}]}}"#,
            agents.join(", ")
        ),
    );
}

/// The reason `msg` gives for leaving a message to `agent` queued.
fn queued_reason(cmd: &mut assert_cmd::Command, agent: &str) -> String {
    let out = cmd
        .args([
            "msg", agent, "INFO", "--from", "operator", "--json", "hello",
        ])
        .output()
        .expect("run");
    assert_eq!(
        out.status.code(),
        Some(7),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout_json(&out)["outcomes"][agent]["reason"]
        .as_str()
        .expect("reason")
        .to_owned()
}

#[test]
fn the_foreground_decides_delivery_and_tmux_alone_recognises_a_shell() {
    let server = TmuxServer::start();
    let project = Project::new();
    let shell = server.shell(&project.path());
    let other = server.pane(&project.path(), "exec sleep 86400");
    register_as_agents(
        &project,
        &server,
        &[("agent-0", &shell), ("agent-1", &other)],
    );
    // Through this run's backend.
    let reason = queued_reason(&mut swarm(&project, &server), "agent-0");
    assert!(reason.contains("a shell (bash)"), "{reason}");
    let reason = queued_reason(&mut swarm(&project, &server), "agent-1");
    assert!(reason.contains("sleep is in the foreground"), "{reason}");
    // The portable backend with no ps: tmux's pane_current_command still
    // recognises the shell; anything else cannot be judged and waits.
    let bin = tempfile::tempdir().expect("tempdir");
    let tmux = swarm::find_on_path("tmux").expect("tmux on PATH");
    std::os::unix::fs::symlink(tmux, bin.path().join("tmux")).expect("symlink");
    let no_ps = || {
        let mut cmd = swarm(&project, &server);
        cmd.env("SWARM_PROCESS_BACKEND", "portable")
            .env("PATH", bin.path());
        cmd
    };
    let reason = queued_reason(&mut no_ps(), "agent-0");
    assert!(reason.contains("a shell (bash)"), "{reason}");
    let reason = queued_reason(&mut no_ps(), "agent-1");
    assert!(
        reason.contains("could not tell what runs") && reason.contains("`ps` is not installed"),
        "{reason}"
    );
}

#[test]
fn a_restarted_tmux_server_gets_new_agent_ids() {
    let server = TmuxServer::start();
    let project = Project::new();
    // Launch starts the server, as it does for a user with none running.
    server.tmux(&["kill-server"]);
    let first = launch_demo(&project, &server, 2, "team");
    assert_eq!(first[1].0, "agent-1");
    // A message goes in once the agent shows its input box.
    server.wait_for_screen(&first[1].1, "agent-1: swarm demo agent");
    ok(swarm(&project, &server).args(["msg", "agent-1", "INFO", "hello", "--from", "agent-0"]));
    ok(swarm(&project, &server).args(["lock", "src/a.py", "--agent", "agent-1"]));

    server.tmux(&["kill-server"]);
    let second = launch_demo(&project, &server, 2, "team");
    // tmux numbers the panes of the new server from %0 again...
    assert_eq!(
        second.iter().map(|(_, p)| p.as_str()).collect::<Vec<_>>(),
        first.iter().map(|(_, p)| p.as_str()).collect::<Vec<_>>()
    );
    // ...but they are new agents.
    let ids: Vec<&str> = second.iter().map(|(id, _)| id.as_str()).collect();
    assert_eq!(ids, ["agent-2", "agent-3"]);
    let registered: Vec<String> = project.agents().into_iter().map(|a| a.0).collect();
    assert_eq!(registered, ["agent-2", "agent-3"]);
    // The registry keeps the Python tool's exact keys.
    for agent in project.registry()["agents"].as_array().expect("agents") {
        let mut keys: Vec<&str> = agent
            .as_object()
            .expect("object")
            .keys()
            .map(String::as_str)
            .collect();
        keys.sort();
        assert_eq!(
            keys,
            [
                "id",
                "last_seen",
                "pane_index",
                "pid",
                "session_name",
                "status",
                "tmux_pane_id"
            ]
        );
    }
    // The new agent in the old agent-1's pane has none of its messages...
    let inbox = ok(swarm(&project, &server).args(["inbox", "--agent", "agent-3", "--json"]));
    assert!(
        !String::from_utf8_lossy(&inbox.stdout).contains("hello"),
        "{}",
        String::from_utf8_lossy(&inbox.stdout)
    );
    // ...and its lock is the old agent's, in the way like any other.
    let taken = swarm(&project, &server)
        .args(["lock", "src/a.py", "--agent", "agent-3"])
        .output()
        .expect("run");
    assert_eq!(taken.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&taken.stderr).contains("agent-1"));
}

#[test]
fn agents_on_a_server_without_them_names_the_socket_asked() {
    let server = TmuxServer::start();
    let project = Project::new();
    project.register(&["agent-0", "agent-1"]);
    let socket = server
        .tmux(&["display-message", "-p", "#{socket_path}"])
        .trim()
        .to_owned();
    let (code, stdout, stderr) = outcome(swarm(&project, &server).arg("agents"));
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        stdout.contains("agent-0") && stdout.contains("gone"),
        "{stdout}"
    );
    assert!(
        stderr.contains(&socket) && stderr.contains("none of the 2 agents"),
        "{stderr}"
    );
    // Agents that are there: no such word.
    let project = Project::new();
    launch_demo(&project, &server, 1, "team");
    let (_, _, stderr) = outcome(swarm(&project, &server).arg("agents"));
    assert!(!stderr.contains(&socket), "{stderr}");
}
