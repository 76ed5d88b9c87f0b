//! The command line itself: help, exit codes, errors for bad input, and
//! identity detection.

use crate::harness::{
    Project, TmuxServer, fails_with, launch_demo, ok_stdout, outcome, redacted, stdout_json, swarm,
    swarm_outside_tmux,
};

#[test]
fn help_lists_commands_and_exit_codes() {
    let project = Project::new();
    let out = swarm_outside_tmux(&project)
        .arg("--help")
        .output()
        .expect("run");
    assert!(out.status.success());
    let help = String::from_utf8_lossy(&out.stdout).into_owned();
    redacted(|| insta::assert_snapshot!("help", help));
}

#[test]
fn no_arguments_prints_help_and_is_a_usage_error() {
    let project = Project::new();
    let out = swarm_outside_tmux(&project).output().expect("run");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("Usage: swarm"));
}

#[test]
fn unknown_commands_are_usage_errors() {
    let project = Project::new();
    let out = swarm_outside_tmux(&project)
        .arg("frobnicate")
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
}

/// Every typo hint quotes the name it suggests the same way, in
/// backticks, as the config's "did you mean `x`" does (clap's own tips
/// quote with '').
#[test]
fn typo_hints_quote_names_in_backticks() {
    let project = Project::new();
    for (args, near) in [
        (&["agnets"][..], "`agents`"),
        (&["mssg"][..], "`msg`"),
        (&["locks", "--inclde-stale"][..], "`--include-stale`"),
    ] {
        let out = swarm_outside_tmux(&project)
            .args(args)
            .output()
            .expect("run");
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        let hint = err
            .lines()
            .find(|l| l.trim_start().starts_with("hint:"))
            .unwrap_or_default();
        assert!(hint.contains(near), "{args:?}: {err}");
        assert!(!hint.contains('\''), "{args:?}: {err}");
    }
}

#[test]
fn python_command_names_still_work() {
    let server = TmuxServer::start();
    let project = Project::new();
    server.demo_agent(&project.path(), &project.file("a.jsonl"));
    swarm(&project, &server)
        .arg("discover-agents")
        .assert()
        .success();
    let out = swarm(&project, &server)
        .args(["list-agents", "--json"])
        .output()
        .expect("run");
    assert_eq!(stdout_json(&out)[0]["id"], "agent-0");
}

#[test]
fn version_prints_the_crate_version() {
    let project = Project::new();
    let out = swarm_outside_tmux(&project)
        .arg("version")
        .output()
        .expect("run");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.starts_with(&format!("swarm {}", env!("CARGO_PKG_VERSION"))),
        "{text}"
    );
}

/// `swarm --version`, `swarm -V` and `swarm version` alone are answered
/// before clap parses anything; with a global option before them they go
/// through clap. Every way prints the same line, and `swarm version
/// extra` is still clap's usage error.
#[test]
fn every_way_of_asking_for_the_version_prints_the_same_line() {
    let project = Project::new();
    let stdout = |args: &[&str]| {
        let out = swarm_outside_tmux(&project)
            .args(args)
            .output()
            .expect("run");
        assert!(out.status.success(), "{args:?}: {out:?}");
        assert!(out.stderr.is_empty(), "{args:?}: {out:?}");
        String::from_utf8(out.stdout).expect("UTF-8")
    };
    let line = stdout(&["version"]);
    assert!(
        line.starts_with(&format!("swarm {}", env!("CARGO_PKG_VERSION"))) && line.ends_with('\n'),
        "{line:?}"
    );
    assert_eq!(line.lines().count(), 1, "{line:?}");
    for args in [
        &["--version"][..],
        &["-V"],
        &["--color=never", "version"],
        &["--color=never", "--version"],
        &["--color=never", "-V"],
    ] {
        assert_eq!(stdout(args), line, "{args:?}");
    }

    let out = swarm_outside_tmux(&project)
        .args(["version", "extra"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(out.stdout.is_empty(), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("extra"), "{stderr}");
}

#[test]
fn no_tmux_server_exits_5_with_a_hint() {
    let project = Project::new();
    let out = swarm_outside_tmux(&project)
        .env(
            "SWARM_TMUX_SOCKET",
            format!("swarm-test-absent-{}", std::process::id()),
        )
        .arg("discover")
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(5));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("no tmux server is running"), "{stderr}");
    assert!(stderr.contains("hint:"), "{stderr}");
}

