//! `swarm sessions` and `swarm resume` against a private tmux server: a
//! swarm of demo agents whose server is killed, whose panes close, or
//! which `swarm down` stops, brought back with the same ids.

use std::process::Output;

#[cfg(feature = "redis")]
use crate::harness::redis_server::RedisServer;
use crate::harness::{Project, TmuxServer, records, stdout_json, swarm, wait_for};

/// Runs `swarm ARGS` and fails the test unless it exits with `code`.
fn run(project: &Project, server: &TmuxServer, args: &[&str], code: i32) -> Output {
    let out = swarm(project, server).args(args).output().expect("run");
    assert_eq!(
        out.status.code(),
        Some(code),
        "swarm {args:?}: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// Launches `n` demo agents in session `name` and waits until each has
/// drawn its prompt; returns their (id, pane).
fn launch(project: &Project, server: &TmuxServer, name: &str, n: &str) -> Vec<(String, String)> {
    let out = run(
        project,
        server,
        &[
            "launch",
            n,
            "--agent",
            "demo",
            "--session",
            name,
            "--no-attach",
            "--json",
        ],
        0,
    );
    launched(&out, server)
}

/// The (id, pane) of each agent a `launch --json` reported, once each has
/// drawn its prompt.
fn launched(out: &Output, server: &TmuxServer) -> Vec<(String, String)> {
    let agents: Vec<(String, String)> = stdout_json(out)["agents"]
        .as_array()
        .expect("agents")
        .iter()
        .map(|a| {
            (
                a["id"].as_str().expect("id").to_owned(),
                a["pane"].as_str().expect("pane").to_owned(),
            )
        })
        .collect();
    for (_, pane) in &agents {
        server.wait_for_screen(pane, "waiting for messages");
    }
    agents
}

/// `swarm sessions --json`'s session `name`.
fn session(project: &Project, server: &TmuxServer, name: &str) -> serde_json::Value {
    let out = run(project, server, &["sessions", "--json"], 0);
    stdout_json(&out)["sessions"]
        .as_array()
        .expect("sessions")
        .iter()
        .find(|s| s["name"] == name)
        .cloned()
        .unwrap_or_else(|| panic!("no session {name}"))
}

/// The conversation file of agent `id` of session `name` (the demo agent
/// keeps one per conversation id).
fn conversation(
    project: &Project,
    server: &TmuxServer,
    name: &str,
    id: &str,
) -> std::path::PathBuf {
    let s = session(project, server, name);
    let agent = s["agents"]
        .as_array()
        .expect("agents")
        .iter()
        .find(|a| a["id"] == id)
        .cloned()
        .expect("agent");
    let conv = agent["conversation"].as_str().expect("a conversation id");
    project.file(&format!(".swarm/demo/{conv}.jsonl"))
}

/// How many submissions of the conversation file hold `text`.
fn received(path: &std::path::Path, text: &str) -> usize {
    if !path.exists() {
        return 0;
    }
    records(path)
        .iter()
        .filter(|r| r["text"].as_str().is_some_and(|t| t.contains(text)))
        .count()
}

/// The live pane labelled with agent `id`, if any.
fn pane_of(server: &TmuxServer, id: &str) -> Option<String> {
    server
        .try_tmux(&[
            "list-panes",
            "-a",
            "-F",
            "#{pane_id} #{@swarm_agent} #{pane_dead}",
        ])
        .stdout
        .split(|b| *b == b'\n')
        .map(|l| String::from_utf8_lossy(l).into_owned())
        .find_map(|l| {
            let mut w = l.split(' ');
            let (pane, agent, dead) = (w.next()?, w.next()?, w.next()?);
            (agent == id && dead == "0").then(|| pane.to_owned())
        })
}

/// Who holds the lock on `path` (`None`: nobody).
fn holder(project: &Project, server: &TmuxServer, path: &str) -> Option<String> {
    let out = run(project, server, &["locks", "--json"], 0);
    stdout_json(&out)
        .as_array()
        .expect("locks")
        .iter()
        .find(|l| l["filepath"].as_str().is_some_and(|f| f.ends_with(path)))
        .and_then(|l| l["agent_id"].as_str().map(str::to_owned))
}

#[test]
fn a_crashed_swarm_comes_back_with_its_ids_lock_and_queued_message_once() {
    let server = TmuxServer::start();
    let project = Project::new();
    launch(&project, &server, "crew", "2");
    run(
        &project,
        &server,
        &[
            "msg",
            "agent-1",
            "INFO",
            "before the crash",
            "--from",
            "agent-0",
        ],
        0,
    );
    let conv = conversation(&project, &server, "crew", "agent-1");
    wait_for("the first message", || {
        (received(&conv, "before the crash") == 1).then_some(())
    });
    run(
        &project,
        &server,
        &["lock", "src/a.py", "--agent", "agent-1", "--reason", "mine"],
        0,
    );

    let asked = run(
        &project,
        &server,
        &[
            "msg",
            "agent-1",
            "QUESTION",
            "answer me",
            "--ack",
            "--ack-timeout",
            "600",
            "--from",
            "agent-0",
            "--json",
        ],
        0,
    );
    let asked = stdout_json(&asked)["msg_id"]
        .as_str()
        .expect("msg_id")
        .to_owned();

    // The tmux server dies under the swarm.
    server.tmux(&["kill-server"]);
    assert_eq!(session(&project, &server, "crew")["state"], "stopped");
    run(
        &project,
        &server,
        &[
            "msg",
            "agent-1",
            "INFO",
            "sent while down",
            "--from",
            "agent-0",
        ],
        7,
    );

    let out = run(&project, &server, &["resume", "--no-attach", "--json"], 0);
    let report = stdout_json(&out);
    assert_eq!(report["session"], "crew");
    assert_eq!(report["was"], "stopped");
    let ids: Vec<&str> = report["agents"]
        .as_array()
        .expect("agents")
        .iter()
        .map(|a| a["id"].as_str().expect("id"))
        .collect();
    assert_eq!(ids, ["agent-0", "agent-1"]);
    assert!(
        report["agents"]
            .as_array()
            .expect("agents")
            .iter()
            .all(|a| a["resumed"] == true),
        "{report}"
    );
    // The same ids on live panes, registered as such.
    for id in ["agent-0", "agent-1"] {
        let pane = pane_of(&server, id).expect("a live pane");
        assert!(
            project
                .agents()
                .iter()
                .any(|(a, p, status)| a == id && *p == pane && status == "active"),
            "{id}: {:?}",
            project.agents()
        );
    }
    // Its conversation carries on, the lock is still its own, and the
    // message queued while it was down arrived once.
    let pane = pane_of(&server, "agent-1").expect("pane");
    server.wait_for_screen(&pane, "resumed conversation");
    assert_eq!(
        holder(&project, &server, "src/a.py").as_deref(),
        Some("agent-1")
    );
    wait_for("the queued message", || {
        (received(&conv, "sent while down") == 1).then_some(())
    });
    // Nothing types it in a second time.
    run(&project, &server, &["redeliver", "--all-queued"], 0);
    let again = run(&project, &server, &["resume", "crew"], 0);
    assert!(
        String::from_utf8_lossy(&again.stdout).contains("is running"),
        "{again:?}"
    );
    assert_eq!(received(&conv, "sent while down"), 1);
    assert_eq!(received(&conv, "before the crash"), 1);
    // Its pending acknowledgement carried on, and it can give it.
    let pending = stdout_json(&run(&project, &server, &["acks", "--json"], 0));
    assert!(
        pending
            .as_array()
            .expect("pending")
            .iter()
            .any(|p| p["msg_id"] == asked.as_str() && p["recipient"] == "agent-1"),
        "{pending}"
    );
    run(&project, &server, &["ack", &asked, "--agent", "agent-1"], 0);
    let pending = stdout_json(&run(&project, &server, &["acks", "--json"], 0));
    assert_eq!(pending, serde_json::json!([]));
    assert_eq!(session(&project, &server, "crew")["state"], "running");
}

#[test]
fn down_after_the_server_died_says_so_rather_than_that_it_stopped_it() {
    let server = TmuxServer::start();
    let project = Project::new();
    launch(&project, &server, "lost", "1");
    server.tmux(&["kill-server"]);
    let out = run(&project, &server, &["down", "--session", "lost"], 0);
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        said.contains("Its tmux server had already stopped; marked stopped: session lost"),
        "{said}"
    );
    assert!(!said.contains("Stopped tmux session"), "{said}");
    assert_eq!(session(&project, &server, "lost")["state"], "stopped");
}

#[test]
fn a_partly_running_session_resumes_only_its_missing_agents() {
    let server = TmuxServer::start();
    let project = Project::new();
    let agents = launch(&project, &server, "half", "2");
    server.kill_pane(&agents[1].1);
    wait_for("agent-1's pane to close", || {
        pane_of(&server, "agent-1").is_none().then_some(())
    });
    let s = session(&project, &server, "half");
    assert_eq!(s["state"], "partly_running");
    assert_eq!(s["agents"][0]["running"], true);
    assert_eq!(s["agents"][1]["running"], false);

    let out = run(
        &project,
        &server,
        &["resume", "half", "--no-attach", "--json"],
        0,
    );
    let report = stdout_json(&out);
    assert_eq!(report["was"], "partly_running");
    assert_eq!(report["new_session"], false);
    let back: Vec<&str> = report["agents"]
        .as_array()
        .expect("agents")
        .iter()
        .map(|a| a["id"].as_str().expect("id"))
        .collect();
    assert_eq!(back, ["agent-1"]);
    // agent-0 kept its pane; agent-1 has a new one in the same window.
    assert_eq!(
        pane_of(&server, "agent-0").as_deref(),
        Some(agents[0].1.as_str())
    );
    let new = pane_of(&server, "agent-1").expect("agent-1 back");
    assert_ne!(new, agents[1].1);
    assert_eq!(server.pane_option(&new, "session_name"), "half");
    assert_eq!(session(&project, &server, "half")["state"], "running");
}

#[test]
fn resuming_a_running_session_says_so_and_changes_nothing() {
    let server = TmuxServer::start();
    let project = Project::new();
    let agents = launch(&project, &server, "busy", "1");
    let before = project.read("ACTIVE_AGENTS.json");
    let out = run(&project, &server, &["resume", "--no-attach"], 0);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("Session busy is running"), "{text}");
    assert_eq!(
        pane_of(&server, "agent-0").as_deref(),
        Some(agents[0].1.as_str())
    );
    assert_eq!(project.read("ACTIVE_AGENTS.json"), before);
    assert_eq!(server.pane_ids().len(), 2, "the harness pane and the agent");
}

