//! A git repository for the tests of agents' worktrees and reviews: one
//! commit, a private tmux server, an empty HOME; and the readers of a
//! finished command's output those tests share.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use super::{Project, TmuxServer, stderr, stdout_json, swarm};

/// A git repository with one commit (`src/a.py`, `src/b.py`, and the
/// `.gitignore` lines `swarm init` writes), and a private tmux server.
pub struct Repo {
    pub project: Project,
    pub server: TmuxServer,
    /// An empty HOME, so that no git config of the user's applies.
    pub home: tempfile::TempDir,
}

impl Repo {
    pub fn new() -> Repo {
        let project = Project::new();
        fs::remove_dir(project.file(".git")).expect("rmdir .git");
        let repo = Repo {
            project,
            server: TmuxServer::start(),
            home: tempfile::tempdir().expect("tempdir"),
        };
        repo.git(&repo.root(), &["init", "-q", "-b", "main"]);
        repo.git(&repo.root(), &["config", "user.name", "Tess Ter"]);
        repo.git(&repo.root(), &["config", "user.email", "tess@example.com"]);
        fs::create_dir_all(repo.project.file("src")).expect("mkdir");
        repo.project.write("src/a.py", "a = 1\n");
        repo.project.write("src/b.py", "b = 1\n");
        repo.project.write(
            ".gitignore",
            "/ACTIVE_AGENTS.json\n/PENDING_ACKS.json\n/agent_messages.log\n/.agent_locks/\n\
             /.swarm/\n/.*.json.lock\n/.agent_messages.log.lock\n",
        );
        repo.git(&repo.root(), &["add", "."]);
        repo.git(&repo.root(), &["commit", "-q", "-m", "initial"]);
        repo
    }

    pub fn root(&self) -> PathBuf {
        self.project.path()
    }

    pub fn worktree(&self, agent: &str) -> PathBuf {
        self.root().join(".swarm/worktrees").join(agent)
    }

    pub fn env(&self, cmd: &mut Command) {
        cmd.env("HOME", self.home.path())
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env_remove("GIT_DIR")
            .env_remove("GIT_WORK_TREE");
    }

    /// git in `dir`; fails the test when git fails.
    pub fn git(&self, dir: &Path, args: &[&str]) -> String {
        let out = self.try_git(dir, args);
        assert!(
            out.status.success(),
            "git {args:?} in {}: {}",
            dir.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    pub fn try_git(&self, dir: &Path, args: &[&str]) -> Output {
        let mut cmd = Command::new("git");
        cmd.current_dir(dir).args(args);
        self.env(&mut cmd);
        cmd.output().expect("run git")
    }

    /// Writes `text` to `rel` in `dir` and commits it there.
    pub fn commit_file(&self, dir: &Path, rel: &str, text: &str) {
        let path = dir.join(rel);
        fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        fs::write(&path, text).expect("write");
        self.git(dir, &["add", rel]);
        self.git(dir, &["commit", "-q", "-m", &format!("change {rel}")]);
    }

    /// `swarm ARGS` run in `dir`.
    pub fn swarm_in(&self, dir: &Path, args: &[&str]) -> Output {
        self.swarm_with(dir, &[], args)
    }

    /// `swarm ARGS` run in `dir` with more environment.
    pub fn swarm_with(&self, dir: &Path, env: &[(&str, String)], args: &[&str]) -> Output {
        let mut cmd = swarm(&self.project, &self.server);
        cmd.current_dir(dir)
            .env("HOME", self.home.path())
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .envs(env.iter().map(|(k, v)| (k, v)))
            .args(args);
        cmd.output().expect("run swarm")
    }

    /// `swarm ARGS` run in the main worktree.
    pub fn swarm(&self, args: &[&str]) -> Output {
        self.swarm_in(&self.root(), args)
    }

    /// Launches `n` demo agents with worktrees and waits until each is up.
    pub fn launch(&self, n: usize) -> Vec<String> {
        let count = n.to_string();
        let out = ok(self.swarm(&[
            "launch",
            &count,
            "--agent",
            "demo",
            "--worktrees",
            "--session",
            "wt",
            "--no-attach",
            "--json",
        ]));
        let report = stdout_json(&out);
        let mut ids = Vec::new();
        for a in report["agents"].as_array().expect("agents") {
            let id = a["id"].as_str().expect("id").to_owned();
            let pane = a["pane"].as_str().expect("pane");
            self.server.wait_for_screen(pane, "waiting for messages");
            ids.push(id);
        }
        ids
    }

    /// Every file under the main worktree with its bytes, except git's
    /// object store (which `merge-tree` may add objects to).
    pub fn snapshot(&self) -> BTreeMap<PathBuf, Vec<u8>> {
        let mut out = BTreeMap::new();
        let root = self.root();
        let skip = root.join(".git/objects");
        let mut stack = vec![root.clone()];
        while let Some(dir) = stack.pop() {
            for entry in fs::read_dir(&dir).expect("read_dir") {
                let path = entry.expect("entry").path();
                let meta = fs::symlink_metadata(&path).expect("stat");
                if path == skip {
                    continue;
                }
                if meta.is_dir() {
                    stack.push(path);
                } else if meta.is_file() {
                    let rel = path.strip_prefix(&root).expect("inside").to_owned();
                    out.insert(rel, fs::read(&path).expect("read"));
                }
            }
        }
        out
    }
}

/// Fails the test unless `out` is a success; returns it.
pub fn ok(out: Output) -> Output {
    assert!(
        out.status.success(),
        "failed ({:?}): {}{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// Fails the test unless `out` exited with `code` and its stderr holds
/// every one of `needles`.
pub fn refused(out: &Output, code: i32, needles: &[&str]) {
    let err = stderr(out);
    assert_eq!(out.status.code(), Some(code), "{err}");
    for needle in needles {
        assert!(err.contains(needle), "{needle:?} not in: {err}");
    }
}

/// git in `dir`, with `dir` as its HOME so that no git config of the
/// user's or the system's applies; fails the test when git fails; its
/// stdout.
pub fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
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
