//! The agents' own hooks through real tmux: the demo agent runs `swarm
//! hook <agent>` as the real agents run their hooks (`SWARM_DEMO_HOOKS`),
//! in its pane, so the hook acts as the pane's agent. Its dialog is raised
//! once, by the hook, and the screen's look at it raises nothing more; its
//! turn's end is `finished` from the hook; a message it takes is
//! confirmed by its prompt hook, busy or not. The hook fails open.

use crate::harness::watcher::watch;
use crate::harness::{
    Project, TmuxServer, records, run_hook, stdout_json, swarm, swarm_bin, wait_for,
};

/// A demo agent in a new pane whose hooks are `agent`'s, discovered as
/// agent-0; its pane.
fn hooked_agent(server: &TmuxServer, project: &Project, agent: &str) -> String {
    let command = format!(
        "exec env SWARM_DEMO_HOOKS={agent} SWARM_WATCHER_AUTOSTART=false \
         XDG_CONFIG_HOME='{}' '{}' demo-agent --record '{}'",
        project.file(".user-config").display(),
        swarm_bin(),
        project.file("rec0.jsonl").display()
    );
    let pane = server.pane(&project.path(), &command);
    server.wait_for_screen(&pane, "waiting for messages");
    swarm(project, server).arg("discover").assert().success();
    pane
}

fn feed(project: &Project, kind: &str) -> Vec<serde_json::Value> {
    records(&project.file(".swarm/feed.jsonl"))
        .into_iter()
        .filter(|e| e["event"] == kind)
        .collect()
}

fn wait_for_feed(project: &Project, kind: &str, n: usize) -> Vec<serde_json::Value> {
    wait_for(&format!("{n} {kind} line(s) in the feed"), || {
        let got = feed(project, kind);
        (got.len() >= n).then_some(got)
    })
}

/// The episode record of agent-0's `kind`.
fn episode(project: &Project, kind: &str) -> serde_json::Value {
    let text = std::fs::read_to_string(project.file(".swarm/episodes.json")).unwrap_or_default();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap_or_default();
    v["agents"]["agent-0"][kind].clone()
}

#[test]
fn a_dialog_is_raised_once_by_the_hook_and_the_turn_ends_from_the_hook() {
    let server = TmuxServer::start();
    let project = Project::new();
    let pane = hooked_agent(&server, &project, "claude");

    server.type_line(&pane, "please DEMOASK");
    let asked = wait_for_feed(&project, "needs_input", 1);
    assert_eq!(asked[0]["source"], "hook", "{:?}", asked[0]);
    assert_eq!(asked[0]["agent"], "agent-0");
    assert_eq!(asked[0]["episode"], 1);
    assert_eq!(asked[0]["detail"], "Allow Bash?");
    assert_eq!(asked[0]["context"][0], "$ demo");
    server.wait_for_screen(&pane, "Do you want to proceed?");

    // The watcher looks at the same dialog: it takes the hook's episode
    // over (its record now goes by the screen's key), raising nothing.
    let _w = watch(&project, &server, &[]);
    wait_for("the screen's look at the dialog", || {
        let e = episode(&project, "needs_input");
        (e["open"] == true && !e["key"].as_str().unwrap_or("hook:").starts_with("hook:"))
            .then_some(())
    });
    assert_eq!(feed(&project, "needs_input").len(), 1);

    // `swarm answer` still works; the turn then ends, and the hook says so.
    swarm(&project, &server)
        .args(["answer", "agent-0", "yes"])
        .assert()
        .success();
    let done = wait_for_feed(&project, "finished", 1);
    assert_eq!(done[0]["source"], "hook", "{:?}", done[0]);
    wait_for("the dialog's episode closed", || {
        (episode(&project, "needs_input")["open"] == false).then_some(())
    });
    // A second dialog is a second episode, from the hook again.
    server.type_line(&pane, "again DEMOASK");
    let asked = wait_for_feed(&project, "needs_input", 2);
    assert_eq!(asked[1]["episode"], 2);
    assert_eq!(asked[1]["source"], "hook");

    // `swarm agents --json` says which source tells swarm about it.
    let out = swarm(&project, &server)
        .args(["agents", "--json"])
        .output()
        .expect("agents");
    let agents = stdout_json(&out);
    assert_eq!(agents[0]["attention_source"], "hook", "{agents}");
    // So does `swarm doctor`.
    let out = swarm(&project, &server)
        .args(["doctor", "--json"])
        .output()
        .expect("doctor");
    let doctor = stdout_json(&out);
    let check = doctor["checks"]
        .as_array()
        .expect("checks")
        .iter()
        .find(|c| c["check"] == "attention sources")
        .cloned()
        .expect("an attention sources check");
    assert_eq!(check["status"], "ok", "{check}");
    assert!(
        check["details"][0]
            .as_str()
            .is_some_and(|d| d.starts_with("agent-0: hook: Claude Code hooks report")),
        "{check}"
    );
}

