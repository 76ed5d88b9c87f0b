//! `swarm init`, `swarm doctor`, help, completions and colour.

use crate::harness::repo::git;
use crate::harness::{
    Project, TmuxServer, launch_demo, launch_idle, ok, stderr, stdout, stdout_json, swarm,
    swarm_bin, swarm_outside_tmux,
};

#[test]
fn init_is_non_interactive_without_a_terminal_and_idempotent() {
    let server = TmuxServer::start();
    let project = Project::new();
    let out = swarm(&project, &server).arg("init").output().expect("run");
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains(&format!(
        "created {}",
        project.file(".claudeswarm.toml").display()
    )));
    assert!(text.contains("session(s) on tmux socket"), "{text}");
    for next in [
        "swarm launch 4",
        "swarm discover",
        "swarm msg",
        "swarm lock",
        "swarm monitor",
    ] {
        assert!(text.contains(next), "{next} missing from\n{text}");
    }
    // Without a terminal only the config file is created: the hooks and
    // .gitignore are named, with how to add them.
    assert!(
        text.contains("- skipped: agent hooks, git guard, MCP server, .gitignore lines"),
        "{text}"
    );
    assert!(
        text.contains("run `swarm init --yes` for the rest"),
        "{text}"
    );
    assert!(!project.file(".claude/settings.json").exists());
    assert!(!project.file(".gitignore").exists());
    let config = project.read(".claudeswarm.toml");
    let out = swarm(&project, &server)
        .args(["init", "--yes"])
        .output()
        .expect("run");
    assert!(out.status.success());
    // --yes does the rest and says what it did.
    let done = stdout(&out);
    let done = &done[done.find("=== Done ===").expect("a summary")..];
    assert!(done.contains("agent hooks: added 6 hook(s)"), "{done}");
    assert!(done.contains("lines to"), "{done}");
    assert!(
        project
            .read(".claude/settings.json")
            .contains("swarm hook claude")
    );
    assert!(
        stdout(&out).contains("exists and is valid"),
        "{}",
        stdout(&out)
    );
    assert_eq!(
        project.read(".claudeswarm.toml"),
        config,
        "a second run changes nothing"
    );
}

#[test]
fn init_asks_on_a_terminal_and_takes_no_for_an_answer() {
    let server = TmuxServer::start();
    let project = Project::new();
    let pane = server.pane(
        &project.path(),
        &format!(
            "env -u CLAUDESWARM_ROOT NO_COLOR=1 '{}' init; echo INIT-EXIT-$?; sleep 86400",
            swarm_bin()
        ),
    );
    for question in [
        "[Y/n]",
        "Set up the agent hooks",
        "Set up the git guard",
        "Set up the MCP server",
        "Add them to .gitignore?",
    ] {
        server.wait_for_screen(&pane, question);
        server.tmux(&["send-keys", "-t", &pane, "n", "Enter"]);
    }
    server.wait_for_screen(&pane, "INIT-EXIT-0");
    // The whole transcript, scrolled-off lines included.
    let screen = server.tmux(&["capture-pane", "-p", "-J", "-S", "-", "-t", &pane]);
    assert!(
        screen.contains("skipped: swarm uses the defaults"),
        "{screen}"
    );
    assert!(!project.file(".claudeswarm.toml").exists());
    assert!(!project.file(".claude/settings.json").exists());
    assert!(!project.file(".mcp.json").exists());
    assert!(!project.file(".gitignore").exists());
    assert!(screen.contains("nothing changed"), "{screen}");
}

#[test]
fn init_reports_missing_tmux_and_still_finishes() {
    let project = Project::new();
    let out = swarm_outside_tmux(&project)
        .args(["init", "--yes"])
        .env("PATH", project.path())
        .output()
        .expect("run");
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("tmux is not installed"), "{text}");
    assert!(text.contains("1. Install tmux"), "{text}");
}

#[test]
fn doctor_on_a_healthy_project() {
    let server = TmuxServer::start();
    let project = Project::new();
    server.demo_agent(&project.path(), &project.file("a.jsonl"));
    swarm(&project, &server)
        .args(["config", "init"])
        .assert()
        .success();
    swarm(&project, &server).arg("discover").assert().success();
    // The default: a command starts the watcher when it needs it (the
    // tests turn that off elsewhere).
    let out = swarm(&project, &server)
        .arg("doctor")
        .env("SWARM_WATCHER_AUTOSTART", "true")
        .output()
        .expect("run");
    assert!(out.status.success(), "{}{}", stdout(&out), stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("0 warnings, 0 failures"), "{text}");
    let out = swarm(&project, &server)
        .args(["doctor", "--json"])
        .env("SWARM_WATCHER_AUTOSTART", "true")
        .output()
        .expect("run");
    let json = stdout_json(&out);
    assert_eq!(json["ok"], true);
    let checks = json["checks"].as_array().expect("checks");
    assert!(checks.iter().all(|c| c["status"] == "ok"), "{json:#}");
    let message = |name: &str| {
        checks
            .iter()
            .find(|c| c["check"] == name)
            .and_then(|c| c["message"].as_str())
            .unwrap_or_else(|| panic!("no {name} check in {json:#}"))
            .to_owned()
    };
    assert!(message("tmux server").contains(&format!("socket `{}`", server.socket)));
    assert!(message("project root").contains("marker .git"));
    assert!(message("ACTIVE_AGENTS.json").contains("1 agent(s)"));
    assert!(message("registered panes").contains("all 1 registered"));
    assert!(
        message("processes").starts_with(&format!("backend {}", crate::harness::process_backend())),
        "{json:#}"
    );
}

