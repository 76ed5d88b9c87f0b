//! Every command name of the Python tool runs with its original argument
//! shape.

use crate::harness::{Project, TmuxServer, stdout_json, swarm};

#[test]
fn every_python_command_name_runs_with_its_original_arguments() {
    let server = TmuxServer::start();
    let project = Project::new();
    let pane = server.demo_agent(&project.path(), &project.file("rec.jsonl"));
    let table: Vec<(Vec<&str>, bool)> = vec![
        (vec!["discover-agents", "--stale-threshold", "60"], false),
        (vec!["discover-agents", "--json"], false),
        (vec!["list-agents", "--json"], false),
        (
            vec![
                "send-message",
                "agent-0",
                "INFO",
                "hello",
                "--sender-id",
                "operator",
            ],
            false,
        ),
        (
            vec![
                "send-message",
                "agent-0",
                "review-request",
                "look",
                "--sender-id",
                "operator",
                "--json",
            ],
            false,
        ),
        (
            vec![
                "broadcast-message",
                "INFO",
                "all",
                "--sender-id",
                "operator",
                "--include-self",
                "-v",
            ],
            false,
        ),
        (
            vec![
                "check-messages",
                "--agent-id",
                "agent-0",
                "--new-only",
                "--limit",
                "5",
                "-q",
            ],
            false,
        ),
        (
            vec![
                "acquire-file-lock",
                "src/a.py",
                "editing a",
                "--agent-id",
                "agent-0",
            ],
            false,
        ),
        (vec!["who-has-lock", "src/a.py", "--json"], false),
        (vec!["list-all-locks", "--include-stale", "--json"], false),
        (
            vec!["release-file-lock", "src/a.py", "--agent-id", "agent-0"],
            false,
        ),
        (vec!["cleanup-stale-locks"], false),
        (vec!["whoami"], true),
        (vec!["onboard"], false),
        (vec!["init", "-y"], false),
        (vec!["config", "show"], false),
        (vec!["config", "validate"], false),
        (vec!["reload"], false),
        (vec!["reload", "--source", "github"], false),
        (vec!["--project-root", ".", "list-agents"], false),
        (vec!["help"], false),
        (vec!["version"], false),
    ];
    for (args, in_pane) in &table {
        let mut cmd = swarm(&project, &server);
        if *in_pane {
            cmd.env("TMUX_PANE", &pane);
        }
        let out = cmd.args(args).output().expect("run");
        assert_eq!(
            out.status.code(),
            Some(0),
            "{args:?}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    // acknowledge-message MSG_ID, from the recipient's pane, full id.
    let out = swarm(&project, &server)
        .args([
            "send-message",
            "agent-0",
            "QUESTION",
            "ok?",
            "--sender-id",
            "operator",
            "--ack",
            "--json",
        ])
        .output()
        .expect("run");
    let id = stdout_json(&out)["msg_id"].as_str().expect("id").to_owned();
    let out = swarm(&project, &server)
        .env("TMUX_PANE", &pane)
        .args(["acknowledge-message", &id])
        .output()
        .expect("run");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn help_aliases_lists_them_all() {
    let project = Project::new();
    let out = crate::harness::swarm_outside_tmux(&project)
        .args(["help", "aliases"])
        .output()
        .expect("run");
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    for name in [
        "discover-agents",
        "list-agents",
        "send-message",
        "broadcast-message",
        "check-messages",
        "acknowledge-message",
        "acquire-file-lock",
        "release-file-lock",
        "who-has-lock",
        "list-all-locks",
        "cleanup-stale-locks",
        "start-monitoring",
        "start-dashboard",
        "reload",
    ] {
        assert!(text.contains(name), "{name} missing");
    }
    let help = crate::harness::swarm_outside_tmux(&project)
        .arg("--help")
        .output()
        .expect("run");
    assert!(!String::from_utf8_lossy(&help.stdout).contains("send-message"));
    // Every command of the Python tool is provided.
    assert!(!text.contains("Not provided"), "{text}");
}
