//! Enforcement: the git pre-commit guard in a real repository, and the
//! Claude Code `PreToolUse` handler fed the JSON Claude Code sends.

use std::fs;
use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use crate::harness::{TmuxServer, register_agents, swarm_bin};

/// A scratch git repository with one commit, `src/a.py` and `src/b.py`.
struct Repo {
    dir: tempfile::TempDir,
}

impl Repo {
    fn new() -> Repo {
        let dir = tempfile::Builder::new()
            .prefix("swarm-test-")
            .tempdir()
            .expect("tempdir");
        let repo = Repo { dir };
        repo.git(&["init", "-q", "-b", "main"]);
        fs::create_dir_all(repo.path().join("src")).expect("mkdir");
        repo.write("src/a.py", "a = 1\n");
        repo.write("src/b.py", "b = 1\n");
        repo.git(&["add", "."]);
        repo.commit("initial").expect_success();
        repo
    }

    fn path(&self) -> std::path::PathBuf {
        self.dir.path().canonicalize().expect("canonical")
    }

    fn write(&self, rel: &str, text: &str) {
        fs::write(self.path().join(rel), text).expect("write");
    }

    fn command(&self, program: &str) -> Command {
        let mut cmd = Command::new(program);
        cmd.current_dir(self.path())
            .env_remove("TMUX")
            .env_remove("TMUX_PANE")
            .env_remove("CLAUDESWARM_ROOT")
            .env_remove("SWARM_GUARD")
            .env("NO_COLOR", "1")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("HOME", self.path());
        cmd
    }