#[test]
fn doctor_names_a_bad_process_backend_and_how_to_fix_it() {
    let project = Project::new();
    let out = swarm_outside_tmux(&project)
        .env("SWARM_PROCESS_BACKEND", "sysinfo")
        .args(["doctor", "--json"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    let json = stdout_json(&out);
    let check = json["checks"]
        .as_array()
        .expect("checks")
        .iter()
        .find(|c| c["check"] == "processes")
        .unwrap_or_else(|| panic!("no processes check in {json:#}"))
        .clone();
    assert_eq!(check["status"], "fail");
    assert!(
        check["message"]
            .as_str()
            .expect("message")
            .contains("\"sysinfo\""),
        "{check:#}"
    );
    assert!(
        check["fix"]
            .as_str()
            .expect("fix")
            .contains("unset SWARM_PROCESS_BACKEND"),
        "{check:#}"
    );
}

#[test]
fn doctor_on_a_broken_project_says_what_to_fix() {
    let server = TmuxServer::start();
    let project = Project::new();
    let pane = server.demo_agent(&project.path(), &project.file("a.jsonl"));
    swarm(&project, &server).arg("discover").assert().success();
    server.kill_pane(&pane);
    project.write(".claudeswarm.toml", "[locking]\nstale_timeout = 5\n");
    project.write("agent_messages.log", "{\"msg_id\": \"1\"}\nnot json\n");
    std::fs::create_dir(project.file(".agent_locks")).expect("mkdir");
    project.write(".agent_locks/abc.lock", "{broken");
    project.write(".ACTIVE_AGENTS.json.tmp-crashed1234", "half");
    project.write("PENDING_ACKS.json.corrupt-20260101T000000Z", "x");
    let out = swarm(&project, &server)
        .args(["doctor", "--json"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1), "a failed check exits 1");
    let json = stdout_json(&out);
    assert_eq!(json["ok"], false);
    let checks = json["checks"].as_array().expect("checks");
    let find = |name: &str| {
        checks
            .iter()
            .find(|c| c["check"] == name)
            .unwrap_or_else(|| panic!("no {name} check in {json:#}"))
    };
    let config = find("config");
    assert_eq!(config["status"], "fail");
    assert!(
        config["details"][0]
            .as_str()
            .expect("detail")
            .contains("locking.stale_timeout")
    );
    assert!(
        config["fix"]
            .as_str()
            .expect("fix")
            .contains("swarm config validate")
    );
    let panes = find("registered panes");
    assert_eq!(panes["status"], "warn");
    assert!(
        panes["details"][0]
            .as_str()
            .expect("detail")
            .contains(&format!("pane {pane}"))
    );
    assert!(
        panes["fix"]
            .as_str()
            .expect("fix")
            .contains("swarm discover")
    );
    assert_eq!(find("agent_messages.log")["status"], "warn");
    assert_eq!(find(".agent_locks/")["status"], "warn");
    assert_eq!(find("temp files")["status"], "warn");
    assert_eq!(find("damaged copies")["status"], "warn");
    // A damaged registry is a failure with the way out.
    project.write("ACTIVE_AGENTS.json", "{\"agents\": ");
    let out = swarm(&project, &server)
        .arg("doctor")
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    assert!(text.contains("FAIL  ACTIVE_AGENTS.json"), "{text}");
    assert!(text.contains("fix: run `swarm discover`"), "{text}");
}

#[test]
fn doctor_without_a_tmux_server_warns_and_without_tmux_fails() {
    let project = Project::new();
    let out = swarm_outside_tmux(&project)
        .env(
            "SWARM_TMUX_SOCKET",
            format!("swarm-test-absent-{}", std::process::id()),
        )
        .arg("doctor")
        .output()
        .expect("run");
    assert!(out.status.success(), "{}", stdout(&out));
    assert!(
        stdout(&out).contains("warn  tmux server"),
        "{}",
        stdout(&out)
    );
    let out = swarm_outside_tmux(&project)
        .env("PATH", project.path())
        .arg("doctor")
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1));
    assert!(stdout(&out).contains("FAIL  tmux"), "{}", stdout(&out));
}