#[test]
fn down_keeps_the_record_and_resume_brings_the_agents_back_without_their_locks() {
    let server = TmuxServer::start();
    let project = Project::new();
    launch(&project, &server, "day", "1");
    run(
        &project,
        &server,
        &["lock", "notes.md", "--agent", "agent-0"],
        0,
    );
    let out = run(&project, &server, &["down", "--session", "day"], 0);
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("swarm resume day"),
        "{out:?}"
    );
    let s = session(&project, &server, "day");
    assert_eq!(
        (s["state"].as_str(), s["recorded_state"].as_str()),
        (Some("stopped"), Some("stopped"))
    );
    assert_eq!(holder(&project, &server, "notes.md"), None);
    // A message to the stopped agent waits for it.
    run(
        &project,
        &server,
        &["msg", "agent-0", "INFO", "for tomorrow"],
        7,
    );

    run(&project, &server, &["resume", "day", "--no-attach"], 0);
    let pane = pane_of(&server, "agent-0").expect("agent-0 back");
    server.wait_for_screen(&pane, "resumed conversation");
    assert_eq!(holder(&project, &server, "notes.md"), None);
    let conv = conversation(&project, &server, "day", "agent-0");
    wait_for("the message sent while stopped", || {
        (received(&conv, "for tomorrow") == 1).then_some(())
    });
    assert_eq!(
        session(&project, &server, "day")["recorded_state"],
        "running"
    );
    // The record stays ACTIVE_AGENTS.json's own shape: nothing new in it.
    let registry = project.registry();
    let keys: Vec<&String> = registry["agents"][0]
        .as_object()
        .expect("agent")
        .keys()
        .collect();
    assert!(
        !keys
            .iter()
            .any(|k| k.contains("conversation") || k.contains("kind")),
        "{keys:?}"
    );
}

