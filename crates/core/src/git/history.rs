//! The git calls behind review, the merge queue and `changes --since`:
//! a file as a branch holds it, a branch's diff summary, commits since a
//! time with their `Swarm-Agent` trailer, throwaway worktrees, and the
//! per-worktree config that gives an agent's worktree hooks of its own.

use std::ffi::OsString;
use std::path::Path;

use super::client::Git;
use super::error::GitError;

/// One file's lines added and removed (`git diff --numstat`); `None`
/// counts for a binary file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct NumStat {
    /// Its path.
    pub path: String,
    /// Lines added.
    pub added: Option<u64>,
    /// Lines removed.
    pub removed: Option<u64>,
}

/// One commit of `log_since`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct LoggedCommit {
    /// Its id.
    pub commit: String,
    /// When it was committed, in Unix seconds.
    pub committed: i64,
    /// Its first line.
    pub subject: String,
    /// The value of its `Swarm-Agent` trailer, if any.
    pub agent: Option<String>,
    /// The files it changed (none listed for a merge commit).
    pub files: Vec<String>,
}

/// The trailer that names the agent a commit was made by.
pub(crate) const AGENT_TRAILER: &str = "Swarm-Agent";

impl Git {
    /// The bytes of `path` in `rev` (`git show rev:path`), `None` when
    /// `rev` has no such file.
    pub(crate) fn file_at(&self, rev: &str, path: &str) -> Result<Option<Vec<u8>>, GitError> {
        let spec = format!("{rev}:{path}");
        let (code, out) = self.run_with(&["cat-file", "blob", &spec], &[0, 128])?;
        Ok((code == 0).then_some(out))
    }

    /// Lines added and removed per file on `branch` since it forked from
    /// `base`.
    pub(crate) fn numstat_since_fork(
        &self,
        base: &str,
        branch: &str,
    ) -> Result<Vec<NumStat>, GitError> {
        let range = format!("{base}...{branch}");
        let out = self.run(&["diff", "--numstat", "-z", "--no-renames", &range, "--"])?;
        Ok(Self::names(&out)
            .iter()
            .filter_map(|field| {
                let mut parts = field.splitn(3, '\t');
                let added = parts.next()?.parse().ok();
                let removed = parts.next()?.parse().ok();
                Some(NumStat {
                    path: parts.next()?.to_owned(),
                    added,
                    removed,
                })
            })
            .collect())
    }

    /// Commits on any local branch committed at `since` (Unix seconds) or
    /// later, newest first, each once.
    pub(crate) fn log_since(&self, since: i64) -> Result<Vec<LoggedCommit>, GitError> {
        let format = format!(
            "--format=%x1e%H%x1f%ct%x1f%s%x1f%(trailers:key={AGENT_TRAILER},valueonly,separator=%x2C)%x1f"
        );
        let after = format!("--since=@{since}");
        let out = self.run(&[
            "log",
            "--branches",
            "--no-renames",
            "--name-only",
            after.as_str(),
            format.as_str(),
        ])?;
        let text = String::from_utf8_lossy(&out);
        Ok(text
            .split('\x1e')
            .filter_map(|record| {
                let mut fields = record.splitn(5, '\x1f');
                let commit = fields.next()?.trim().to_owned();
                let committed: i64 = fields.next()?.trim().parse().ok()?;
                let subject = fields.next()?.to_owned();
                let agent = fields
                    .next()?
                    .split(',')
                    .map(str::trim)
                    .find(|v| !v.is_empty())
                    .map(str::to_owned);
                let files = fields
                    .next()
                    .unwrap_or_default()
                    .lines()
                    .map(str::trim)
                    .filter(|l| !l.is_empty())
                    .map(str::to_owned)
                    .collect();
                (committed >= since).then_some(LoggedCommit {
                    commit,
                    committed,
                    subject,
                    agent,
                    files,
                })
            })
            .collect())
    }

    /// Adds a worktree at `path` with `commit` checked out, detached.
    pub(crate) fn add_detached_worktree(&self, path: &Path, commit: &str) -> Result<(), GitError> {
        let args: Vec<OsString> = vec![
            "worktree".into(),
            "add".into(),
            "--quiet".into(),
            "--detach".into(),
            "--".into(),
            path.into(),
            commit.into(),
        ];
        self.run(&args).map(drop)
    }

    /// Removes a worktree and whatever it holds (a throwaway one).
    pub(crate) fn remove_worktree_forced(&self, path: &Path) -> Result<(), GitError> {
        let args: Vec<OsString> = vec![
            "worktree".into(),
            "remove".into(),
            "--force".into(),
            "--force".into(),
            "--".into(),
            path.into(),
        ];
        self.run(&args).map(drop)
    }

    /// Sets `key` in the repository's own config (`.git/config`).
    pub(crate) fn set_repo_config(&self, key: &str, value: &str) -> Result<(), GitError> {
        self.run(&["config", "--local", key, value]).map(drop)
    }

    /// Sets `key` in this worktree's own config (`config.worktree`; needs
    /// `extensions.worktreeConfig`).
    pub(crate) fn set_worktree_config(&self, key: &str, value: &str) -> Result<(), GitError> {
        self.run(&["config", "--worktree", key, value]).map(drop)
    }

    /// This worktree's private git directory (`.git/worktrees/<name>` for
    /// a linked one).
    pub(crate) fn git_dir(&self) -> Result<std::path::PathBuf, GitError> {
        let line = self.line(&["rev-parse", "--absolute-git-dir"])?;
        Ok(std::path::PathBuf::from(line))
    }

    /// Files and directories git ignores here and does not track
    /// (`ls-files --others --ignored --exclude-standard --directory`).
    pub(crate) fn ignored(&self) -> Result<Vec<String>, GitError> {
        let out = self.run(&[
            "ls-files",
            "--others",
            "--ignored",
            "--exclude-standard",
            "--directory",
            "-z",
        ])?;
        Ok(Self::names(&out))
    }
}
