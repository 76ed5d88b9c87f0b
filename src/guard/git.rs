//! The one place that runs `git`: where a repository keeps its hooks and
//! which paths a commit is about to record. Runs in the environment it
//! inherits, so inside a git hook it sees the index git is committing.

use std::ffi::OsStr;
use std::io;
use std::path::PathBuf;
use std::process::Command;

/// A `git` call that did not work.
#[derive(Debug, thiserror::Error)]
pub enum GitError {
    /// `git` is not on PATH.
    #[error("`git` is not installed (not found on PATH)")]
    NotInstalled,
    /// The directory is not inside a git repository.
    #[error("{} is not inside a git repository", dir.display())]
    NotARepo {
        /// Where git ran.
        dir: PathBuf,
    },
    /// Any other failure, with git's own explanation.
    #[error("`git {args}` failed: {stderr}")]
    Failed {
        /// The arguments, joined.
        args: String,
        /// What git printed on stderr (or why it could not run).
        stderr: String,
    },
}

/// git, run in one directory.
#[derive(Clone, Debug)]
pub(crate) struct Git {
    dir: PathBuf,
}

impl Git {
    /// git as run from `dir`.
    pub(crate) fn new(dir: impl Into<PathBuf>) -> Git {
        Git { dir: dir.into() }
    }

    fn run<S: AsRef<OsStr>>(&self, args: &[S]) -> Result<Vec<u8>, GitError> {
        let joined = || {
            args.iter()
                .map(|a| a.as_ref().to_string_lossy().into_owned())
                .collect::<Vec<_>>()
                .join(" ")
        };
        let out = Command::new("git")
            .args(args)
            .current_dir(&self.dir)
            .output()
            .map_err(|e| match e.kind() {
                io::ErrorKind::NotFound => GitError::NotInstalled,
                _ => GitError::Failed {
                    args: joined(),
                    stderr: e.to_string(),
                },
            })?;
        if out.status.success() {
            return Ok(out.stdout);
        }
        let stderr = String::from_utf8_lossy(&out.stderr).trim().to_owned();
        if stderr.contains("not a git repository") {
            return Err(GitError::NotARepo {
                dir: self.dir.clone(),
            });
        }
        Err(GitError::Failed {
            args: joined(),
            stderr,
        })
    }

    fn path_output(&self, args: &[&str]) -> Result<PathBuf, GitError> {
        let out = self.run(args)?;
        let text = String::from_utf8_lossy(&out);
        Ok(self.dir.join(text.trim_end_matches(['\n', '\r'])))
    }

    /// The directory git runs hooks from (`core.hooksPath` or
    /// `.git/hooks`, also in linked worktrees).
    pub(crate) fn hooks_dir(&self) -> Result<PathBuf, GitError> {
        self.path_output(&["rev-parse", "--git-path", "hooks"])
    }

    /// The top directory of the working tree.
    pub(crate) fn toplevel(&self) -> Result<PathBuf, GitError> {
        self.path_output(&["rev-parse", "--show-toplevel"])
    }

    /// Paths (relative to the top directory) that the next commit adds,
    /// changes or deletes; a rename counts as both of its paths.
    pub(crate) fn staged_paths(&self) -> Result<Vec<String>, GitError> {
        let out = self.run(&["diff", "--cached", "--name-only", "--no-renames", "-z"])?;
        Ok(out
            .split(|b| *b == 0)
            .filter(|p| !p.is_empty())
            .map(|p| String::from_utf8_lossy(p).into_owned())
            .collect())
    }
}
