//! The merge train: agents waiting to be merged into the base branch, kept
//! in `.swarm/merge_queue.json` (docs/FORMATS.md). A run takes them in
//! order, those whose changes overlap no other's first; each merge is
//! built as a commit and, when `merge.test_command` is set, tested in a
//! scratch worktree of its own before the base branch moves to it. So the
//! main worktree never holds an untested merge, and a conflict or a
//! failing test leaves it exactly as it was; the agent stays in the merge
//! queue.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::git::MergeTree;
use crate::store::{Loaded, Paths, StateFile, StateLock, StoreError, ensure_private_dir};
use crate::support::child::{Ended, ShellChild};
use crate::support::json::{self, Layout};
use crate::support::{sanitize, time};

use crate::worktrees::{
    MergeKind, Repository, WorktreeError, branch_of, check_main_worktree, copy_included,
};

/// The file's layout version.
const VERSION: u32 = 1;
/// How many of the test's last lines are kept and told.
pub(crate) const TEST_TAIL_LINES: usize = 20;
/// How long a run waits for another run's hold on the queue.
const QUEUE_WAIT: Duration = Duration::from_secs(2);
/// How much of the end of the test's output is read for its last lines.
const TAIL_BYTES: u64 = 64 * 1024;

/// The test every merge of the merge queue must pass (`[merge]` in the config).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TestPlan {
    /// Run with `sh -c` in the scratch worktree.
    pub command: String,
    /// Stopped, and counted as failed, after this long.
    pub timeout: Duration,
}

/// How a failed try ended, as the merge queue's file and reports spell it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TryResult {
    /// The merge does not merge cleanly.
    Conflict,
    /// The test command failed on the merge.
    TestFailed,
    /// Refused for another reason.
    Refused,
}

impl TryResult {
    /// Its word (`conflict`, `test-failed`, `refused`).
    pub fn as_str(self) -> &'static str {
        match self {
            TryResult::Conflict => "conflict",
            TryResult::TestFailed => "test-failed",
            TryResult::Refused => "refused",
        }
    }
}

/// How the last try of an agent in the merge queue ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LastTry {
    /// When (UTC, ISO 8601).
    pub at: String,
    /// `conflict`, `test-failed` or `refused`.
    pub result: TryResult,
    /// Why, in one line.
    pub reason: String,
    /// The conflicting files, or the main worktree's files in the way.
    #[serde(default)]
    pub files: Vec<String>,
    /// The test's last lines (test-failed only).
    #[serde(default)]
    pub output_tail: String,
}

/// One agent waiting in the merge queue to be merged.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MergeRequest {
    /// The agent.
    pub agent: String,
    /// When it joined the merge queue (UTC, ISO 8601).
    #[serde(rename = "queued_at")]
    pub joined_at: String,
    /// Tries so far.
    pub attempts: u32,
    /// How the last one ended.
    #[serde(default)]
    pub last: Option<LastTry>,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct QueueDoc {
    version: u32,
    entries: Vec<MergeRequest>,
}

/// A merge request in the order a run takes it, and why it is there.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PlannedMerge {
    /// The entry.
    #[serde(flatten)]
    pub entry: MergeRequest,
    /// Its place, from 1.
    pub position: usize,
    /// The files its branch changed.
    pub files: Vec<String>,
    /// Why it waits behind others (overlapping files, locks); `None` when
    /// it overlaps no other agent in the merge queue.
    pub waits_because: Option<String>,
}

/// What one try did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MergeOutcome {
    /// Merged: the base branch is at `commit`, built `kind`.
    Merged {
        /// `FastForward` or `MergeCommit`.
        kind: MergeKind,
        /// The base branch's new commit.
        commit: String,
        /// The files it changed.
        files: Vec<String>,
        /// Whether the test command ran (and passed) on it.
        tested: bool,
    },
    /// The base had everything already.
    UpToDate,
    /// It does not merge cleanly: these files conflict.
    Conflict(Vec<String>),
    /// The test command failed on the merge.
    TestFailed {
        /// How it ended (`exit status: 1`).
        status: String,
        /// Its last lines, sanitised.
        tail: String,
    },
    /// Refused for another reason (the main worktree in the way, no
    /// branch, the base moved).
    Refused {
        /// Why.
        reason: String,
        /// Files concerned.
        files: Vec<String>,
    },
}

