//! What a new user meets in the first hour: ids across tmux server
//! restarts, agent arguments, `down`, `init`, error messages, config
//! checks, counts and the message log, each through the real binary.

use crate::harness::{Project, TmuxServer, stdout_json, swarm};

fn ok(cmd: &mut assert_cmd::Command) -> std::process::Output {
    let out = cmd.output().expect("run swarm");
    assert!(
        out.status.success(),
        "{:?} failed: {}{}",
        cmd,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn launched_ids(project: &Project, server: &TmuxServer, session: &str) -> Vec<(String, String)> {
    let out = ok(swarm(project, server).args([
        "launch",
        "2",
        "--agent",
        "demo",
        "--session",
        session,
        "--no-attach",
        "--json",
    ]));
    let agents: Vec<(String, String)> = stdout_json(&out)["agents"]
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
    // Each demo agent draws its banner and its input box in one write; until
    // it has, swarm cannot tell its screen from a starting program's and
    // rightly holds a message.
    for (id, pane) in &agents {
        server.wait_for_screen(pane, &format!("{id}: swarm demo agent"));
    }
    agents
}

#[test]
fn a_restarted_tmux_server_gets_new_agent_ids() {
    let server = TmuxServer::start();
    let project = Project::new();
    // Launch starts the server, as it does for a user with none running.
    server.tmux(&["kill-server"]);
    let first = launched_ids(&project, &server, "team");
    assert_eq!(first[1].0, "agent-1");
    // A message goes in once the agent shows its input box.
    server.wait_for_screen(&first[1].1, "agent-1: swarm demo agent");
    ok(swarm(&project, &server).args(["msg", "agent-1", "INFO", "hello", "--from", "agent-0"]));
    ok(swarm(&project, &server).args(["lock", "src/a.py", "--agent", "agent-1"]));

    server.tmux(&["kill-server"]);
    let second = launched_ids(&project, &server, "team");
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

fn fails_with(cmd: &mut assert_cmd::Command, code: i32) -> String {
    let out = cmd.output().expect("run swarm");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(code), "{cmd:?}: {stderr}");
    stderr
}

#[test]
fn every_agent_argument_must_name_a_registered_agent() {
    let server = TmuxServer::start();
    let project = Project::new();
    launched_ids(&project, &server, "team");
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
fn a_person_outside_tmux_sends_as_the_operator() {
    let server = TmuxServer::start();
    let project = Project::new();
    launched_ids(&project, &server, "team");
    let out = ok(swarm(&project, &server).args(["msg", "agent-1", "INFO", "hello", "--json"]));
    assert_eq!(stdout_json(&out)["sender"], "operator");
    // The name is configurable, and the operator can read its own inbox.
    project.write(".claudeswarm.toml", "[messaging]\noperator = \"alice\"\n");
    let out = ok(swarm(&project, &server).args(["broadcast", "INFO", "hi all", "--json"]));
    assert_eq!(stdout_json(&out)["sender"], "alice");
    ok(swarm(&project, &server).args(["inbox", "--agent", "alice"]));
    // A bad name is a config error like any other.
    project.write(".claudeswarm.toml", "[messaging]\noperator = \"a b\"\n");
    let stderr = fails_with(
        swarm(&project, &server).args(["msg", "agent-1", "INFO", "x"]),
        1,
    );
    assert!(stderr.contains("messaging.operator"), "{stderr}");
}

/// A CARGO_TARGET_DIR for `scripts/demo`, which builds swarm with cargo
/// into it: the binary under test as the `demo` profile's build, and in
/// `bin/` a stand-in cargo.
fn demo_target() -> tempfile::TempDir {
    let target = tempfile::tempdir().expect("tempdir");
    let bin = target.path().join("bin");
    std::fs::create_dir_all(target.path().join("demo")).expect("mkdir");
    std::fs::create_dir_all(&bin).expect("mkdir");
    std::os::unix::fs::symlink(
        crate::harness::swarm_bin(),
        target.path().join("demo/swarm"),
    )
    .expect("symlink");
    std::fs::write(
        bin.join("cargo"),
        "#!/bin/sh\necho 'cargo 1.0 (stand-in)'\n",
    )
    .expect("write");
    std::fs::set_permissions(
        bin.join("cargo"),
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .expect("chmod");
    target
}

/// Runs `scripts/demo --no-attach` with `target` and `path`, which must
/// launch its 4 agents; what it printed.
fn run_demo(server: &TmuxServer, target: &std::path::Path, path: &str) -> String {
    let out = std::process::Command::new(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/demo"),
    )
    .arg("--no-attach")
    .env_remove("TMUX")
    .env_remove("TMUX_PANE")
    .env_remove("CLAUDESWARM_ROOT")
    .env("PATH", path)
    .env("CARGO_TARGET_DIR", target)
    .env("SWARM_TMUX_SOCKET", &server.socket)
    .env("NO_COLOR", "1")
    .output()
    .expect("run scripts/demo");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("Launched tmux session swarm-demo with 4 agents"),
        "{stdout}"
    );
    stdout
}

#[test]
fn the_demo_script_takes_options_alone_and_its_stop_hint_works_as_printed() {
    let server = TmuxServer::start();
    let target = demo_target();
    let bin = target.path().join("bin");
    let path = format!("{}:/usr/local/bin:/usr/bin:/bin", bin.display());
    let stdout = run_demo(&server, target.path(), &path);
    let demo = target.path().join("demo-project");
    let registered = || {
        let text = std::fs::read_to_string(demo.join("ACTIVE_AGENTS.json")).expect("registry");
        let reg: serde_json::Value = serde_json::from_str(&text).expect("json");
        reg["agents"].as_array().expect("agents").len()
    };
    assert_eq!(registered(), 4);

    // Follow the hint exactly as printed, from another checkout, in a
    // shell that knows nothing of the demo's tmux server.
    let hint = stdout
        .lines()
        .find_map(|l| l.strip_prefix("Stop with:"))
        .expect("a stop hint")
        .trim()
        .to_owned();
    let elsewhere = Project::new();
    let out = std::process::Command::new("sh")
        .args(["-c", &hint])
        .current_dir(elsewhere.path())
        .env_remove("TMUX")
        .env_remove("TMUX_PANE")
        .env_remove("SWARM_TMUX_SOCKET")
        .env_remove("CLAUDESWARM_ROOT")
        .env("PATH", &path)
        .output()
        .expect("run the hint");
    assert!(
        out.status.success(),
        "{hint}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(registered(), 0, "the demo project's agents are gone");
    assert!(!elsewhere.file("ACTIVE_AGENTS.json").exists());
    assert!(
        !server
            .try_tmux(&["has-session", "-t", "=swarm-demo"])
            .status
            .success()
    );
}

/// The demo needs only what running swarm needs (tmux, ps, cargo): on a
/// machine without redis-server or chromium, where nothing can be
/// installed (no apt-get, brew or pkg), it still starts.
#[test]
fn the_demo_needs_neither_redis_nor_chromium() {
    let server = TmuxServer::start();
    let target = demo_target();
    let bin = target.path().join("bin");
    // Every program of the usual directories, but those.
    let hidden = |name: &str| {
        name.starts_with("redis")
            || name.starts_with("chromium")
            || ["apt-get", "apt", "brew", "pkg"].contains(&name)
    };
    for dir in ["/usr/local/bin", "/usr/bin", "/bin"] {
        let Ok(entries) = std::fs::read_dir(dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let link = bin.join(&name);
            if !hidden(&name) && std::fs::symlink_metadata(&link).is_err() {
                std::os::unix::fs::symlink(entry.path(), link).expect("symlink");
            }
        }
    }
    run_demo(&server, target.path(), &bin.display().to_string());
}

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

fn git(dir: &std::path::Path, args: &[&str]) -> String {
    let out = std::process::Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", dir)
        .output()
        .expect("run git");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn hooks_run_swarm_by_one_rule_and_doctor_sees_when_it_is_gone() {
    let project = Project::new();
    git(&project.path(), &["init", "-q"]);
    let dir = tempfile::tempdir().expect("tempdir");
    let copy = dir.path().canonicalize().expect("canonical").join("swarm");
    std::fs::copy(crate::harness::swarm_bin(), &copy).expect("copy swarm");
    let init =
        |path: &str| {
            // A test running in parallel may fork while the copy is still open
            // for writing (the child holds it until it execs): the kernel then
            // refuses to run it ("text file busy") for a moment.
            let out = crate::harness::wait_for("the copied swarm to run", || {
                match std::process::Command::new(&copy)
                    .args(["init", "--yes"])
                    .current_dir(project.path())
                    .env_remove("TMUX")
                    .env_remove("CLAUDESWARM_ROOT")
                    .env("PATH", path)
                    .env("NO_COLOR", "1")
                    .output()
                {
                    Err(e) if e.raw_os_error() == Some(26) => None,
                    other => Some(other.expect("run init")),
                }
            });
            assert!(out.status.success());
            String::from_utf8_lossy(&out.stdout).into_owned()
        };
    // The swarm on PATH is this binary: the hooks run plain `swarm`.
    let text = init(&format!("{}:/usr/bin:/bin", dir.path().display()));
    assert!(text.contains("`swarm hook <agent>`"), "{text}");
    let hook = project.read(".git/hooks/pre-commit");
    assert!(hook.contains("  swarm guard check-commit"), "{hook}");
    assert!(
        project
            .read(".claude/settings.json")
            .contains("\"swarm hook claude\"")
    );
    // Not on PATH: both hooks name it by its absolute path, and the old
    // hook entries are replaced, not kept beside the new ones.
    init("/usr/bin:/bin");
    let full = copy.display().to_string();
    let settings = project.read(".claude/settings.json");
    assert!(
        settings.contains(&format!("{full} hook claude")),
        "{settings}"
    );
    assert!(!settings.contains("\"swarm hook"), "{settings}");
    assert!(
        project
            .read(".git/hooks/pre-commit")
            .contains(&format!("{full} guard check-commit"))
    );
    let doctor = |project: &Project| {
        let out = crate::harness::swarm_outside_tmux(project)
            .args(["doctor", "--json"])
            .output()
            .expect("run doctor");
        stdout_json(&out)["checks"]
            .as_array()
            .expect("checks")
            .iter()
            .filter(|c| c["check"] == "hooks")
            .map(|c| {
                (
                    c["status"].as_str().unwrap_or("").to_owned(),
                    c["message"].as_str().unwrap_or("").to_owned(),
                )
            })
            .collect::<Vec<_>>()
    };
    assert!(
        doctor(&project).iter().all(|(s, _)| s == "ok"),
        "{:?}",
        doctor(&project)
    );
    std::fs::remove_file(&copy).expect("remove the binary");
    let checks = doctor(&project);
    assert_eq!(checks.len(), 2, "{checks:?}");
    for (status, message) in &checks {
        assert_eq!(status, "warn");
        assert!(
            message.contains(&full) && message.contains("no longer exists"),
            "{message}"
        );
    }
}

#[test]
fn init_keeps_every_state_file_out_of_git_status_and_the_readme_lists_them() {
    let server = TmuxServer::start();
    let project = Project::new();
    git(&project.path(), &["init", "-q"]);
    ok(swarm(&project, &server).args(["init", "--yes"]));
    // Use every kind of state: agents, messages with an ACK, locks,
    // cursors, coordination records.
    launched_ids(&project, &server, "team");
    ok(swarm(&project, &server).args(["msg", "agent-1", "QUESTION", "ready?", "--ack"]));
    ok(swarm(&project, &server).args(["lock", "src/a.py", "--agent", "agent-0"]));
    ok(swarm(&project, &server).args(["inbox", "--agent", "agent-1", "--new"]));
    ok(swarm(&project, &server).args(["tasks", "create", "a task", "--creator", "agent-0"]));
    ok(swarm(&project, &server).args([
        "cards",
        "register",
        "--agent-id",
        "agent-0",
        "--name",
        "zero",
    ]));
    let status = git(
        &project.path(),
        &["status", "--porcelain", "--untracked-files=all"],
    );
    let mut files: Vec<&str> = status.lines().map(|l| &l[3..]).collect();
    files.sort();
    assert_eq!(
        files,
        [".claude/settings.json", ".claudeswarm.toml", ".gitignore"],
        "{status}"
    );
    // The guide's list of files names each of them.
    let reference = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/guide/reference.md"),
    )
    .expect("docs/guide/reference.md");
    let files_part = &reference[reference.find("## Files").expect("a Files section")..];
    for line in project
        .read(".gitignore")
        .lines()
        .filter(|l| !l.starts_with('#'))
    {
        assert!(
            files_part.contains(&format!("\n{line}\n")),
            "{line} is not in the guide's Files (docs/guide/reference.md)"
        );
    }
}

/// Every file under `dir` (relative), `.git/` and `.swarm/` left out.
fn files_outside_swarm(dir: &std::path::Path) -> Vec<String> {
    let mut found = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for entry in std::fs::read_dir(&d).expect("read_dir") {
            let path = entry.expect("entry").path();
            let rel = path.strip_prefix(dir).expect("inside");
            if rel == std::path::Path::new(".git") || rel == std::path::Path::new(".swarm") {
                continue;
            }
            if path.is_dir() {
                todo.push(path);
            } else {
                found.push(rel.display().to_string());
            }
        }
    }
    found.sort();
    found
}

/// The agents' own config files (`.mcp.json`, `.claude/settings.json`,
/// ...) get no lock file of swarm's beside them: they are locked under
/// `.swarm/`, so `git status` shows only the files themselves.
#[test]
fn agent_config_files_get_no_lock_files_beside_them() {
    let server = TmuxServer::start();
    let project = Project::new();
    git(&project.path(), &["init", "-q"]);
    ok(swarm(&project, &server).args(["init", "--yes"]));
    ok(swarm(&project, &server).args(["mcp", "install", "--all"]));
    ok(swarm(&project, &server).args(["hooks", "install"]));
    let status = git(
        &project.path(),
        &["status", "--porcelain", "--untracked-files=all"],
    );
    let mut files: Vec<&str> = status.lines().map(|l| &l[3..]).collect();
    files.sort();
    assert_eq!(
        files,
        [
            ".claude/settings.json",
            ".claude/settings.local.json",
            ".claudeswarm.toml",
            ".codex/config.toml",
            ".codex/hooks.json",
            ".gemini/settings.json",
            ".gitignore",
            ".mcp.json",
        ],
        "{status}"
    );
    let locks = |project: &Project| -> Vec<String> {
        files_outside_swarm(&project.path())
            .into_iter()
            .filter(|f| f.ends_with(".lock"))
            .collect()
    };
    assert_eq!(locks(&project), Vec::<String>::new());
    ok(swarm(&project, &server).args(["mcp", "uninstall"]));
    ok(swarm(&project, &server).args(["hooks", "uninstall"]));
    assert_eq!(locks(&project), Vec::<String>::new());
}

/// `swarm ARGS` in `project` run by `sh` after `umask UMASK`.
fn swarm_with_umask(project: &Project, umask: &str, args: &[&str]) {
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!("umask {umask} && exec \"$0\" \"$@\""))
        .arg(crate::harness::swarm_bin())
        .args(args)
        .current_dir(project.path())
        .env_remove("TMUX")
        .env_remove("TMUX_PANE")
        .env_remove("CLAUDESWARM_ROOT")
        .env_remove("SWARM_TMUX_SOCKET")
        .output()
        .expect("run sh");
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn mode(project: &Project, rel: &str) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(project.file(rel))
        .unwrap_or_else(|e| panic!("{rel}: {e}"))
        .permissions()
        .mode()
        & 0o7777
}

/// The agents' config files are project files people commit and share:
/// new ones are created as an editor would (0666 and 0777 less the
/// umask), and an existing one keeps its mode.
#[test]
fn agent_config_files_get_the_modes_an_editor_would_give_them() {
    let project = Project::new();
    swarm_with_umask(&project, "022", &["mcp", "install", "--all"]);
    swarm_with_umask(&project, "022", &["hooks", "install"]);
    for file in [
        ".mcp.json",
        ".claude/settings.local.json",
        ".claude/settings.json",
        ".codex/config.toml",
        ".gemini/settings.json",
    ] {
        assert_eq!(mode(&project, file), 0o644, "{file}");
    }
    for dir in [".claude", ".codex", ".gemini"] {
        assert_eq!(mode(&project, dir), 0o755, "{dir}");
    }

    let project = Project::new();
    std::fs::create_dir(project.file(".gemini")).expect("mkdir");
    project.write(".gemini/settings.json", "{\"theme\": \"x\"}\n");
    std::fs::set_permissions(
        project.file(".gemini/settings.json"),
        std::os::unix::fs::PermissionsExt::from_mode(0o640),
    )
    .expect("chmod");
    swarm_with_umask(&project, "002", &["mcp", "install", "--all"]);
    swarm_with_umask(&project, "002", &["hooks", "install"]);
    assert!(project.read(".gemini/settings.json").contains("\"swarm\""));
    assert_eq!(mode(&project, ".gemini/settings.json"), 0o640, "kept");
    assert_eq!(mode(&project, ".mcp.json"), 0o664);
    assert_eq!(mode(&project, ".claude/settings.json"), 0o664);
    assert_eq!(mode(&project, ".codex"), 0o775);
    assert_eq!(mode(&project, ".codex/config.toml"), 0o664);
    // swarm's own state stays private.
    assert_eq!(mode(&project, ".swarm"), 0o700);
}

#[test]
fn every_error_has_one_format_and_a_hint() {
    let project = Project::new();
    let run = |args: &[&str]| {
        let out = crate::harness::swarm_outside_tmux(&project)
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
fn acknowledging_as_the_wrong_agent_says_who_can() {
    let server = TmuxServer::start();
    let project = Project::new();
    launched_ids(&project, &server, "team");
    let out =
        ok(swarm(&project, &server).args(["msg", "agent-1", "QUESTION", "ok?", "--ack", "--json"]));
    let id = stdout_json(&out)["msg_id"].as_str().expect("id").to_owned();
    let stderr = fails_with(
        swarm(&project, &server).args(["ack", &id[..8], "--agent", "agent-0"]),
        1,
    );
    assert!(
        stderr.starts_with("swarm: error: only agent-1 can acknowledge"),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!(
            "hint: agent-1 acknowledges it from its own pane with `swarm ack {}`",
            &id[..8]
        )),
        "{stderr}"
    );
    // The hint's command works as given.
    ok(swarm(&project, &server).args(["ack", &id[..8], "--agent", "agent-1"]));
}

#[test]
fn every_command_checks_the_config_and_says_so() {
    let server = TmuxServer::start();
    let project = Project::new();
    launched_ids(&project, &server, "team");
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
fn lock_paths_longer_than_the_system_allows_are_refused() {
    let project = Project::new();
    project.register(&["agent-0"]);
    let lock = |path: &str| {
        let out = crate::harness::swarm_outside_tmux(&project)
            .args(["lock", path, "--agent", "agent-0"])
            .output()
            .expect("run");
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let name = "n".repeat(256);
    let (code, stderr) = lock(&format!("src/{name}.py"));
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stderr.contains("at most 255 per file or directory name"),
        "{stderr}"
    );
    let deep = vec!["d".repeat(200); 21].join("/");
    let (code, stderr) = lock(&deep);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stderr.contains("the system allows at most 4095"),
        "{stderr}"
    );
    // At the limit is fine.
    let (code, stderr) = lock(&format!("src/{}", "n".repeat(255)));
    assert_eq!(code, Some(0), "{stderr}");
    assert!(project.ls(".agent_locks").len() == 1);
}

#[test]
fn a_python_reader_of_the_log_sees_no_failure_for_a_delivered_message() {
    let server = TmuxServer::start();
    let project = Project::new();
    let agents = launched_ids(&project, &server, "team");
    for (_, pane) in &agents {
        server.wait_for_screen(pane, "waiting for messages");
    }
    let out = ok(swarm(&project, &server).args(["msg", "agent-1", "INFO", "hello", "--json"]));
    let id = stdout_json(&out)["msg_id"].as_str().expect("id").to_owned();
    let lines: Vec<serde_json::Value> = project
        .read("agent_messages.log")
        .lines()
        .map(|l| serde_json::from_str(l).expect("json line"))
        .collect();
    // The delivery record says it was delivered...
    assert!(lines.iter().any(|l| l["event"] == "delivery"
        && l["msg_id"] == id.as_str()
        && l.to_string().contains("delivered")));
    // ...and the message line, which is all the Python tool reads, holds
    // no verdict that says otherwise.
    let line = lines
        .iter()
        .find(|l| l["msg_id"] == id.as_str() && l.get("event").is_none())
        .expect("the message line");
    assert_eq!(line["failure_count"], 0, "{line}");
    let statuses = line["delivery_status"]
        .as_object()
        .expect("delivery_status");
    assert!(statuses.values().all(|v| v != false), "{line}");
}

#[test]
fn every_help_puts_the_global_options_under_their_own_heading() {
    let project = Project::new();
    let help = |args: &[&str]| {
        let out = crate::harness::swarm_outside_tmux(&project)
            .args(args)
            .arg("--help")
            .output()
            .expect("run");
        assert!(out.status.success(), "{args:?}");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let top = help(&[]);
    let commands: Vec<String> = crate::harness::listed_commands(&top)
        .into_iter()
        .filter(|c| c != "help")
        .collect();
    assert!(commands.len() > 30, "{commands:?}");
    for command in &commands {
        let text = help(&[command]);
        let global = text
            .find("\nGlobal options:\n")
            .unwrap_or_else(|| panic!("{command}: no Global options heading:\n{text}"));
        for option in ["--root <DIR>", "--tmux-socket", "--color <WHEN>"] {
            let at = text
                .find(option)
                .unwrap_or_else(|| panic!("{command}: no {option}"));
            assert!(
                at > global,
                "{command}: {option} is not under Global options:\n{text}"
            );
        }
    }
}

#[test]
fn the_demo_agent_shows_its_agent_id() {
    let server = TmuxServer::start();
    let project = Project::new();
    for (id, pane) in launched_ids(&project, &server, "team") {
        server.wait_for_screen(&pane, &format!("{id}: swarm demo agent"));
    }
}

#[test]
fn the_readme_first_session_works_as_written() {
    let server = TmuxServer::start();
    let project = Project::new();
    let readme =
        std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md"))
            .expect("README");
    let part = &readme[readme.find("## A first session").expect("the section")..];
    let commands: Vec<&str> = part
        .lines()
        .skip_while(|l| !l.starts_with("```sh"))
        .skip(1)
        .take_while(|l| !l.starts_with("```"))
        .collect();
    assert!(commands.len() >= 8 && commands.len() <= 13, "{commands:?}");
    let bin = tempfile::tempdir().expect("tempdir");
    std::os::unix::fs::symlink(crate::harness::swarm_bin(), bin.path().join("swarm"))
        .expect("symlink");
    let path = format!("{}:/usr/local/bin:/usr/bin:/bin", bin.path().display());
    for command in commands {
        // The monitor runs until it is stopped: it has tests of its own.
        if command.starts_with("swarm monitor") {
            continue;
        }
        let out = std::process::Command::new("sh")
            .args(["-c", command])
            .current_dir(project.path())
            .env_remove("TMUX")
            .env_remove("TMUX_PANE")
            .env_remove("CLAUDESWARM_ROOT")
            .env("PATH", &path)
            .env("SWARM_TMUX_SOCKET", &server.socket)
            .env("NO_COLOR", "1")
            .stdin(std::process::Stdio::null())
            .output()
            .expect("run");
        // A command that fails on purpose says so: `# exit 3: ...`.
        let expected = command
            .split_once("# exit ")
            .and_then(|(_, rest)| rest.get(..1))
            .and_then(|code| code.parse().ok())
            .unwrap_or(0);
        assert_eq!(
            out.status.code(),
            Some(expected),
            "{command}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    assert!(project.agents().is_empty());
}

/// The Markdown link targets (`](target)`) in `text`, anchors cut off.
fn link_targets(text: &str) -> Vec<String> {
    text.split("](")
        .skip(1)
        .filter_map(|rest| rest.split(')').next())
        .map(|t| t.split('#').next().unwrap_or_default().to_owned())
        .filter(|t| !t.is_empty() && !t.contains("://"))
        .collect()
}

/// Every document is reachable: each `docs/*.md` is linked from the
/// README or from docs/ARCHITECTURE.md (itself linked from the README),
/// and every relative link of the README and of the documents leads to a
/// file that exists.
#[test]
fn every_document_is_linked_and_every_link_leads_somewhere() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let read = |p: &std::path::Path| std::fs::read_to_string(p).expect("read");
    let readme = read(&root.join("README.md"));
    let architecture = read(&root.join("docs/ARCHITECTURE.md"));
    let mut linked: Vec<String> = link_targets(&readme);
    linked.extend(
        link_targets(&architecture)
            .into_iter()
            .map(|t| format!("docs/{t}")),
    );
    let mut problems = Vec::new();
    if !linked.iter().any(|t| t == "docs/ARCHITECTURE.md") {
        problems.push("the README does not link docs/ARCHITECTURE.md".to_owned());
    }
    let mut docs: Vec<String> = std::fs::read_dir(root.join("docs"))
        .expect("docs")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".md"))
        .collect();
    docs.sort();
    for doc in &docs {
        let rel = format!("docs/{doc}");
        if rel != "docs/ARCHITECTURE.md" && !linked.contains(&rel) {
            problems.push(format!(
                "{rel} is linked from neither the README nor ARCHITECTURE.md"
            ));
        }
        for target in link_targets(&read(&root.join(&rel))) {
            if !root.join("docs").join(&target).exists() {
                problems.push(format!("{rel} links {target}, which does not exist"));
            }
        }
    }
    for target in link_targets(&readme) {
        if !root.join(&target).exists() {
            problems.push(format!("README.md links {target}, which does not exist"));
        }
    }
    assert_eq!(problems, Vec::<String>::new());
}

/// The README and the install guide install from a clone one way
/// everywhere: with `--locked`, as the Install section says.
#[test]
fn the_readmes_cargo_install_commands_agree() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut text = String::new();
    for page in ["README.md", "docs/guide/install.md"] {
        text.push_str(&std::fs::read_to_string(root.join(page)).expect(page));
    }
    let installs: Vec<&str> = text
        .lines()
        .filter(|l| l.contains("cargo install") && l.contains("--path"))
        .collect();
    assert!(installs.len() >= 2, "{installs:?}");
    for line in installs {
        assert!(line.contains("cargo install --locked"), "{line}");
    }
}