#[test]
fn an_agent_that_cannot_resume_starts_afresh_and_is_told_what_it_had() {
    let server = TmuxServer::start();
    let project = Project::new();
    let record = project.file("own.jsonl");
    let command = format!(
        "'{}' demo-agent --name-from-label --record '{}'",
        crate::harness::swarm_bin(),
        record.display()
    );
    let out = run(
        &project,
        &server,
        &[
            "launch",
            "1",
            "--cmd",
            &command,
            "--session",
            "own",
            "--no-attach",
            "--json",
        ],
        0,
    );
    launched(&out, &server);
    assert_eq!(
        session(&project, &server, "own")["agents"][0]["kind"],
        "custom"
    );
    run(
        &project,
        &server,
        &["lock", "db.sql", "--agent", "agent-0"],
        0,
    );
    server.tmux(&["kill-server"]);

    let out = run(
        &project,
        &server,
        &["resume", "own", "--no-attach", "--json"],
        0,
    );
    let report = stdout_json(&out);
    assert_eq!(report["agents"][0]["resumed"], false, "{report}");
    let pane = pane_of(&server, "agent-0").expect("agent-0 back");
    server.wait_for_screen(&pane, "locks held: db.sql");
    let screen = server.capture(&pane);
    assert!(screen.contains("without your earlier"), "{screen}");
    // Submitted once (a long line may show twice on screen, wrapped).
    wait_for("the summary's submission", || {
        (received(&record, "swarm resumed session own") == 1).then_some(())
    });
}

