//! Shells are never agents: a shell named as an agent command is a config
//! error, and nothing is typed into a pane whose foreground is a shell,
//! whatever the config says.

use crate::harness::{Project, TmuxServer, stderr, swarm, swarm_outside_tmux};

/// Every way a config can name a shell as an agent program is refused by
/// `config validate`, naming the key and saying why.
#[test]
fn a_shell_named_as_an_agent_command_is_a_config_error() {
    for (file, key) in [
        (
            "[discovery]\nagent_commands = [\"claude\", \"bash\"]\n",
            "discovery.agent_commands[1]",
        ),
        (
            "[discovery]\nagent_commands = [\"-zsh\"]\n",
            "discovery.agent_commands[0]",
        ),
        (
            "[discovery]\nagent_commands = [\"Fish\"]\n",
            "discovery.agent_commands[0]",
        ),
        (
            "[profiles.mine]\ncommands = [\"sh\"]\n",
            "profiles.mine.commands[0]",
        ),
    ] {
        let project = Project::new();
        project.write(".claudeswarm.toml", file);
        let out = swarm_outside_tmux(&project)
            .args(["config", "validate"])
            .output()
            .expect("run");
        assert_eq!(out.status.code(), Some(1), "{file}: {}", stderr(&out));
        let err = stderr(&out);
        assert!(err.contains(key), "{file}: {err}");
        assert!(err.contains("is a shell"), "{file}: {err}");
    }
    // The same from the environment.
    let project = Project::new();
    project.write(".claudeswarm.toml", "");
    let out = swarm_outside_tmux(&project)
        .args(["config", "validate"])
        .env("SWARM_DISCOVERY_AGENT_COMMANDS", "codex,dash")
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("SWARM_DISCOVERY_AGENT_COMMANDS") && err.contains("is a shell"),
        "{err}"
    );
}

/// A config that lists `bash` as an agent command, and a pane at a bash
/// prompt: no command discovers it or types a message into it; a two-line
/// message whose second line is a command runs nothing.
#[test]
fn a_shell_listed_as_an_agent_never_gets_a_message_typed_in() {
    let server = TmuxServer::start();
    let project = Project::new();
    project.write(
        ".claudeswarm.toml",
        "[discovery]\nagent_commands = [\"bash\"]\n",
    );
    let pane = server.shell(&project.path());
    let discover = swarm(&project, &server)
        .arg("discover")
        .output()
        .expect("run");
    assert_eq!(discover.status.code(), Some(1), "{}", stderr(&discover));
    assert!(
        stderr(&discover).contains("is a shell"),
        "{}",
        stderr(&discover)
    );
    // Whatever discovery did, a registry names the pane as agent-0.
    let pid = server.tmux(&["display-message", "-p", "-t", &pane, "#{pane_pid}"]);
    project.write(
        "ACTIVE_AGENTS.json",
        &format!(
            r#"{{"session_name": "harness", "updated_at": "2026-11-21T00:00:00+00:00", "agents": [{{"id": "agent-0", "pane_index": "harness:1.0", "pid": {}, "status": "active", "last_seen": "2026-11-21T00:00:00+00:00", "session_name": "harness", "tmux_pane_id": "{pane}"}}]}}"#,
            pid.trim()
        ),
    );
    let canary = project.file("canary");
    let out = swarm(&project, &server)
        .args(["msg", "agent-0", "INFO", "--from", "operator", "--"])
        .arg(format!("harmless\ntouch {}\n", canary.display()))
        .output()
        .expect("run");
    assert_ne!(out.status.code(), Some(0), "{}", stderr(&out));
    // Give the shell every chance to run something: type a marker and wait
    // until it has run; a message typed before would have run first.
    server.tmux(&["send-keys", "-t", &pane, "echo marker-$((6*7))", "Enter"]);
    server.wait_for_screen(&pane, "marker-42");
    assert!(!canary.exists(), "the message ran in the shell");
    assert!(!server.capture(&pane).contains("harmless"));
}