impl MergeOutcome {
    /// Whether the agent leaves the merge queue.
    pub fn done(&self) -> bool {
        matches!(self, MergeOutcome::Merged { .. } | MergeOutcome::UpToDate)
    }

    /// Its word in reports (`merged`, `conflict`, ...).
    pub fn as_str(&self) -> &'static str {
        match self {
            MergeOutcome::Merged { .. } => "merged",
            MergeOutcome::UpToDate => "up-to-date",
            MergeOutcome::Conflict(_) => "conflict",
            MergeOutcome::TestFailed { .. } => "test-failed",
            MergeOutcome::Refused { .. } => "refused",
        }
    }
}

/// One agent's try in a run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tried {
    /// The agent.
    pub agent: String,
    /// What happened.
    pub outcome: MergeOutcome,
}

/// What a run of the merge queue did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MergeQueueRun {
    /// The branch merged into.
    pub into: String,
    /// The order the run took, with why.
    pub plan: Vec<PlannedMerge>,
    /// Each try, in that order.
    pub tried: Vec<Tried>,
    /// What the user should know.
    pub warnings: Vec<String>,
}

/// The merge queue of one project.
#[derive(Clone, Debug)]
pub(crate) struct MergeQueue {
    file: StateFile,
}

impl MergeQueue {
    /// The queue of the project laid out by `paths`.
    pub(crate) fn new(paths: &Paths) -> MergeQueue {
        MergeQueue {
            file: StateFile::new(paths.merge_queue()),
        }
    }

    /// The merge requests in the order they joined; a damaged file reads
    /// as empty, with a note.
    pub(crate) fn entries(&self) -> (Vec<MergeRequest>, Option<String>) {
        match self.file.read_json::<QueueDoc>() {
            Ok(Loaded::Valid(d)) => (d.entries, None),
            Ok(Loaded::Missing) => (Vec::new(), None),
            Ok(Loaded::Corrupt(why)) | Err(StoreError::Corrupt { reason: why, .. }) => (
                Vec::new(),
                Some(format!("{} is damaged ({why})", self.file.path().display())),
            ),
            Err(e) => (Vec::new(), Some(format!("could not read the queue: {e}"))),
        }
    }

    fn load(&self, lock: &StateLock, warnings: &mut Vec<String>) -> Result<QueueDoc, StoreError> {
        self.file
            .read_json_for_change(lock, warnings, ", and the queue starts empty")
    }

    /// The queue's lock; refused while a run holds it.
    fn lock(&self) -> Result<StateLock, WorktreeError> {
        match self.file.lock(QUEUE_WAIT) {
            Ok(l) => Ok(l),
            Err(StoreError::LockTimeout { .. }) => Err(WorktreeError::QueueBusy),
            Err(e) => Err(e.into()),
        }
    }

    fn save(&self, lock: &StateLock, doc: &mut QueueDoc) -> Result<(), StoreError> {
        doc.version = VERSION;
        let bytes = json::to_vec(doc, Layout::Indent2).map_err(|source| StoreError::Encode {
            path: self.file.path().to_owned(),
            source,
        })?;
        self.file.write(lock, &bytes)
    }
}