#[test]
fn help_and_version_commands() {
    let project = Project::new();
    let help = swarm_outside_tmux(&project)
        .arg("help")
        .output()
        .expect("run");
    assert!(help.status.success());
    let flag = swarm_outside_tmux(&project)
        .arg("--help")
        .output()
        .expect("run");
    assert_eq!(help.stdout, flag.stdout, "`swarm help` is `swarm --help`");
    let out = swarm_outside_tmux(&project)
        .args(["help", "config"])
        .output()
        .expect("run");
    assert!(stdout(&out).contains("Usage: swarm config"));
    swarm_outside_tmux(&project)
        .arg("version")
        .assert()
        .success();
}

#[test]
fn completions_for_each_shell() {
    let project = Project::new();
    for shell in ["bash", "zsh", "fish"] {
        let out = swarm_outside_tmux(&project)
            .args(["completions", shell])
            .output()
            .expect("run");
        assert!(out.status.success(), "{shell}");
        let text = stdout(&out);
        assert!(
            text.contains("swarm") && text.contains("doctor"),
            "{shell}: {text}"
        );
    }
    let out = swarm_outside_tmux(&project)
        .args(["completions", "tcsh"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn new_commands_honour_color_choices() {
    let project = Project::new();
    let run = |args: &[&str], color: Option<&str>, no_color: bool| {
        let mut cmd = swarm_outside_tmux(&project);
        cmd.env(
            "SWARM_TMUX_SOCKET",
            format!("swarm-test-absent-{}", std::process::id()),
        );
        if !no_color {
            cmd.env_remove("NO_COLOR");
        }
        if let Some(c) = color {
            cmd.args(["--color", c]);
        }
        stdout(&cmd.args(args).output().expect("run"))
    };
    for args in [&["doctor"][..], &["init", "--yes"], &["config", "show"]] {
        assert!(
            run(args, Some("always"), true).contains('\x1b'),
            "{args:?} --color always"
        );
        assert!(
            !run(args, Some("never"), false).contains('\x1b'),
            "{args:?} --color never"
        );
        // Not a terminal (and NO_COLOR set by the harness): plain.
        assert!(!run(args, None, true).contains('\x1b'), "{args:?} auto");
    }
}

#[test]
fn hooks_run_swarm_by_one_rule_and_doctor_sees_when_it_is_gone() {
    let project = Project::new();
    git(&project.path(), &["init", "-q"]);
    let dir = tempfile::tempdir().expect("tempdir");
    let copy = dir.path().canonicalize().expect("canonical").join("swarm");
    std::fs::copy(swarm_bin(), &copy).expect("copy swarm");
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
        let out = swarm_outside_tmux(project)
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
    launch_demo(&project, &server, 2, "team");
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

#[test]
fn doctor_warns_about_locks_of_agents_that_are_gone() {
    let server = TmuxServer::start();
    let project = Project::new();
    launch_idle(&project, &server, 1, "demo");
    ok(swarm(&project, &server).args(["lock", "src/a.rs", "--agent", "agent-0"]));
    let checks = |project: &Project| {
        let out = swarm(project, &server)
            .args(["doctor", "--json"])
            .output()
            .expect("run doctor");
        stdout_json(&out)["checks"]
            .as_array()
            .expect("checks")
            .iter()
            .filter(|c| c["status"] != "ok")
            .map(|c| format!("{} {} {}", c["check"], c["message"], c["details"]))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert!(
        !checks(&project).contains("agent-0"),
        "{}",
        checks(&project)
    );
    // The session ends without `down`: its agent leaves the registry, its
    // lock stays.
    server.tmux(&["kill-session", "-t", "demo"]);
    ok(swarm(&project, &server).arg("discover"));
    let found = checks(&project);
    assert!(
        found.contains("agent-0") && found.contains("not in the registry"),
        "{found}"
    );
}

#[test]
fn init_without_a_terminal_says_once_what_it_did_and_skipped() {
    let server = TmuxServer::start();
    let project = Project::new();
    let out = ok(swarm(&project, &server).arg("init"));
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(text.matches("terminal").count(), 1, "{text}");
    let done = &text[text.find("=== Done ===").expect("a summary")..];
    let done = &done[..done.find("=== Next steps").expect("next steps")];
    assert!(done.contains("created"), "{done}");
    let skipped = done
        .lines()
        .find(|l| l.contains("skipped"))
        .unwrap_or_else(|| panic!("no skipped line in {done}"));
    for step in ["agent hooks", "git guard", "MCP server", ".gitignore"] {
        assert!(skipped.contains(step), "{step}: {skipped}");
    }
    // With --yes, a step that could not be done (this project's `.git` is
    // no repository, so there is no hook to guard) is no success.
    let out = ok(swarm(&project, &server).args(["init", "--yes"]));
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    for line in text.lines() {
        assert!(
            !(line.contains('✓') && line.contains("skipped")),
            "a skipped step with a check mark: {line}\n{text}"
        );
    }
    assert!(
        text.lines()
            .any(|l| l.contains("skipped") && l.contains("git guard")),
        "{text}"
    );
}
