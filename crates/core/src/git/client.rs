//! `Git`: every `git` call swarm makes, each a method with typed output.
//! git runs with the user's own config, hooks and credentials; reading
//! commands never take git's optional locks, so looking at a tree never
//! rewrites its index.

use std::ffi::{OsStr, OsString};
use std::io;
use std::path::{Path, PathBuf};
use std::process::Command;

use super::error::GitError;
use super::status::{StatusEntry, parse_status};
use super::version::GitVersion;
use super::worktree_list::{WorktreeEntry, parse_worktree_list};

/// Variables that point git at another repository, index or tree: a
/// command run from inside a git hook inherits them, and they would send
/// every call below to that one place.
const LOCATION_VARS: [&str; 6] = [
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_COMMON_DIR",
    "GIT_OBJECT_DIRECTORY",
    "GIT_PREFIX",
];

/// git, run in one directory.
#[derive(Clone, Debug)]
pub struct Git {
    dir: PathBuf,
    /// Whether the variables of an enclosing git hook are passed on.
    inherit_location: bool,
}

/// What `merge-tree --write-tree` decided.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum MergeTree {
    /// The merge is clean; this is the merged tree.
    Clean(String),
    /// These files conflict (each once).
    Conflicts(Vec<String>),
}

/// How a file differs between two trees (`git diff --name-status`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct TreeChange {
    /// `A` added, `D` deleted, `M` modified, `T` type changed.
    pub status: char,
    /// Its path, relative to the top of the repository.
    pub path: String,
}

impl Git {
    /// git as run from `dir`, in the environment swarm inherits: inside a
    /// git hook it sees the index git is committing.
    pub fn new(dir: impl Into<PathBuf>) -> Git {
        Git {
            dir: dir.into(),
            inherit_location: true,
        }
    }

    /// git as run from `dir` on the repository found there, whatever
    /// repository an enclosing git hook points at.
    pub(crate) fn at(dir: impl Into<PathBuf>) -> Git {
        Git {
            dir: dir.into(),
            inherit_location: false,
        }
    }