    fn git(&self, args: &[&str]) -> Output {
        let out = self.command("git").args(args).output().expect("run git");
        assert!(
            out.status.success(),
            "git {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        out
    }

    fn commit(&self, message: &str) -> Output {
        self.commit_with(message, &[])
    }

    fn commit_with(&self, message: &str, env: &[(&str, &str)]) -> Output {
        self.command("git")
            .envs(env.iter().copied())
            .args([
                "-c",
                "user.name=t",
                "-c",
                "user.email=t@example.com",
                "commit",
                "-q",
                "-m",
                message,
            ])
            .output()
            .expect("run git commit")
    }

    fn swarm(&self, args: &[&str]) -> Output {
        self.command(swarm_bin())
            .args(args)
            .output()
            .expect("run swarm")
    }

    fn hook(&self) -> std::path::PathBuf {
        self.path().join(".git/hooks/pre-commit")
    }
}

trait Succeeds {
    fn expect_success(self) -> Output;
}

impl Succeeds for Output {
    fn expect_success(self) -> Output {
        assert!(
            self.status.success(),
            "failed ({:?}): {}{}",
            self.status.code(),
            String::from_utf8_lossy(&self.stdout),
            String::from_utf8_lossy(&self.stderr)
        );
        self
    }
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn pre_commit_guard_blocks_locked_files_and_passes_the_rest() {
    let repo = Repo::new();
    register_agents(&repo.path(), &["agent-2"], None);
    repo.swarm(&["guard", "install"]).expect_success();
    assert!(repo.hook().exists());
    repo.swarm(&[
        "lock", "src/a.py", "--agent", "agent-2", "--reason", "refactor",
    ])
    .expect_success();

    // Touching a locked file: refused, naming the holder and the reason.
    repo.write("src/a.py", "a = 2\n");
    repo.git(&["add", "src/a.py"]);
    let out = repo.commit("touch a");
    assert!(!out.status.success());
    let err = text(&out.stderr);
    assert!(err.contains("src/a.py is locked by agent-2"), "{err}");
    assert!(err.contains("refactor"), "{err}");
    assert!(err.contains("SWARM_GUARD=off"), "{err}");

    // Only unlocked files staged: the commit goes through.
    repo.git(&["reset", "-q", "src/a.py"]);
    repo.write("src/b.py", "b = 2\n");
    repo.git(&["add", "src/b.py"]);
    repo.commit("touch b").expect_success();

    // Deleting or renaming a locked file counts too.
    repo.git(&["mv", "src/a.py", "src/c.py"]);
    assert!(!repo.commit("rename a").status.success());

    // Bypassed on purpose.
    repo.commit_with("bypass", &[("SWARM_GUARD", "off")])
        .expect_success();

    // Once released, nothing stands in the way.
    repo.swarm(&["unlock", "src/c.py", "--agent", "agent-2"])
        .expect_success();
    repo.swarm(&["unlock", "src/a.py", "--agent", "agent-2"])
        .expect_success();
    repo.write("src/b.py", "b = 3\n");
    repo.git(&["add", "src/b.py"]);
    repo.commit("after").expect_success();
}

#[test]
fn a_stale_lock_does_not_block_a_commit() {
    let repo = Repo::new();
    repo.swarm(&["guard", "install"]).expect_success();
    let old = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("clock")
        .as_secs_f64()
        - 10_000.0;
    fs::create_dir_all(repo.path().join(".agent_locks")).expect("mkdir");
    fs::write(
        repo.path().join(format!(
            ".agent_locks/{}",
            swarm::lock_file_name("src/a.py")
        )),
        format!(
            "{{\"agent_id\": \"agent-9\", \"filepath\": \"src/a.py\", \"locked_at\": {old}, \"reason\": \"\"}}"
        ),
    )
    .expect("write");
    repo.write("src/a.py", "a = 2\n");
    repo.git(&["add", "src/a.py"]);
    repo.commit("stale is no lock").expect_success();
}

#[test]
fn install_merges_with_an_existing_hook_and_uninstall_restores_it() {
    let repo = Repo::new();
    let original = "#!/bin/sh\n# the team's own checks\necho team-hook-ran >&2\nexit 0\n";
    fs::write(repo.hook(), original).expect("write hook");
    fs::set_permissions(repo.hook(), fs::Permissions::from_mode(0o750)).expect("chmod");

    let out = repo.swarm(&["guard", "install"]).expect_success();
    assert!(
        text(&out.stdout).contains("Added the swarm guard"),
        "{}",
        text(&out.stdout)
    );
    let merged = fs::read_to_string(repo.hook()).expect("read");
    assert!(
        merged.starts_with("#!/bin/sh\n# >>> swarm guard >>>"),
        "{merged}"
    );
    assert!(merged.ends_with("# the team's own checks\necho team-hook-ran >&2\nexit 0\n"));
    // Installing twice adds nothing.
    repo.swarm(&["guard", "install"]).expect_success();
    assert_eq!(fs::read_to_string(repo.hook()).expect("read"), merged);

    // Both run: the guard first (it refuses here), the team's hook when it
    // lets the commit through.
    register_agents(&repo.path(), &["agent-2"], None);
    repo.swarm(&["lock", "src/a.py", "--agent", "agent-2"])
        .expect_success();
    repo.write("src/a.py", "a = 2\n");
    repo.git(&["add", "src/a.py"]);
    let out = repo.commit("blocked");
    assert!(!out.status.success());
    assert!(!text(&out.stderr).contains("team-hook-ran"));
    repo.git(&["reset", "-q", "src/a.py"]);
    repo.write("src/b.py", "b = 2\n");
    repo.git(&["add", "src/b.py"]);
    let out = repo.commit("passes").expect_success();
    assert!(text(&out.stderr).contains("team-hook-ran"));

    repo.swarm(&["guard", "uninstall"]).expect_success();
    assert_eq!(fs::read_to_string(repo.hook()).expect("read"), original);
    let mode = fs::metadata(repo.hook())
        .expect("meta")
        .permissions()
        .mode()
        & 0o777;
    assert_eq!(mode, 0o750);
    let out = repo.swarm(&["guard", "uninstall"]).expect_success();
    assert!(text(&out.stdout).contains("nothing to do"));
}

#[test]
fn a_hook_swarm_created_is_removed_and_a_foreign_one_is_left_alone() {
    let repo = Repo::new();
    repo.swarm(&["guard", "install"]).expect_success();
    repo.swarm(&["guard", "uninstall"]).expect_success();
    assert!(!repo.hook().exists());

    let python = "#!/usr/bin/env python3\nprint('hi')\n";
    fs::write(repo.hook(), python).expect("write");
    let out = repo.swarm(&["guard", "install"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("not a shell script"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(fs::read_to_string(repo.hook()).expect("read"), python);
}

// ---------------------------------------------------------------------
// Claude Code PreToolUse handler.
// ---------------------------------------------------------------------

/// Runs `swarm guard check-edit` in `dir` with `input` on stdin.
fn check_edit(dir: &Path, input: &str, env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(swarm_bin());
    cmd.args(["guard", "check-edit"])
        .current_dir(dir)
        .env_remove("TMUX")
        .env_remove("TMUX_PANE")
        .env_remove("CLAUDESWARM_ROOT")
        .env_remove("SWARM_GUARD")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().expect("spawn");
    // With the guard off, swarm may exit before it reads its input.
    match child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input.as_bytes())
    {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
        other => other.expect("write stdin"),
    }
    child.wait_with_output().expect("wait")
}

fn hook_input(tool: &str, cwd: &Path, file: &str) -> String {
    serde_json::json!({
        "session_id": "abc123",
        "transcript_path": "/tmp/t.jsonl",
        "cwd": cwd,
        "permission_mode": "default",
        "hook_event_name": "PreToolUse",
        "tool_name": tool,
        "tool_input": {"file_path": file, "old_string": "a", "new_string": "b"},
        "tool_use_id": "toolu_01"
    })
    .to_string()
}

#[test]
fn claude_code_edits_of_locked_files_are_blocked_with_the_holder_named() {
    let repo = Repo::new();
    register_agents(&repo.path(), &["agent-2"], None);
    let root = repo.path();
    repo.swarm(&[
        "lock",
        "src/a.py",
        "--agent",
        "agent-2",
        "--reason",
        "JWT refactor",
    ])
    .expect_success();
    let a = root.join("src/a.py").to_string_lossy().into_owned();
    for tool in ["Edit", "Write", "MultiEdit"] {
        let out = check_edit(&root, &hook_input(tool, &root, &a), &[]);
        assert_eq!(out.status.code(), Some(2), "{tool}");
        let err = text(&out.stderr);
        assert!(
            err.contains("agent-2") && err.contains("JWT refactor"),
            "{err}"
        );
        assert!(out.stdout.is_empty());
    }
    // A relative path is taken from the session's directory.
    let out = check_edit(&root, &hook_input("Edit", &root.join("src"), "a.py"), &[]);
    assert_eq!(out.status.code(), Some(2));

    // Allowed silently: another file, another tool, a file outside the
    // project, and any edit with the guard switched off.
    let b = root.join("src/b.py").to_string_lossy().into_owned();
    for input in [
        hook_input("Edit", &root, &b),
        hook_input("Read", &root, &a),
        hook_input("Write", &root, "/etc/hosts"),
    ] {
        let out = check_edit(&root, &input, &[]);
        assert_eq!(out.status.code(), Some(0), "{input}");
        assert!(out.stderr.is_empty(), "{}", text(&out.stderr));
    }
    let out = check_edit(
        &root,
        &hook_input("Edit", &root, &a),
        &[("SWARM_GUARD", "off")],
    );
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn malformed_hook_input_never_blocks_or_crashes() {
    let repo = Repo::new();
    let root = repo.path();
    for input in [
        "",
        "not json",
        "[]",
        "{\"tool_name\": \"Edit\"}",
        "{\"tool_name\": \"Edit\", \"tool_input\": {\"file_path\": 3}}",
        "{\"tool_name\": 7}",
    ] {
        let out = check_edit(&root, input, &[]);
        assert_eq!(out.status.code(), Some(0), "{input:?}");
        assert!(
            text(&out.stderr).contains("not checked"),
            "{input:?}: {}",
            text(&out.stderr)
        );
    }
    // Even a project it cannot read (a broken config) allows the edit.
    fs::write(
        root.join(".claudeswarm.toml"),
        "[locking]\nstale_timeout = \"x\"\n",
    )
    .expect("write");
    let a = root.join("src/a.py").to_string_lossy().into_owned();
    let out = check_edit(&root, &hook_input("Edit", &root, &a), &[]);
    assert_eq!(out.status.code(), Some(0));
    assert!(
        text(&out.stderr).contains("not checked"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn an_agent_commits_and_edits_files_it_locked_itself() {
    let server = TmuxServer::start();
    let repo = Repo::new();
    let root = repo.path();
    let pane = server.demo_agent(&root, &root.join(".agent-record.jsonl"));
    let as_agent = |cmd: &mut Command| {
        cmd.env("SWARM_TMUX_SOCKET", &server.socket)
            .env("TMUX_PANE", &pane);
    };
    let mut discover = repo.command(swarm_bin());
    as_agent(discover.arg("discover"));
    discover.output().expect("discover").expect_success();
    repo.swarm(&["guard", "install"]).expect_success();
    let mut lock = repo.command(swarm_bin());
    as_agent(lock.args(["lock", "src/a.py"]));
    lock.output().expect("lock").expect_success();
    register_agents(&root, &["agent-5"], None);
    repo.swarm(&["lock", "src/b.py", "--agent", "agent-5"])
        .expect_success();

    // Its own lock does not stop it.
    let a = root.join("src/a.py").to_string_lossy().into_owned();
    let mut edit = Command::new(swarm_bin());
    edit.args(["guard", "check-edit"])
        .current_dir(&root)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    as_agent(&mut edit);
    let mut child = edit.spawn().expect("spawn");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(hook_input("Edit", &root, &a).as_bytes())
        .expect("write");
    let out = child.wait_with_output().expect("wait");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    repo.write("src/a.py", "a = 2\n");
    repo.git(&["add", "src/a.py"]);
    let mut commit = repo.command("git");
    commit.args([
        "-c",
        "user.name=t",
        "-c",
        "user.email=t@example.com",
        "commit",
        "-q",
        "-m",
        "mine",
    ]);
    as_agent(&mut commit);
    commit.output().expect("commit").expect_success();

    // Another agent's lock does.
    repo.write("src/b.py", "b = 2\n");
    repo.git(&["add", "src/b.py"]);
    let mut commit = repo.command("git");
    commit.args([
        "-c",
        "user.name=t",
        "-c",
        "user.email=t@example.com",
        "commit",
        "-q",
        "-m",
        "theirs",
    ]);
    as_agent(&mut commit);
    let out = commit.output().expect("commit");
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("agent-5"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn nobody_edits_under_a_shared_lock_until_it_holds_the_path_alone() {
    let server = TmuxServer::start();
    let repo = Repo::new();
    let root = repo.path();
    let pane = server.demo_agent(&root, &root.join(".agent-record.jsonl"));
    let me = [
        ("SWARM_TMUX_SOCKET", server.socket.as_str()),
        ("TMUX_PANE", pane.as_str()),
    ];
    repo.command(swarm_bin())
        .envs(me)
        .arg("discover")
        .output()
        .expect("discover")
        .expect_success();
    repo.swarm(&["guard", "install"]).expect_success();
    register_agents(&root, &["agent-5"], None);
    repo.swarm(&[
        "lock",
        "src/b.py",
        "--shared",
        "--agent",
        "agent-5",
        "--reason",
        "reviewing",
    ])
    .expect_success();

    // Someone else reads it: the edit and the commit are refused, naming
    // the reader.
    let b = root.join("src/b.py").to_string_lossy().into_owned();
    let out = check_edit(&root, &hook_input("Edit", &root, &b), &me);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    assert!(
        err.contains("locked (shared) by agent-5") && err.contains("reviewing"),
        "{err}"
    );
    assert!(err.contains("ask agent-5"), "{err}");
    repo.write("src/b.py", "b = 2\n");
    repo.git(&["add", "src/b.py"]);
    let out = repo.commit_with("under a reader", &me);
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("agent-5"),
        "{}",
        text(&out.stderr)
    );
    repo.git(&["reset", "-q", "src/b.py"]);

    // Its own reading stops it too, until it takes the path exclusively.
    let mut take = repo.command(swarm_bin());
    take.envs(me).args(["lock", "src/a.py", "--shared"]);
    take.output().expect("lock").expect_success();
    let a = root.join("src/a.py").to_string_lossy().into_owned();
    let out = check_edit(&root, &hook_input("Write", &root, &a), &me);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("You hold a shared (reading) lock on it"),
        "{}",
        text(&out.stderr)
    );
    let mut upgrade = repo.command(swarm_bin());
    upgrade.envs(me).args(["lock", "src/a.py"]);
    upgrade.output().expect("lock").expect_success();
    let out = check_edit(&root, &hook_input("Write", &root, &a), &me);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    repo.write("src/a.py", "a = 2\n");
    repo.git(&["add", "src/a.py"]);
    repo.commit_with("mine alone", &me).expect_success();
}