#[test]
fn tmux_not_installed_exits_5() {
    let project = Project::new();
    let out = swarm_outside_tmux(&project)
        .env("PATH", project.path())
        .arg("discover")
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(5));
    assert!(String::from_utf8_lossy(&out.stderr).contains("tmux is not installed"));
}

#[test]
fn agents_without_a_registry_is_empty_not_an_error() {
    let project = Project::new();
    let out = swarm_outside_tmux(&project)
        .arg("agents")
        .output()
        .expect("run");
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "No active agents found.\n"
    );
    let out = swarm_outside_tmux(&project)
        .args(["agents", "--json"])
        .output()
        .expect("run");
    assert_eq!(stdout_json(&out), serde_json::json!([]));
}

#[test]
fn a_registry_written_by_the_python_tool_is_read() {
    let project = Project::new();
    // Byte for byte what the Python tool writes (docs/FORMATS.md), plus an old
    // entry without tmux_pane_id.
    project.write(
        "ACTIVE_AGENTS.json",
        r#"{
  "session_name": "swarm",
  "updated_at": "2026-11-21T13:26:58.589963+00:00",
  "agents": [
    {
      "id": "agent-0",
      "pane_index": "swarm:0.0",
      "pid": 18877,
      "status": "active",
      "last_seen": "2026-11-21T13:26:58.589963+00:00",
      "session_name": "swarm",
      "tmux_pane_id": "%0"
    },
    {
      "id": "agent-1",
      "pane_index": "swarm:0.1",
      "pid": 18878,
      "status": "active",
      "last_seen": "2026-11-21T13:26:58+00:00",
      "session_name": "swarm"
    }
  ],
  "session_names": ["swarm"]
}"#,
    );
    let out = swarm_outside_tmux(&project)
        .arg("agents")
        .output()
        .expect("run");
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    redacted(|| insta::assert_snapshot!("agents_from_python_registry", text));
    let out = swarm_outside_tmux(&project)
        .args(["agents", "--json"])
        .output()
        .expect("run");
    let json = stdout_json(&out);
    assert_eq!(json[1]["tmux_pane_id"], serde_json::Value::Null);
    redacted(|| insta::assert_json_snapshot!("agents_json", json));
}

#[test]
fn root_detection_and_the_root_flag() {
    let project = Project::new();
    std::fs::create_dir_all(project.file("src/deep")).expect("mkdir");
    let out = swarm_outside_tmux(&project)
        .current_dir(project.file("src/deep"))
        .env("TMUX_PANE", "%0")
        .args(["whoami", "--json"])
        .env(
            "SWARM_TMUX_SOCKET",
            format!("swarm-test-absent-{}", std::process::id()),
        )
        .output()
        .expect("run");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json = stdout_json(&out);
    assert_eq!(json["project_root"], project.path().display().to_string());
    assert_eq!(json["project_root_source"], "marker .git");
    let out = swarm_outside_tmux(&project)
        .args(["--root", "does-not-exist", "agents"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("does-not-exist"));
}

#[test]
fn whoami_outside_tmux_says_so() {
    let project = Project::new();
    let out = swarm_outside_tmux(&project)
        .arg("whoami")
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not running inside a tmux pane"));
    let out = swarm_outside_tmux(&project)
        .env("TMUX_PANE", "%1;rm -rf /")
        .arg("whoami")
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a tmux pane id"));
}

#[test]
fn whoami_in_an_agent_pane_uses_the_registry_then_the_pane_label() {
    let server = TmuxServer::start();
    let project = Project::new();
    let pane = server.demo_agent(&project.path(), &project.file("a.jsonl"));
    swarm(&project, &server).arg("discover").assert().success();
    let whoami = || {
        let out = swarm(&project, &server)
            .env("TMUX_PANE", &pane)
            .args(["whoami", "--json"])
            .output()
            .expect("run");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        stdout_json(&out)
    };
    let me = whoami();
    assert_eq!(
        (me["agent"].as_str(), me["source"].as_str()),
        (Some("agent-0"), Some("registry"))
    );
    // Without a registry the pane's own label still answers.
    std::fs::remove_file(project.file("ACTIVE_AGENTS.json")).expect("rm");
    let me = whoami();
    assert_eq!(
        (me["agent"].as_str(), me["source"].as_str()),
        (Some("agent-0"), Some("pane-label"))
    );
    // A pane that is not an agent is told so (exit 0, as the original).
    let shell = server.shell(&project.path());
    let out = swarm(&project, &server)
        .env("TMUX_PANE", &shell)
        .arg("whoami")
        .output()
        .expect("run");
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("You are NOT registered as an agent."));
}