/// Takes `agent` out of the merge queue; false when it was not in it.
/// Refused while a run holds the queue.
pub(crate) fn leave(paths: &Paths, agent: &str) -> Result<(bool, Vec<String>), WorktreeError> {
    let queue = MergeQueue::new(paths);
    let lock = queue.lock()?;
    let mut warnings = Vec::new();
    let mut doc = queue.load(&lock, &mut warnings)?;
    let before = doc.entries.len();
    doc.entries.retain(|e| e.agent != agent);
    let removed = doc.entries.len() != before;
    if removed {
        queue.save(&lock, &mut doc)?;
    }
    Ok((removed, warnings))
}

/// Orders `entries`: those whose files overlap no other waiting agent's
/// (and who hold no lock on a file another changed) first, the rest
/// after, each group in queue order. `files` gives each agent's changed
/// files, `locks` each lock as (holder, path or directory).
pub(crate) fn plan(
    entries: &[MergeRequest],
    files: &dyn Fn(&str) -> Vec<String>,
    locks: &[(String, String)],
) -> Vec<PlannedMerge> {
    let changed: Vec<BTreeSet<String>> = entries
        .iter()
        .map(|e| files(&e.agent).into_iter().collect())
        .collect();
    let covers = |lock: &str, file: &str| {
        if lock.contains(['*', '?', '[', '{']) {
            return globset::Glob::new(lock).is_ok_and(|g| g.compile_matcher().is_match(file));
        }
        let lock = lock.trim_end_matches('/');
        file == lock || file.strip_prefix(lock).is_some_and(|r| r.starts_with('/'))
    };
    let mut reasons: Vec<Vec<String>> = vec![Vec::new(); entries.len()];
    for (i, a) in entries.iter().enumerate() {
        for (j, b) in entries.iter().enumerate() {
            if i == j || a.agent == b.agent {
                continue;
            }
            let both: Vec<&str> = changed[i]
                .intersection(&changed[j])
                .map(String::as_str)
                .collect();
            if !both.is_empty() {
                reasons[i].push(format!(
                    "overlaps {} on {}",
                    b.agent,
                    both.iter()
                        .map(|f| sanitize::one_line(f))
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
            }
            let locked: BTreeSet<String> = locks
                .iter()
                .filter(|(holder, _)| *holder == a.agent)
                .flat_map(|(_, lock)| changed[j].iter().filter(move |f| covers(lock, f)))
                .map(|f| sanitize::one_line(f))
                .collect();
            if !locked.is_empty() {
                reasons[i].push(format!(
                    "holds a lock on {}, which {} changed",
                    locked.into_iter().collect::<Vec<_>>().join(", "),
                    b.agent
                ));
            }
        }
    }
    let (free, waiting): (Vec<usize>, Vec<usize>) =
        (0..entries.len()).partition(|i| reasons[*i].is_empty());
    free.into_iter()
        .chain(waiting)
        .enumerate()
        .map(|(n, i)| PlannedMerge {
            entry: entries[i].clone(),
            position: n + 1,
            files: changed[i].iter().cloned().collect(),
            waits_because: (!reasons[i].is_empty()).then(|| reasons[i].join("; ")),
        })
        .collect()
}

/// The files `agent`'s branch changed since it forked from `base`.
fn branch_files(repo: &Repository, base: &str, agent: &str) -> Vec<String> {
    repo.git()
        .changed_since_fork(base, &branch_of(agent))
        .unwrap_or_default()
}

/// The merge queue's order now, without running anything.
pub(crate) fn order(
    repo: &Repository,
    paths: &Paths,
    locks: &[(String, String)],
) -> Result<(Vec<PlannedMerge>, Option<String>), WorktreeError> {
    let (entries, note) = MergeQueue::new(paths).entries();
    let base = repo.base()?.commit;
    let files = |agent: &str| branch_files(repo, &base, agent);
    Ok((plan(&entries, &files, locks), note))
}

/// Adds `agents` to the merge queue (each once, at its end), then tries
/// every agent in it in planned order, as the module says. Holds the
/// queue for the whole run; another run at the same time is refused
/// (`QueueBusy`).
pub(crate) fn run(
    repo: &Repository,
    paths: &Paths,
    add: &[String],
    test: Option<&TestPlan>,
    locks: &[(String, String)],
) -> Result<MergeQueueRun, WorktreeError> {
    let queue = MergeQueue::new(paths);
    let lock = queue.lock()?;
    let mut warnings = Vec::new();
    let mut doc = queue.load(&lock, &mut warnings)?;
    let now = time::utc_iso(time::now());
    for agent in add {
        if !doc.entries.iter().any(|e| &e.agent == agent) {
            doc.entries.push(MergeRequest {
                agent: agent.clone(),
                joined_at: now.clone(),
                attempts: 0,
                last: None,
            });
        }
    }
    queue.save(&lock, &mut doc)?;
    let into = repo
        .git()
        .checked_out_branch()?
        .ok_or(WorktreeError::Detached)?;
    let base = repo.base()?.commit;
    let files = |agent: &str| branch_files(repo, &base, agent);
    let planned = plan(&doc.entries, &files, locks);
    let mut tried = Vec::new();
    for p in &planned {
        let agent = p.entry.agent.clone();
        let outcome = try_one(repo, paths, &agent, &into, test)?;
        let at = time::utc_iso(time::now());
        if outcome.done() {
            doc.entries.retain(|e| e.agent != agent);
        } else if let Some(e) = doc.entries.iter_mut().find(|e| e.agent == agent) {
            e.attempts = e.attempts.saturating_add(1);
            e.last = last_try(&outcome, at);
        }
        // Each result is kept as it comes, so `swarm queue` shows a long
        // run's progress.
        queue.save(&lock, &mut doc)?;
        tried.push(Tried { agent, outcome });
    }
    Ok(MergeQueueRun {
        into,
        plan: planned,
        tried,
        warnings,
    })
}

/// The record of a failed try; `None` for a success (the agent leaves).
fn last_try(outcome: &MergeOutcome, at: String) -> Option<LastTry> {
    let (result, reason, files, output_tail) = match outcome {
        MergeOutcome::Conflict(files) => (
            TryResult::Conflict,
            format!(
                "{} conflicting file{}",
                files.len(),
                if files.len() == 1 { "" } else { "s" }
            ),
            files.clone(),
            String::new(),
        ),
        MergeOutcome::TestFailed { status, tail } => (
            TryResult::TestFailed,
            format!("the test command failed ({status})"),
            Vec::new(),
            tail.clone(),
        ),
        MergeOutcome::Refused { reason, files } => (
            TryResult::Refused,
            reason.clone(),
            files.clone(),
            String::new(),
        ),
        MergeOutcome::Merged { .. } | MergeOutcome::UpToDate => return None,
    };
    Some(LastTry {
        at,
        result,
        reason,
        files,
        output_tail,
    })
}

/// One agent's try: build the merge commit, test it in a scratch
/// worktree, then move the base branch (and the main worktree) to it.
fn try_one(
    repo: &Repository,
    paths: &Paths,
    agent: &str,
    into: &str,
    test: Option<&TestPlan>,
) -> Result<MergeOutcome, WorktreeError> {
    let git = repo.git();
    let branch = match repo.agent_branch(agent) {
        Ok(b) => b,
        Err(e @ WorktreeError::NoBranch { .. }) => {
            return Ok(MergeOutcome::Refused {
                reason: e.to_string(),
                files: Vec::new(),
            });
        }
        Err(e) => return Err(e),
    };
    let ours = repo.base()?.commit;
    let Some(theirs) = git.commit_of(&format!("refs/heads/{branch}"))? else {
        return Ok(MergeOutcome::Refused {
            reason: format!("there is no branch {branch}"),
            files: Vec::new(),
        });
    };
    if git.is_ancestor(&theirs, &ours)? {
        return Ok(MergeOutcome::UpToDate);
    }
    let (kind, commit) = if git.is_ancestor(&ours, &theirs)? {
        (MergeKind::FastForward, theirs.clone())
    } else {
        match git.merge_tree(&ours, &theirs)? {
            MergeTree::Clean(tree) => (
                MergeKind::MergeCommit,
                git.commit_tree(
                    &tree,
                    &[&ours, &theirs],
                    &format!("Merge branch '{branch}' into {into}"),
                )?,
            ),
            MergeTree::Conflicts(files) => return Ok(MergeOutcome::Conflict(files)),
        }
    };
    let changes = git.tree_changes(&ours, &commit)?;
    if let Err(e) = check_main_worktree(repo.root(), &changes) {
        let files = match &e {
            WorktreeError::DirtyFiles { files } | WorktreeError::UntrackedInTheWay { files } => {
                files.clone()
            }
            _ => Vec::new(),
        };
        return Ok(MergeOutcome::Refused {
            reason: e.to_string(),
            files,
        });
    }
    let tested = match test {
        Some(test) => {
            if let Some(failed) = test_in_scratch(repo, paths, agent, &commit, test)? {
                return Ok(failed);
            }
            true
        }
        None => false,
    };
    // `--ff-only` from the commit the merge was built on: a base that
    // moved meanwhile, or a file put in the way, refuses it untouched.
    if let Err(e) = git.fast_forward_to(&commit) {
        return Ok(MergeOutcome::Refused {
            reason: format!("the main worktree could not be moved to the tested merge: {e}"),
            files: Vec::new(),
        });
    }
    Ok(MergeOutcome::Merged {
        kind,
        commit,
        files: changes.into_iter().map(|c| c.path).collect(),
        tested,
    })
}

/// Checks `commit` out in a scratch worktree, copies the files of
/// `.worktreeinclude` in, and runs the test command there; `None` when it
/// passed. The scratch worktree is removed either way.
fn test_in_scratch(
    repo: &Repository,
    paths: &Paths,
    agent: &str,
    commit: &str,
    test: &TestPlan,
) -> Result<Option<MergeOutcome>, WorktreeError> {
    let dir = paths.merge_scratch_dir();
    ensure_private_dir(&dir).map_err(|source| WorktreeError::Io {
        path: dir.clone(),
        source,
    })?;
    let scratch = dir.join(format!("{agent}-{}", std::process::id()));
    if scratch.exists() {
        // Left by a run that died: git knows it, or it is plain files.
        let _ = repo.git().remove_worktree_forced(&scratch);
        let _ = std::fs::remove_dir_all(&scratch);
    }
    repo.git().add_detached_worktree(&scratch, commit)?;
    let result = (|| {
        copy_included(repo.root(), &scratch).map(drop)?;
        run_test(test, repo.root(), agent, &scratch)
    })();
    let _ = repo.git().remove_worktree_forced(&scratch);
    result
}

/// Runs the test command with `sh -c` in `dir` (`support::child`: a
/// process group of its own, stderr with stdout so the last lines are the
/// test's own, in order); after the plan's timeout the whole group is
/// killed.
fn run_test(
    test: &TestPlan,
    root: &Path,
    agent: &str,
    dir: &PathBuf,
) -> Result<Option<MergeOutcome>, WorktreeError> {
    let mut done = ShellChild::new(&test.command)
        .current_dir(dir)
        .env("SWARM_ROOT", root)
        .env("SWARM_AGENT", agent)
        .env("SWARM_WORKTREE", dir)
        .capture_output()
        .run(test.timeout)
        .map_err(|e| WorktreeError::QueueFailed(format!("its test command: {e}")))?;
    if done.success() {
        return Ok(None);
    }
    let bytes = done.output_tail(TAIL_BYTES);
    Ok(Some(MergeOutcome::TestFailed {
        status: match done.ended {
            Ended::Exited(s) => s.to_string(),
            Ended::Killed => format!(
                "stopped after {}",
                time::human_duration(test.timeout.as_secs_f64())
            ),
        },
        tail: tail(&String::from_utf8_lossy(&bytes), TEST_TAIL_LINES),
    }))
}

/// The last `n` non-empty-ended lines of `text`, sanitised.
fn tail(text: &str, n: usize) -> String {
    let clean = sanitize::message(text);
    let lines: Vec<&str> = clean.lines().collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}

/// The message an agent gets when its try failed; `None` for a success.
pub(crate) fn failure_text(
    agent: &str,
    into: &str,
    outcome: &MergeOutcome,
    test_command: Option<&str>,
) -> Option<String> {
    let branch = branch_of(agent);
    let into = sanitize::one_line(into);
    let rebase = format!(
        "In your worktree: `git rebase {into}` (resolve each conflict, `git add` it, `git rebase \
         --continue`), run the tests, commit. You stay in the merge queue and are tried again at \
         the next `swarm merge --queue`."
    );
    let list = |files: &[String]| {
        files
            .iter()
            .map(|f| sanitize::one_line(f))
            .collect::<Vec<_>>()
            .join(", ")
    };
    Some(match outcome {
        MergeOutcome::Merged { .. } | MergeOutcome::UpToDate => return None,
        MergeOutcome::Conflict(files) => format!(
            "merge queue: {branch} does not merge cleanly into {into}; {into} is unchanged. \
             Conflicting files: {}. {rebase}",
            list(files)
        ),
        MergeOutcome::TestFailed { status, tail } => format!(
            "merge queue: {branch} merged into {into} fails the tests (`{}`, {status}); {into} \
             is unchanged. The last lines:\n{tail}\n\n{rebase}",
            sanitize::one_line(test_command.unwrap_or_default())
        ),
        MergeOutcome::Refused { reason, .. } => format!(
            "merge queue: {branch} was not merged into {into}: {}. {into} is unchanged; you stay \
             in the queue.",
            sanitize::one_line(reason)
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(agent: &str) -> MergeRequest {
        MergeRequest {
            agent: agent.into(),
            joined_at: String::new(),
            attempts: 0,
            last: None,
        }
    }

    #[test]
    fn a_merge_request_keeps_the_file_s_words() {
        let text = r#"{"agent": "agent-0", "queued_at": "2026-01-02T03:04:05Z", "attempts": 2,
            "last": {"at": "2026-01-02T03:05:00Z", "result": "test-failed", "reason": "r"}}"#;
        let read: MergeRequest = serde_json::from_str(text).expect("read");
        assert_eq!(read.joined_at, "2026-01-02T03:04:05Z");
        let last = read.last.as_ref().expect("a last try");
        assert_eq!(last.result, TryResult::TestFailed);
        let written = serde_json::to_value(&read).expect("write");
        assert_eq!(written["queued_at"], "2026-01-02T03:04:05Z");
        assert_eq!(written["last"]["result"], "test-failed");
        for result in [
            TryResult::Conflict,
            TryResult::TestFailed,
            TryResult::Refused,
        ] {
            let word = serde_json::to_value(result).expect("write");
            assert_eq!(word, result.as_str());
        }
    }

    #[test]
    fn a_failed_try_is_recorded_with_its_result_and_a_merge_is_not() {
        let conflict = last_try(&MergeOutcome::Conflict(vec!["src/a.py".into()]), "t".into());
        let conflict = conflict.expect("recorded");
        assert_eq!(conflict.result, TryResult::Conflict);
        assert_eq!(conflict.files, ["src/a.py"]);
        let merged = MergeOutcome::Merged {
            kind: MergeKind::FastForward,
            commit: "c".into(),
            files: Vec::new(),
            tested: false,
        };
        assert!(last_try(&merged, "t".into()).is_none());
        assert!(last_try(&MergeOutcome::UpToDate, "t".into()).is_none());
    }

    #[test]
    fn the_non_overlapping_go_first_and_the_others_say_why() {
        let entries = [entry("agent-0"), entry("agent-1"), entry("agent-2")];
        let files = |agent: &str| -> Vec<String> {
            match agent {
                "agent-0" => vec!["src/a.py".into()],
                "agent-1" => vec!["src/b.py".into()],
                _ => vec!["src/a.py".into(), "c".into()],
            }
        };
        let order = plan(&entries, &files, &[]);
        let agents: Vec<&str> = order.iter().map(|p| p.entry.agent.as_str()).collect();
        assert_eq!(agents, ["agent-1", "agent-0", "agent-2"]);
        assert_eq!(order[0].waits_because, None);
        assert_eq!(
            order[1].waits_because.as_deref(),
            Some("overlaps agent-2 on src/a.py")
        );
        assert_eq!(order[2].position, 3);
    }

    #[test]
    fn a_lock_on_a_file_another_changed_counts() {
        let entries = [entry("agent-0"), entry("agent-1")];
        let files = |agent: &str| -> Vec<String> {
            match agent {
                "agent-0" => vec!["x".into()],
                _ => vec!["src/deep/b.py".into()],
            }
        };
        let locks = [("agent-0".to_owned(), "src/".to_owned())];
        let order = plan(&entries, &files, &locks);
        assert_eq!(order[0].entry.agent, "agent-1");
        assert_eq!(
            order[1].waits_because.as_deref(),
            Some("holds a lock on src/deep/b.py, which agent-1 changed")
        );
        let glob = [("agent-0".to_owned(), "src/**/*.py".to_owned())];
        let order = plan(&entries, &files, &glob);
        assert_eq!(order[0].entry.agent, "agent-1");
        assert!(order[1].waits_because.is_some());
        let elsewhere = [("agent-0".to_owned(), "docs/*.md".to_owned())];
        assert!(
            plan(&entries, &files, &elsewhere)[0]
                .waits_because
                .is_none()
        );
    }

    fn plan_of(command: &str, timeout: Duration) -> TestPlan {
        TestPlan {
            command: command.into(),
            timeout,
        }
    }

    #[test]
    fn a_test_that_runs_too_long_is_stopped_and_fails() {
        let dir = tempfile::tempdir().expect("tempdir");
        let dir = dir.path().to_path_buf();
        let plan = plan_of("echo started; sleep 30", Duration::from_millis(300));
        match run_test(&plan, &dir, "agent-0", &dir).expect("ran") {
            Some(MergeOutcome::TestFailed { status, tail }) => {
                assert!(status.starts_with("stopped after"), "{status}");
                assert_eq!(tail, "started");
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_chatty_failing_test_reports_its_last_lines_and_a_passing_one_nothing() {
        let dir = tempfile::tempdir().expect("tempdir");
        let dir = dir.path().to_path_buf();
        let long = Duration::from_secs(600);
        let chatty = plan_of(
            "i=0; while [ $i -lt 100000 ]; do echo line $i; i=$((i+1)); done; echo oops >&2; exit 4",
            long,
        );
        match run_test(&chatty, &dir, "agent-0", &dir).expect("ran") {
            Some(MergeOutcome::TestFailed { status, tail }) => {
                assert!(status.contains('4'), "{status}");
                assert!(tail.ends_with("line 99999\noops"), "{tail}");
                assert_eq!(tail.lines().count(), TEST_TAIL_LINES);
            }
            other => panic!("{other:?}"),
        }
        let passing = plan_of("test \"$SWARM_AGENT\" = agent-0", long);
        assert_eq!(
            run_test(&passing, &dir, "agent-0", &dir).expect("ran"),
            None
        );
    }

    #[test]
    fn the_tail_keeps_the_last_lines_without_controls() {
        let text: String = (1..=30).map(|i| format!("line {i}\x1b[0m\n")).collect();
        let t = tail(&text, 3);
        assert_eq!(t, "line 28\nline 29\nline 30");
    }
}