    fn joined<S: AsRef<OsStr>>(args: &[S]) -> String {
        args.iter()
            .map(|a| a.as_ref().to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// Runs git and returns its exit code and stdout; a code outside `ok`
    /// is an error carrying git's stderr.
    pub(super) fn run_with<S: AsRef<OsStr>>(
        &self,
        args: &[S],
        ok: &[i32],
    ) -> Result<(i32, Vec<u8>), GitError> {
        let mut cmd = Command::new("git");
        cmd.args(args)
            .current_dir(&self.dir)
            .env("GIT_OPTIONAL_LOCKS", "0")
            .stdin(std::process::Stdio::null());
        if !self.inherit_location {
            for var in LOCATION_VARS {
                cmd.env_remove(var);
            }
        }
        let out = cmd.output().map_err(|e| match e.kind() {
            io::ErrorKind::NotFound => GitError::NotInstalled,
            _ => GitError::Failed {
                args: Self::joined(args),
                stderr: e.to_string(),
            },
        })?;
        let code = out.status.code().unwrap_or(-1);
        if ok.contains(&code) {
            return Ok((code, out.stdout));
        }
        let stderr = String::from_utf8_lossy(&out.stderr).trim().to_owned();
        if stderr.contains("not a git repository") {
            return Err(GitError::NotARepo {
                dir: self.dir.clone(),
            });
        }
        Err(GitError::Failed {
            args: Self::joined(args),
            stderr,
        })
    }

    pub(super) fn run<S: AsRef<OsStr>>(&self, args: &[S]) -> Result<Vec<u8>, GitError> {
        Ok(self.run_with(args, &[0])?.1)
    }

    /// The first line of a command's output, without its line end.
    pub(super) fn line<S: AsRef<OsStr>>(&self, args: &[S]) -> Result<String, GitError> {
        let out = self.run(args)?;
        let text = String::from_utf8_lossy(&out);
        Ok(text.lines().next().unwrap_or_default().to_owned())
    }

    fn path_output(&self, args: &[&str]) -> Result<PathBuf, GitError> {
        Ok(self.dir.join(self.line(args)?))
    }

    pub(super) fn bad_output(args: &[&str], detail: &str) -> GitError {
        GitError::BadOutput {
            args: args.join(" "),
            detail: detail.to_owned(),
        }
    }

    /// NUL-separated names, empty ones dropped.
    pub(super) fn names(out: &[u8]) -> Vec<String> {
        out.split(|b| *b == 0)
            .filter(|p| !p.is_empty())
            .map(|p| String::from_utf8_lossy(p).into_owned())
            .collect()
    }

    /// The directory git runs hooks from (`core.hooksPath` or
    /// `.git/hooks`, also in linked worktrees).
    pub fn hooks_dir(&self) -> Result<PathBuf, GitError> {
        self.path_output(&["rev-parse", "--git-path", "hooks"])
    }

    /// The top directory of the working tree.
    pub fn toplevel(&self) -> Result<PathBuf, GitError> {
        self.path_output(&["rev-parse", "--show-toplevel"])
    }

    /// Paths (relative to the top directory) that the next commit adds,
    /// changes or deletes; a rename counts as both of its paths.
    pub fn staged_paths(&self) -> Result<Vec<String>, GitError> {
        let out = self.run(&["diff", "--cached", "--name-only", "--no-renames", "-z"])?;
        Ok(Self::names(&out))
    }

    /// The installed git's version.
    pub(crate) fn version(&self) -> Result<GitVersion, GitError> {
        let args = ["version"];
        let line = self.line(&args)?;
        GitVersion::parse(&line).ok_or_else(|| Self::bad_output(&args, &line))
    }

    /// The commit a revision names, `None` when it names none (an unborn
    /// branch, a missing ref).
    pub(crate) fn commit_of(&self, rev: &str) -> Result<Option<String>, GitError> {
        let spec = format!("{rev}^{{commit}}");
        let (code, out) = self.run_with(&["rev-parse", "-q", "--verify", &spec], &[0, 1])?;
        let sha = String::from_utf8_lossy(&out).trim().to_owned();
        Ok((code == 0 && !sha.is_empty()).then_some(sha))
    }

    /// The branch checked out here (`main`), `None` on a detached HEAD.
    pub(crate) fn checked_out_branch(&self) -> Result<Option<String>, GitError> {
        let (code, out) = self.run_with(&["symbolic-ref", "-q", "HEAD"], &[0, 1])?;
        let full = String::from_utf8_lossy(&out).trim().to_owned();
        Ok((code == 0)
            .then(|| full.strip_prefix("refs/heads/").map(str::to_owned))
            .flatten())
    }

    /// The local branches whose names start with `prefix` (`swarm/`).
    pub(crate) fn branches(&self, prefix: &str) -> Result<Vec<String>, GitError> {
        let pattern = format!("refs/heads/{prefix}");
        let out = self.run(&["for-each-ref", "--format=%(refname)", &pattern])?;
        Ok(String::from_utf8_lossy(&out)
            .lines()
            .filter_map(|l| l.strip_prefix("refs/heads/"))
            .filter(|b| b.starts_with(prefix))
            .map(str::to_owned)
            .collect())
    }

    /// Every worktree of the repository, the main one first.
    pub(crate) fn worktrees(&self) -> Result<Vec<WorktreeEntry>, GitError> {
        let out = self.run(&["worktree", "list", "--porcelain"])?;
        Ok(parse_worktree_list(&String::from_utf8_lossy(&out)))
    }

    /// Adds a worktree at `path` on `branch`: a new branch starting at
    /// `start`, or (`start` `None`) the existing branch.
    pub(crate) fn add_worktree(
        &self,
        path: &Path,
        branch: &str,
        start: Option<&str>,
    ) -> Result<(), GitError> {
        let mut args: Vec<OsString> = vec!["worktree".into(), "add".into(), "--quiet".into()];
        match start {
            Some(start) => {
                args.extend(["-b".into(), branch.into(), "--".into(), path.into()]);
                args.push(start.into());
            }
            None => args.extend(["--".into(), path.into(), branch.into()]),
        }
        self.run(&args).map(drop)
    }

    /// Removes a clean worktree (git refuses one with changes or
    /// untracked files, or a locked one).
    pub(crate) fn remove_worktree(&self, path: &Path) -> Result<(), GitError> {
        self.run(&[
            OsStr::new("worktree"),
            OsStr::new("remove"),
            OsStr::new("--"),
            path.as_os_str(),
        ])
        .map(drop)
    }

    /// Deletes a branch that is merged (git refuses one that is not).
    pub(crate) fn delete_merged_branch(&self, branch: &str) -> Result<(), GitError> {
        self.run(&["branch", "-d", "--", branch]).map(drop)
    }

    /// `(ahead, behind)`: commits on `branch` that `base` lacks, and
    /// commits on `base` that `branch` lacks.
    pub(crate) fn ahead_behind(&self, base: &str, branch: &str) -> Result<(u64, u64), GitError> {
        let range = format!("{base}...{branch}");
        let args = ["rev-list", "--left-right", "--count", range.as_str()];
        let line = self.line(&args)?;
        let mut counts = line.split_whitespace().map(str::parse::<u64>);
        match (counts.next(), counts.next()) {
            (Some(Ok(behind)), Some(Ok(ahead))) => Ok((ahead, behind)),
            _ => Err(Self::bad_output(&args, &line)),
        }
    }

    /// Files `branch` changed since it forked from `base` (committed).
    pub(crate) fn changed_since_fork(
        &self,
        base: &str,
        branch: &str,
    ) -> Result<Vec<String>, GitError> {
        let range = format!("{base}...{branch}");
        let out = self.run(&["diff", "--name-only", "-z", "--no-renames", &range, "--"])?;
        Ok(Self::names(&out))
    }

    /// How the tree of `to` differs from that of `from` (commits or trees).
    pub(crate) fn tree_changes(&self, from: &str, to: &str) -> Result<Vec<TreeChange>, GitError> {
        let out = self.run(&[
            "diff",
            "--name-status",
            "-z",
            "--no-renames",
            from,
            to,
            "--",
        ])?;
        let fields = Self::names(&out);
        Ok(fields
            .chunks(2)
            .filter_map(|pair| match pair {
                [status, path] => Some(TreeChange {
                    status: status.chars().next().unwrap_or('M'),
                    path: path.clone(),
                }),
                _ => None,
            })
            .collect())
    }

    /// The uncommitted changes of this worktree: staged, unstaged and
    /// untracked files (ignored ones left out).
    pub(crate) fn status(&self) -> Result<Vec<StatusEntry>, GitError> {
        let out = self.run(&[
            "status",
            "--porcelain=v1",
            "-z",
            "--no-renames",
            "--untracked-files=all",
        ])?;
        Ok(parse_status(&out))
    }

    /// True when `ancestor` is `descendant` or one of its ancestors.
    pub(crate) fn is_ancestor(&self, ancestor: &str, descendant: &str) -> Result<bool, GitError> {
        let (code, _) = self.run_with(
            &["merge-base", "--is-ancestor", ancestor, descendant],
            &[0, 1],
        )?;
        Ok(code == 0)
    }

    /// Merges `theirs` into `ours` in memory only: writes the merged tree
    /// as an object and touches no worktree, index or ref (git 2.38).
    pub(crate) fn merge_tree(&self, ours: &str, theirs: &str) -> Result<MergeTree, GitError> {
        let args = [
            "merge-tree",
            "--write-tree",
            "-z",
            "--name-only",
            "--no-messages",
            ours,
            theirs,
        ];
        let (code, out) = self.run_with(&args, &[0, 1])?;
        let mut fields = Self::names(&out).into_iter();
        let tree = fields
            .next()
            .ok_or_else(|| Self::bad_output(&args, "no tree"))?;
        Ok(if code == 0 {
            MergeTree::Clean(tree)
        } else {
            MergeTree::Conflicts(fields.collect())
        })
    }

    /// Writes a commit of `tree` with these parents and message, by the
    /// user's git identity, and returns it; no ref moves.
    pub(crate) fn commit_tree(
        &self,
        tree: &str,
        parents: &[&str],
        message: &str,
    ) -> Result<String, GitError> {
        let mut args = vec!["commit-tree", tree];
        for p in parents {
            args.extend(["-p", p]);
        }
        args.extend(["-m", message]);
        self.line(&args)
    }

    /// Fast-forwards the branch checked out here to `commit`, updating the
    /// index and the files; git checks first and changes nothing when a
    /// local change or an untracked file is in the way.
    pub(crate) fn fast_forward_to(&self, commit: &str) -> Result<(), GitError> {
        self.run(&["merge", "--ff-only", "--no-autostash", "--quiet", commit])
            .map(drop)
    }

    /// Moves branch `branch` from `old` to `new`, only if it is still at
    /// `old` (no worktree is touched).
    pub(crate) fn move_branch(
        &self,
        branch: &str,
        new: &str,
        old: &str,
        reason: &str,
    ) -> Result<(), GitError> {
        let full = format!("refs/heads/{branch}");
        self.run(&["update-ref", "-m", reason, &full, new, old])
            .map(drop)
    }

    /// True while a merge is under way here (`MERGE_HEAD` exists).
    pub(crate) fn merging(&self) -> Result<bool, GitError> {
        Ok(self.commit_of("MERGE_HEAD")?.is_some())
    }
}