#[test]
fn deliveries_are_confirmed_by_the_recipient_s_prompt_hook_busy_or_not() {
    let server = TmuxServer::start();
    let project = Project::new();
    let pane = hooked_agent(&server, &project, "codex");
    // Its prompt hook is seen once: from then on a sender waits for it.
    server.type_line(&pane, "hello");
    wait_for("the prompt hook seen", || {
        std::fs::read_to_string(project.file(".swarm/hook_sightings.json"))
            .unwrap_or_default()
            .contains("\"prompt\"")
            .then_some(())
    });

    let out = swarm(&project, &server)
        .args(["msg", "agent-0", "INFO", "confirm me", "--json"])
        .output()
        .expect("msg");
    assert!(out.status.success(), "{out:?}");
    let sent = stdout_json(&out);
    let outcome = &sent["outcomes"]["agent-0"];
    assert_eq!(outcome["status"], "delivered", "{sent}");
    assert_eq!(outcome["confirmed_by"], "hook", "{sent}");
    let id = sent["msg_id"].as_str().expect("msg_id").to_owned();
    assert!(hook_confirmed(&project, &id));

    // Busy: accepted, and confirmed only once the agent takes it.
    server.type_line(&pane, "work DEMOSLEEP2");
    server.wait_for_screen(&pane, "working");
    let out = swarm(&project, &server)
        .args(["msg", "agent-0", "INFO", "while busy", "--json"])
        .output()
        .expect("msg");
    let sent = stdout_json(&out);
    let id = sent["msg_id"].as_str().expect("msg_id").to_owned();
    assert_ne!(
        sent["outcomes"]["agent-0"]["confirmed_by"], "hook",
        "not taken yet: {sent}"
    );
    let _w = watch(&project, &server, &[]);
    wait_for("the busy agent's hook confirmed it", || {
        hook_confirmed(&project, &id).then_some(())
    });
}

/// Whether the log records agent-0's prompt hook confirming `msg_id` as
/// delivered (a sender's own later record of it does not undo that).
fn hook_confirmed(project: &Project, msg_id: &str) -> bool {
    records(&project.file("agent_messages.log"))
        .into_iter()
        .filter(|r| r["event"] == "delivery" && r["msg_id"] == msg_id)
        .filter_map(|r| r["outcomes"].get("agent-0").cloned())
        .any(|o| o["confirmed_by"] == "hook" && o["status"] == "delivered")
}

#[test]
fn the_hook_fails_open_and_says_nothing_on_stdout() {
    let server = TmuxServer::start();
    let project = Project::new();
    let pane = server.demo_agent(&project.path(), &project.file("rec0.jsonl"));
    swarm(&project, &server).arg("discover").assert().success();
    let stop = br#"{"hook_event_name": "Stop", "session_id": "s", "cwd": "/x"}"#;
    for (agent, pane, input) in [
        ("claude", Some(pane.as_str()), &b"{ not json"[..]),
        ("claude", Some(pane.as_str()), &b"\xff\xfe\x00"[..]),
        ("gemini", Some(pane.as_str()), &b"[1, 2]"[..]),
        ("nobody", Some(pane.as_str()), &stop[..]),
        // Outside an agent's pane there is nothing to do.
        ("codex", None, &stop[..]),
        // A pane that is no agent's.
        ("codex", Some("%999"), &stop[..]),
    ] {
        let out = run_hook(&project, &server, agent, pane, input);
        assert!(out.status.success(), "{agent} {input:?}: {out:?}");
        assert!(out.stdout.is_empty(), "{agent}: {out:?}");
    }
    assert!(feed(&project, "finished").is_empty());
    let errors = records(&project.file(".swarm/hook_errors.log"));
    assert_eq!(errors.len(), 3, "{errors:?}");
    assert!(
        errors[0]["error"]
            .as_str()
            .expect("error")
            .contains("not JSON")
    );

    // In the agent's pane, an end of turn is raised as its own.
    let out = run_hook(&project, &server, "codex", Some(&pane), stop);
    assert!(out.status.success() && out.stdout.is_empty(), "{out:?}");
    let done = feed(&project, "finished");
    assert_eq!(done.len(), 1);
    assert_eq!(done[0]["source"], "hook");
    // A turn failure carries the reason the agent's hook gave.
    let failed = br#"{"hook_event_name": "StopFailure", "error": "rate_limit", "last_assistant_message": "API Error: 429"}"#;
    run_hook(&project, &server, "claude", Some(&pane), failed);
    let f = feed(&project, "turn_failed");
    assert_eq!(f.len(), 1);
    assert_eq!(f[0]["detail"], "rate_limit: API Error: 429");
    assert_eq!(f[0]["source"], "hook");
}

