//! Why a worktree operation failed or was refused.

use std::path::PathBuf;

use crate::git::GitError;
use crate::store::StoreError;
use crate::support::exit_code::ExitCode;

/// A worktree operation that could not be done, or a merge refused before
/// anything was touched.
#[derive(Debug, thiserror::Error)]
pub enum WorktreeError {
    /// A git call failed.
    #[error(transparent)]
    Git(#[from] GitError),
    /// The project root is not the top of a git repository's main
    /// worktree.
    #[error("{} is not the top of a git repository{}", root.display(), top.as_ref().map(|t| format!(" (the repository's top is {})", t.display())).unwrap_or_default())]
    NotARepository {
        /// The project root.
        root: PathBuf,
        /// The top of the repository it is in, when it is in one.
        top: Option<PathBuf>,
    },
    /// The repository has no commit to start branches from.
    #[error("the repository in {} has no commit yet, so there is nothing to start the agents' branches from", root.display())]
    NoCommit {
        /// The project root.
        root: PathBuf,
    },
    /// Something that is not this agent's worktree is where it would go.
    #[error("{} exists but is not a worktree of this repository on branch {branch}", path.display())]
    InTheWay {
        /// Where the worktree would go.
        path: PathBuf,
        /// The branch it would be on.
        branch: String,
    },
    /// No branch `swarm/<agent>`.
    #[error("there is no branch {branch} (agent {agent} has no worktree branch)")]
    NoBranch {
        /// The agent named.
        agent: String,
        /// The branch looked for.
        branch: String,
        /// The agents that have one, for the hint.
        known: Vec<String>,
    },
    /// No branch to merge into: the main worktree's HEAD is detached and
    /// `--into` was not given.
    #[error(
        "the main worktree has no branch checked out (its HEAD is detached), so there is no branch to merge into"
    )]
    Detached,
    /// `--into` names a branch that does not exist.
    #[error("there is no branch {0} to merge into")]
    NoTarget(String),
    /// The target branch is checked out in another worktree, whose files
    /// swarm will not change.
    #[error("branch {branch} is checked out in {}, not in the main worktree", worktree.display())]
    CheckedOutElsewhere {
        /// The branch.
        branch: String,
        /// The worktree it is checked out in.
        worktree: PathBuf,
    },
    /// The merge would conflict: nothing was changed.
    #[error("{branch} does not merge cleanly into {into}: {} conflicting file{}: {}; nothing was changed", files.len(), if files.len() == 1 { "" } else { "s" }, files.join(", "))]
    Conflicts {
        /// The agent's branch.
        branch: String,
        /// The branch merged into.
        into: String,
        /// Every conflicting file.
        files: Vec<String>,
    },
    /// The main worktree has uncommitted changes to files the merge
    /// changes: nothing was changed.
    #[error("the main worktree has uncommitted changes to {} file{} the merge changes: {}; nothing was changed", files.len(), if files.len() == 1 { "" } else { "s" }, files.join(", "))]
    DirtyFiles {
        /// Those files.
        files: Vec<String>,
    },
    /// Files the merge would create are in the way in the main worktree
    /// (untracked or ignored): nothing was changed.
    #[error("the merge would overwrite {} file{} in the main worktree that git does not track: {}; nothing was changed", files.len(), if files.len() == 1 { "" } else { "s" }, files.join(", "))]
    UntrackedInTheWay {
        /// Those files.
        files: Vec<String>,
    },
    /// A directory could not be made.
    #[error("could not create {}: {source}", path.display())]
    Io {
        /// The directory.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A state file (review comments, the merge queue, workspaces)
    /// could not be read or written.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// A review comment's `PATH:LINE` is not acceptable.
    #[error("invalid location {location:?}: {why}")]
    BadLocation {
        /// What was given, sanitised.
        location: String,
        /// Why not.
        why: String,
    },
    /// A review comment's text is not acceptable.
    #[error("{0}")]
    BadComment(String),
    /// The agent's worktree (or branch) has no such file.
    #[error("{agent} has no file {path} in its worktree or on its branch")]
    NoFile {
        /// The agent.
        agent: String,
        /// The path asked for.
        path: String,
    },
    /// The file is shorter than the line asked for.
    #[error("{path} has {lines} line{}, so there is no line {line}", if *lines == 1 { "" } else { "s" })]
    NoLine {
        /// The file.
        path: String,
        /// The line asked for.
        line: u32,
        /// How many lines it has.
        lines: usize,
    },
    /// No review comment has this id.
    #[error("no review comment {0}")]
    UnknownComment(String),
    /// Another merge-queue run holds the queue.
    #[error("another `swarm merge --queue` is running; its results will be in `swarm queue`")]
    QueueBusy,
    /// The merge queue could not build its scratch worktree or run the
    /// test command.
    #[error("the merge queue could not run: {0}")]
    QueueFailed(String),
    /// A merge (or other operation) is already under way in the main
    /// worktree.
    #[error("a merge is under way in the main worktree (MERGE_HEAD exists); nothing was changed")]
    MergeInProgress,
}