#[test]
fn a_hostile_message_id_in_the_log_is_shown_not_crashed_on() {
    let project = Project::new();
    // Byte 8 of this id falls inside a two-byte character.
    project.write(
        "agent_messages.log",
        "{\"sender\": \"x\", \"timestamp\": \"2026-11-21T13:27:02.029457\", \"msg_type\": \"INFO\", \"content\": \"hi\", \"recipients\": [\"agent-0\"], \"msg_id\": \"a\u{e9}\u{e9}\u{e9}\u{e9}\u{e9}\"}\n",
    );
    project.register(&["agent-0"]);
    for extra in [&[][..], &["--new"][..], &["--new", "--hook"][..]] {
        let out = swarm_outside_tmux(&project)
            .args(["inbox", "--agent", "agent-0"])
            .args(extra)
            .output()
            .expect("run");
        assert!(
            out.status.success(),
            "{extra:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(!String::from_utf8_lossy(&out.stderr).contains("panicked"));
    }
}

#[test]
fn help_of_a_command_shows_its_own_options_and_points_to_the_common_ones() {
    let project = Project::new();
    let run = |args: &[&str]| {
        let out = swarm_outside_tmux(&project)
            .args(args)
            .output()
            .expect("run");
        assert!(out.status.success(), "{args:?}");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    for command in [&["msg"][..], &["config", "init"], &["launch"]] {
        let text = run(&[&["help"][..], command].concat());
        assert!(!text.contains("--tmux-socket <NAME|PATH>"), "{text}");
        assert!(
            text.trim_end().ends_with("`swarm help options`"),
            "{command:?}: {text}"
        );
    }
    for command in ["msg", "inbox", "agents", "lock", "broadcast", "ack"] {
        assert!(
            run(&["help", command]).contains("\nExamples:\n"),
            "{command}"
        );
    }
    let options = run(&["help", "options"]);
    for option in [
        "--root <DIR>",
        "--tmux-socket <NAME|PATH>",
        "--color <WHEN>",
    ] {
        assert!(options.contains(option), "{options}");
    }
    // `-h` and `--help` open with the same sentence.
    let opening = |text: &str| {
        let first = text.split("\n\n").next().unwrap_or_default();
        first.split_whitespace().collect::<Vec<_>>().join(" ")
    };
    let short = opening(&run(&["-h"]));
    assert!(short.len() > 40, "{short}");
    assert!(opening(&run(&["--help"])).starts_with(&short), "{short}");
}

#[test]
fn every_agent_argument_must_name_a_registered_agent() {
    let server = TmuxServer::start();
    let project = Project::new();
    launch_demo(&project, &server, 2, "team");
    for args in [
        &["lock", "src/a.py", "--agent", "agent-7"][..],
        &["lock", "src/a.py", "--agent", "claude"],
        &["unlock", "src/a.py", "--agent", "agent-7"],
        &["inbox", "--agent", "agent-9"],
        &["ack", "0000", "--agent", "agent-9"],
        &["msg", "agent-0", "INFO", "--from", "nobody", "hi"],
        &["broadcast", "INFO", "--from", "nobody", "hi"],
    ] {
        let stderr = fails_with(swarm(&project, &server).args(args), 4);
        assert!(
            stderr.contains("swarm: error: no agent") && stderr.contains("agent-0, agent-1"),
            "{args:?}: {stderr}"
        );
    }
    // Nothing was locked for anyone.
    assert!(!project.file(".agent_locks").exists() || project.ls(".agent_locks").is_empty());
}

#[test]
fn every_error_has_one_format_and_a_hint() {
    let project = Project::new();
    let run = |args: &[&str]| {
        let out = swarm_outside_tmux(&project)
            .args(args)
            .output()
            .expect("run");
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    for (args, code, hint) in [
        (&["mgs", "agent-1", "INFO", "x"][..], 2, "`msg`"),
        (&["lokc", "a.py"], 2, "`lock`"),
        (&["inbx"], 2, "inbox"),
        (&["msg", "--bogus"], 2, "`swarm help msg`"),
        (&["msg"], 2, "usage: swarm msg"),
        (&["lock", "--wait", "x", "a.py"], 2, "`swarm help lock`"),
        (&["whoami"], 1, "`swarm agents`"),
    ] {
        let (status, stderr) = run(args);
        assert_eq!(status, Some(code), "{args:?}: {stderr}");
        let lines: Vec<&str> = stderr.lines().collect();
        assert!(lines[0].starts_with("swarm: error: "), "{args:?}: {stderr}");
        assert!(
            lines[1].starts_with("  hint: ") && lines[1].contains(hint),
            "{args:?}: {stderr}"
        );
        assert!(!stderr.contains("--agent/--from"), "{stderr}");
    }
}

#[test]
fn an_agent_id_with_an_underscore_suggests_the_dash() {
    let server = TmuxServer::start();
    let project = Project::new();
    project.register(&["agent-0", "agent-1"]);
    for args in [
        &["inbox", "--agent", "agent_1"][..],
        &["msg", "agent_1", "INFO", "hi"],
        &["lock", "src/a.py", "--agent", "Agent_1"],
    ] {
        let (code, _, stderr) = outcome(swarm(&project, &server).args(args));
        assert_eq!(code, Some(4), "{args:?}: {stderr}");
        assert!(
            stderr.contains("did you mean `agent-1`?"),
            "{args:?}: {stderr}"
        );
    }
}

/// True when `text` holds an ISO 8601 time (`2026-11-28T12:42:48`).
fn has_iso_time(text: &str) -> bool {
    let b = text.as_bytes();
    (0..b.len().saturating_sub(18)).any(|i| {
        let d = |k: usize| b[i + k].is_ascii_digit();
        (0..4).all(d)
            && b[i + 4] == b'-'
            && d(5)
            && d(6)
            && b[i + 7] == b'-'
            && d(8)
            && d(9)
            && b[i + 10] == b'T'
            && d(11)
            && d(12)
            && b[i + 13] == b':'
    })
}

/// True when `text` holds a clock time `HH:MM:SS`.
fn has_clock_time(text: &str) -> bool {
    let b = text.as_bytes();
    (0..b.len().saturating_sub(7)).any(|i| {
        let d = |k: usize| b[i + k].is_ascii_digit();
        d(0) && d(1) && b[i + 2] == b':' && d(3) && d(4) && b[i + 5] == b':' && d(6) && d(7)
    })
}

#[test]
fn times_for_people_are_local_and_short() {
    let server = TmuxServer::start();
    let project = Project::new();
    launch_demo(&project, &server, 1, "team");
    ok_stdout(swarm(&project, &server).args(["msg", "agent-0", "INFO", "hello there"]));
    ok_stdout(
        swarm(&project, &server).args(["msg", "operator", "INFO", "a note", "--from", "agent-0"]),
    );
    for args in [
        &["inbox", "--agent", "agent-0"][..],
        &["inbox", "--agent", "operator"],
        &["search", "hello"],
        &["sessions"],
    ] {
        let stdout = ok_stdout(swarm(&project, &server).args(args));
        assert!(!has_iso_time(&stdout), "{args:?}: {stdout}");
        assert!(
            has_clock_time(&stdout) || stdout.contains(" ago"),
            "{args:?}: {stdout}"
        );
    }
    let id = stdout_json(
        &swarm(&project, &server)
            .args(["inbox", "--agent", "agent-0", "--json"])
            .output()
            .expect("run"),
    )["messages"][0]["msg_id"]
        .as_str()
        .expect("id")
        .to_owned();
    let thread = ok_stdout(swarm(&project, &server).args(["thread", &id[..8]]));
    assert!(
        !has_iso_time(&thread) && has_clock_time(&thread),
        "{thread}"
    );
    // JSON keeps the full time.
    let json = ok_stdout(swarm(&project, &server).args(["inbox", "--agent", "agent-0", "--json"]));
    assert!(has_iso_time(&json), "{json}");
}
