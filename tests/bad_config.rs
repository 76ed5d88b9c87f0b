//! A configuration with a mistake in it, in the project's file or in a
//! `SWARM_*` variable: every command checks it; those that only read warn
//! and go on, those that change the swarm refuse to start, and `doctor`
//! says which.

use crate::harness::{
    Project, TmuxServer, fails_with, launch_demo, launch_idle, stdout_json, swarm,
};

#[test]
fn every_command_checks_the_config_and_says_so() {
    let server = TmuxServer::start();
    let project = Project::new();
    launch_demo(&project, &server, 2, "team");
    let bad = [
        ("file", Some("[locking]\nstale_timeout = \"soon\"\n"), None),
        ("variable", None, Some(("SWARM_LOKING_STALE_TIMEOUT", "60"))),
    ];
    for (what, file, var) in bad {
        if let Some(text) = file {
            project.write(".claudeswarm.toml", text);
        } else {
            let _ = std::fs::remove_file(project.file(".claudeswarm.toml"));
        }
        let run = |args: &[&str]| {
            let mut cmd = swarm(&project, &server);
            if let Some((k, v)) = var {
                cmd.env(k, v);
            }
            let out = cmd.args(args).output().expect("run");
            (
                out.status.code(),
                String::from_utf8_lossy(&out.stderr).into_owned(),
            )
        };
        // Commands that only read warn and go on...
        for args in [
            &["agents"][..],
            &["inbox", "--agent", "agent-0"],
            &["locks"],
            &["who", "src/a.py"],
            &["acks"],
            &["coord", "show"],
        ] {
            let (code, stderr) = run(args);
            assert_eq!(code, Some(0), "{what}: {args:?}: {stderr}");
            assert!(
                stderr.starts_with("swarm: warning: invalid configuration"),
                "{what}: {args:?}: {stderr}"
            );
        }
        // ...the others refuse to start.
        for args in [
            &["discover"][..],
            &["lock", "src/a.py", "--agent", "agent-0"],
            &["coord", "add", "Decisions", "x"],
            &["msg", "agent-0", "INFO", "hi"],
        ] {
            let (code, stderr) = run(args);
            assert_eq!(code, Some(1), "{what}: {args:?}: {stderr}");
            assert!(
                stderr.starts_with("swarm: error: invalid configuration"),
                "{what}: {args:?}: {stderr}"
            );
        }
    }
}

#[test]
fn a_config_problem_stops_only_the_commands_that_change_the_swarm() {
    let server = TmuxServer::start();
    let project = Project::new();
    launch_idle(&project, &server, 1, "demo");
    fails_with(
        swarm(&project, &server).args(["msg", "agent-0", "INFO", "before the typo"]),
        7,
    );
    project.write(".claudeswarm.toml", "[locking]\nstale_timout = 100\n");
    let run = |args: &[&str]| {
        let out = swarm(&project, &server).args(args).output().expect("run");
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    for args in [
        &["config", "show"][..],
        &["agents"],
        &["locks"],
        &["inbox", "--agent", "agent-0"],
        &["coord", "show"],
    ] {
        let (code, _, stderr) = run(args);
        assert_eq!(code, Some(0), "{args:?}: {stderr}");
        assert!(
            stderr.starts_with("swarm: warning: invalid configuration")
                && stderr.contains("stale_timout"),
            "{args:?}: {stderr}"
        );
    }
    // `config show` shows the defaults in use.
    let (_, stdout, _) = run(&["config", "show"]);
    assert!(stdout.contains("stale_timeout = 300"), "{stdout}");
    for args in [
        &["lock", "src/a.rs", "--agent", "agent-0"][..],
        &["msg", "agent-0", "INFO", "hi"],
        &["discover"],
    ] {
        let (code, _, stderr) = run(args);
        assert_eq!(code, Some(1), "{args:?}: {stderr}");
        assert!(
            stderr.starts_with("swarm: error: invalid configuration"),
            "{args:?}: {stderr}"
        );
    }
    // doctor says which commands stop.
    let out = swarm(&project, &server)
        .args(["doctor", "--json"])
        .output()
        .expect("doctor");
    let report = stdout_json(&out);
    let config = report["checks"]
        .as_array()
        .expect("checks")
        .iter()
        .find(|c| c["check"] == "config")
        .expect("the config check")
        .clone();
    let message = config["message"].as_str().expect("message");
    assert!(
        !message.contains("every command") && message.contains("warn"),
        "{message}"
    );
    // The monitor starts (in a build that has it).
    #[cfg(feature = "monitor")]
    {
        use std::io::BufRead;
        let mut child = crate::harness::swarm_process(&project, Some(&server))
            .args(["monitor", "--plain"])
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("start the monitor");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(stdout)
                .lines()
                .map_while(Result::ok)
            {
                if tx.send(line).is_err() {
                    return;
                }
            }
        });
        let started = crate::harness::wait_for("the monitor's first line", || {
            if let Ok(line) = rx.try_recv() {
                return Some(Ok(line));
            }
            child.try_wait().expect("wait").map(Err)
        });
        let _ = child.kill();
        let _ = child.wait();
        assert!(
            started
                .as_ref()
                .is_ok_and(|l| l.contains("before the typo")),
            "{started:?}"
        );
    }
    // `down` stops the session.
    let (code, stdout, stderr) = run(&["down", "--session", "demo"]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stdout.contains("Stopped tmux session demo"), "{stdout}");
    assert!(project.agents().is_empty());
}