impl WorktreeError {
    /// The exit code: 4 for a missing agent branch or target branch, 1 for
    /// everything else (a refused merge among them).
    pub fn exit_code(&self) -> ExitCode {
        match self {
            WorktreeError::NoBranch { .. }
            | WorktreeError::NoTarget(_)
            | WorktreeError::UnknownComment(_) => ExitCode::NotFound,
            WorktreeError::Store(e) => e.exit_code(),
            _ => ExitCode::Failure,
        }
    }

    /// What the user can do about it.
    pub fn hint(&self) -> Option<String> {
        Some(match self {
            WorktreeError::Git(GitError::TooOld { .. }) => {
                "install a newer git (https://git-scm.com/downloads)".into()
            }
            WorktreeError::Git(GitError::Failed { stderr, .. })
                if stderr.contains("tell me who you are")
                    || stderr.contains("identity unknown") =>
            {
                "set your git identity: git config --global user.name \"Your Name\"; \
                 git config --global user.email you@example.com"
                    .into()
            }
            WorktreeError::Git(_)
            | WorktreeError::Io { .. }
            | WorktreeError::Store(_)
            | WorktreeError::QueueFailed(_) => return None,
            WorktreeError::BadLocation { .. } => {
                "give the file relative to the top of the agent's worktree and a line from 1, \
                 such as src/main.rs:42"
                    .into()
            }
            WorktreeError::BadComment(_) => {
                "say what should change, in at most 4000 characters".into()
            }
            WorktreeError::NoFile { .. } => {
                "`swarm changes` lists the files each agent changed".into()
            }
            WorktreeError::NoLine { .. } => "comment on a line the file has now".into(),
            WorktreeError::UnknownComment(_) => {
                "`swarm review list` shows every comment with its id".into()
            }
            WorktreeError::QueueBusy => "wait for it to end, then run the command again".into(),
            WorktreeError::NotARepository { .. } => {
                "run swarm in the top directory of a git repository (`git init` makes one), or \
                 launch without --worktrees"
                    .into()
            }
            WorktreeError::NoCommit { .. } => "make a first commit, then launch again".into(),
            WorktreeError::InTheWay { path, .. } => format!(
                "move {} away (or remove it with `git worktree remove`), then launch again",
                path.display()
            ),
            WorktreeError::NoBranch { known, .. } if known.is_empty() => {
                "no agent has a worktree branch: start agents with `swarm launch N --worktrees`"
                    .into()
            }
            WorktreeError::NoBranch { known, .. } => {
                format!("agents with a branch: {}", known.join(", "))
            }
            WorktreeError::Detached => {
                "check out a branch in the main worktree, or name one with --into BRANCH".into()
            }
            WorktreeError::NoTarget(_) => "list the branches with `git branch`".into(),
            WorktreeError::CheckedOutElsewhere { .. } => {
                "merge into the branch of the main worktree, or into a branch no worktree has \
                 checked out"
                    .into()
            }
            WorktreeError::Conflicts { branch, into, .. } => format!(
                "ask the agent to merge {into} into {branch} in its worktree and resolve the \
                 conflicts there (or rebase onto it), then run swarm merge again"
            ),
            WorktreeError::DirtyFiles { .. } => {
                "commit or stash those changes in the main worktree, then run swarm merge again"
                    .into()
            }
            WorktreeError::UntrackedInTheWay { .. } => {
                "move those files away (or commit them), then run swarm merge again".into()
            }
            WorktreeError::MergeInProgress => {
                "finish it (git commit) or abort it (git merge --abort) first".into()
            }
        })
    }
}