#[test]
fn hooks_install_and_uninstall_leave_other_settings_alone() {
    let server = TmuxServer::start();
    let project = Project::new();
    let gemini = "{\n  \"theme\": \"dark\"\n}\n";
    std::fs::create_dir_all(project.file(".gemini")).expect("mkdir");
    project.write(".gemini/settings.json", gemini);
    let out = swarm(&project, &server)
        .args(["hooks", "install", "--gemini", "--codex", "--json"])
        .output()
        .expect("install");
    assert!(out.status.success(), "{out:?}");
    let done = stdout_json(&out);
    assert_eq!(done[0]["agent"], "codex");
    assert_eq!(done[0]["changed"].as_array().map(Vec::len), Some(3));
    assert_eq!(done[1]["agent"], "gemini");
    let settings = project.read(".gemini/settings.json");
    assert!(settings.contains("hook gemini") && settings.contains("\"theme\""));
    assert!(project.read(".codex/hooks.json").contains("hook codex"));
    swarm(&project, &server)
        .args(["hooks", "uninstall", "--gemini", "--codex"])
        .assert()
        .success();
    assert_eq!(project.read(".gemini/settings.json"), gemini);
    assert!(!project.file(".codex/hooks.json").exists());
    // --local is Claude Code's alone.
    swarm(&project, &server)
        .args(["hooks", "install", "--codex", "--local"])
        .assert()
        .failure();
}

/// git in `dir` with no user or system config.
fn git(dir: &std::path::Path, home: &std::path::Path, args: &[&str]) {
    let out = std::process::Command::new("git")
        .current_dir(dir)
        .args(args)
        .env("HOME", home)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .output()
        .expect("git");
    assert!(out.status.success(), "git {args:?}: {out:?}");
}

/// The pane agent-0 has now.
fn pane_of_agent0(server: &TmuxServer) -> Option<String> {
    server
        .tmux(&["list-panes", "-a", "-F", "#{pane_id} #{@swarm_agent}"])
        .lines()
        .find_map(|l| l.strip_suffix(" agent-0").map(str::to_owned))
}

#[test]
fn agents_in_worktrees_get_the_project_s_hooks_at_launch_and_at_resume() {
    let server = TmuxServer::start();
    let project = Project::new();
    let home = tempfile::tempdir().expect("tempdir");
    std::fs::remove_dir(project.file(".git")).expect("rmdir .git");
    let root = project.path();
    git(&root, home.path(), &["init", "-q", "-b", "main"]);
    git(&root, home.path(), &["config", "user.name", "Tess Ter"]);
    git(
        &root,
        home.path(),
        &["config", "user.email", "tess@example.com"],
    );
    project.write(".gitignore", "/ACTIVE_AGENTS.json\n/agent_messages.log\n/.swarm/\n/.*.json.lock\n/.agent_messages.log.lock\n/rec*\n/.user-config/\n");
    git(&root, home.path(), &["add", ".gitignore"]);
    git(&root, home.path(), &["commit", "-q", "-m", "initial"]);
    // Every demo agent on this server runs Claude Code's hooks.
    server.tmux(&["set-environment", "-g", "SWARM_DEMO_HOOKS", "claude"]);
    server.tmux(&["set-environment", "-g", "SWARM_WATCHER_AUTOSTART", "false"]);
    let run = |args: &[&str]| {
        let out = swarm(&project, &server)
            .env("HOME", home.path())
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .args(args)
            .output()
            .expect("swarm");
        assert!(out.status.success(), "{args:?}: {out:?}");
        out
    };
    // Installed in the main project, not committed: the worktree's
    // checkout does not have them by itself.
    run(&["hooks", "install", "--claude"]);
    let out = run(&[
        "launch",
        "1",
        "--agent",
        "demo",
        "--worktrees",
        "--session",
        "wt",
        "--no-attach",
        "--json",
    ]);
    let settings = root.join(".swarm/worktrees/agent-0/.claude/settings.json");
    let text = std::fs::read_to_string(&settings).expect("the worktree's settings");
    assert!(text.contains("hook claude"), "{text}");
    let pane = stdout_json(&out)["agents"][0]["pane"]
        .as_str()
        .expect("pane")
        .to_owned();
    server.wait_for_screen(&pane, "waiting for messages");
    // The hook runs in the worktree and acts in the main project.
    server.type_line(&pane, "please DEMOASK");
    let asked = wait_for_feed(&project, "needs_input", 1);
    assert_eq!(
        (asked[0]["agent"].as_str(), asked[0]["source"].as_str()),
        (Some("agent-0"), Some("hook"))
    );
    server.tmux(&["send-keys", "-t", &pane, "Escape"]);
    wait_for_feed(&project, "finished", 1);

    // Down, the worktree's settings lost, then resume: they are back
    // before the agent starts, and its hooks report again.
    run(&["down", "--session", "wt"]);
    std::fs::remove_file(&settings).expect("rm");
    run(&["resume", "wt", "--no-attach"]);
    assert!(
        std::fs::read_to_string(&settings)
            .unwrap_or_default()
            .contains("hook claude")
    );
    let pane = wait_for("agent-0's new pane", || pane_of_agent0(&server));
    server.wait_for_screen(&pane, "waiting for messages");
    server.type_line(&pane, "again DEMOASK");
    let asked = wait_for_feed(&project, "needs_input", 2);
    assert_eq!(asked[1]["source"], "hook", "{asked:?}");
}