#[test]
fn forget_drops_a_stopped_record_and_refuses_a_running_one() {
    let server = TmuxServer::start();
    let project = Project::new();
    launch(&project, &server, "temp", "1");
    run(&project, &server, &["sessions", "--forget", "temp"], 1);
    run(&project, &server, &["down", "--session", "temp"], 0);
    run(&project, &server, &["sessions", "--forget", "temp"], 0);
    let out = run(&project, &server, &["sessions", "--json"], 0);
    assert_eq!(stdout_json(&out)["sessions"], serde_json::json!([]));
    run(&project, &server, &["resume", "temp", "--no-attach"], 4);
    run(&project, &server, &["sessions", "--forget", "temp"], 4);
    // With nothing recorded, resume says what records a session.
    let out = run(&project, &server, &["resume", "--no-attach"], 4);
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("swarm launch"),
        "{out:?}"
    );
}

#[cfg(feature = "redis")]
#[test]
fn the_session_record_lives_in_the_redis_store_when_configured() {
    let redis = RedisServer::start();
    let server = TmuxServer::start();
    let project = Project::new();
    let on_redis = |args: &[&str], code: i32| {
        let out = swarm(&project, &server)
            .envs(redis.store_env("resumed"))
            .env("SWARM_STORE_HOST", "h1")
            .args(args)
            .output()
            .expect("run");
        assert_eq!(
            out.status.code(),
            Some(code),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        out
    };
    let out = on_redis(
        &[
            "launch",
            "1",
            "--agent",
            "demo",
            "--session",
            "net",
            "--no-attach",
            "--json",
        ],
        0,
    );
    launched(&out, &server);
    assert!(!project.file(".swarm/sessions.json").exists());
    let mut conn = redis.connection();
    let stored: Option<String> = redis::cmd("HGET")
        .arg("{swarm:resumed}:sessions")
        .arg("net")
        .query(&mut conn)
        .expect("HGET");
    let stored: serde_json::Value = serde_json::from_str(&stored.expect("recorded")).expect("json");
    assert_eq!(stored["agents"][0]["id"], "agent-0");
    assert_eq!(stored["host"], "h1");

    server.tmux(&["kill-server"]);
    let out = on_redis(&["resume", "--no-attach", "--json"], 0);
    assert_eq!(stdout_json(&out)["agents"][0]["resumed"], true);
    let pane = pane_of(&server, "agent-0").expect("agent-0 back");
    server.wait_for_screen(&pane, "resumed conversation");
    let out = on_redis(&["sessions", "--json"], 0);
    assert_eq!(stdout_json(&out)["sessions"][0]["state"], "running");
}

#[test]
fn an_agent_whose_conversation_is_gone_starts_afresh_with_a_new_one() {
    let server = TmuxServer::start();
    let project = Project::new();
    launch(&project, &server, "lost", "2");
    run(
        &project,
        &server,
        &["lock", "x.py", "--agent", "agent-1"],
        0,
    );
    let old = conversation(&project, &server, "lost", "agent-1");
    server.tmux(&["kill-server"]);
    std::fs::remove_file(&old).expect("remove the conversation");

    let out = run(
        &project,
        &server,
        &["resume", "lost", "--no-attach", "--json"],
        0,
    );
    let report = stdout_json(&out);
    assert_eq!(report["agents"][0]["resumed"], true, "{report}");
    assert_eq!(report["agents"][1]["resumed"], false, "{report}");
    let pane = pane_of(&server, "agent-1").expect("agent-1 back");
    server.wait_for_screen(&pane, "locks held: x.py");
    // Its new conversation is recorded, and holds the one message.
    let new = conversation(&project, &server, "lost", "agent-1");
    assert_ne!(new, old);
    wait_for("the summary in the new conversation", || {
        (received(&new, "swarm resumed session lost") == 1).then_some(())
    });
    assert_eq!(
        holder(&project, &server, "x.py").as_deref(),
        Some("agent-1")
    );
}

#[test]
fn down_after_a_crash_stops_the_session_for_good_and_releases_its_locks() {
    let server = TmuxServer::start();
    let project = Project::new();
    launch(&project, &server, "gone", "1");
    run(
        &project,
        &server,
        &["lock", "y.py", "--agent", "agent-0"],
        0,
    );
    server.tmux(&["kill-server"]);
    run(&project, &server, &["down", "--session", "gone"], 0);
    assert_eq!(holder(&project, &server, "y.py"), None);
    assert_eq!(
        session(&project, &server, "gone")["recorded_state"],
        "stopped"
    );
    // A session that was never recorded is still an error.
    run(&project, &server, &["down", "--session", "never"], 4);
    run(&project, &server, &["resume", "gone", "--no-attach"], 0);
    assert!(pane_of(&server, "agent-0").is_some());
    assert_eq!(holder(&project, &server, "y.py"), None);
}
