//! Review comments: on `PATH:LINE` of an agent's worktree, from the
//! person or another agent, kept in `.swarm/review.json` (docs/FORMATS.md)
//! and re-anchored by their code line whenever they are read
//! (`anchor.rs`); a round of the unsent open ones as one message's text,
//! and the diff summary a reviewer is sent.

use std::collections::BTreeMap;
use std::path::{Component, Path};

use serde::{Deserialize, Serialize};

use crate::store::{DEFAULT_LOCK_TIMEOUT, Paths, StateFile, StateLock, StoreError};
use crate::support::json::{self, Layout};
use crate::support::{sanitize, time};

use crate::worktrees::{Repository, WorktreeError, branch_of, inside};

use super::anchor::{self, Anchor, Mark};

/// The file's layout version.
const VERSION: u32 = 1;
/// Longest comment text, in characters.
pub(crate) const MAX_COMMENT_CHARS: usize = 4000;
/// Largest file a comment is anchored in.
const MAX_FILE_BYTES: u64 = 8 << 20;

/// Where a comment stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CommentStatus {
    /// Still to be addressed.
    Open,
    /// Marked done (`swarm review resolve`).
    Resolved,
    /// Its code line changed under it.
    Outdated,
}

impl CommentStatus {
    /// Its word (`open`).
    pub fn as_str(self) -> &'static str {
        match self {
            CommentStatus::Open => "open",
            CommentStatus::Resolved => "resolved",
            CommentStatus::Outdated => "outdated",
        }
    }
}

/// One review comment.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReviewComment {
    /// Its id (`c1`, `c2`, ...).
    pub id: String,
    /// The agent whose branch it is on.
    pub agent: String,
    /// Who wrote it: an agent id, or the person's name.
    pub author: String,
    /// The file, relative to the top of the worktree.
    pub path: String,
    /// Its line now, from 1.
    pub line: u32,
    /// The code line it was made on.
    pub code: String,
    /// What the reviewer says, sanitised.
    pub text: String,
    /// Where it stands.
    pub status: CommentStatus,
    /// When it was made (UTC, ISO 8601).
    pub created_at: String,
    /// When it went out in a round, if it did.
    #[serde(default)]
    pub sent_at: Option<String>,
    /// The line above the code when it was made (anchoring context).
    #[serde(default)]
    pub before: Option<String>,
    /// The line below it.
    #[serde(default)]
    pub after: Option<String>,
    /// Whether its code line was the only one like it in the file.
    #[serde(default)]
    pub unique: bool,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct ReviewDoc {
    version: u32,
    next_id: u64,
    comments: Vec<ReviewComment>,
}

/// A comment to make, its parts not yet checked.
#[derive(Clone, Debug)]
pub(crate) struct NewComment {
    /// The agent whose branch it is on (a checked id).
    pub agent: String,
    /// Who writes it.
    pub author: String,
    /// `PATH:LINE` as typed.
    pub location: String,
    /// The text as typed.
    pub text: String,
}

/// The review comments of one project.
#[derive(Clone, Debug)]
pub(crate) struct ReviewBook {
    file: StateFile,
}

impl ReviewBook {
    /// The comments of the project laid out by `paths`.
    pub(crate) fn new(paths: &Paths) -> ReviewBook {
        ReviewBook {
            file: StateFile::new(paths.review_comments()),
        }
    }

    /// Reads the file under its lock; a damaged one is moved aside, with
    /// a warning, and counts as empty.
    fn load(&self, lock: &StateLock, warnings: &mut Vec<String>) -> Result<ReviewDoc, StoreError> {
        self.file.read_json_for_change(lock, warnings, "")
    }

    fn save(&self, lock: &StateLock, doc: &mut ReviewDoc) -> Result<(), StoreError> {
        doc.version = VERSION;
        let bytes = json::to_vec(doc, Layout::Indent2).map_err(|source| StoreError::Encode {
            path: self.file.path().to_owned(),
            source,
        })?;
        self.file.write(lock, &bytes)
    }

    /// Runs `change` on the comments under the file's lock and writes
    /// them back when it says so; returns its answer and warnings.
    fn update<T>(
        &self,
        change: impl FnOnce(&mut ReviewDoc) -> Result<(T, bool), WorktreeError>,
    ) -> Result<(T, Vec<String>), WorktreeError> {
        let lock = self.file.lock(DEFAULT_LOCK_TIMEOUT)?;
        let mut warnings = Vec::new();
        let mut doc = self.load(&lock, &mut warnings)?;
        let (answer, changed) = change(&mut doc)?;
        if changed {
            self.save(&lock, &mut doc)?;
        }
        Ok((answer, warnings))
    }
}

/// Splits `PATH:LINE` and checks both: a relative path inside the
/// worktree (no `..`, no control characters) and a line from 1.
pub(crate) fn parse_location(location: &str) -> Result<(String, u32), WorktreeError> {
    let bad = |why: &str| WorktreeError::BadLocation {
        location: sanitize::one_line(location),
        why: why.to_owned(),
    };
    let (path, line) = location
        .rsplit_once(':')
        .ok_or_else(|| bad("expected PATH:LINE, such as src/main.rs:42"))?;
    let line: u32 = line
        .parse()
        .ok()
        .filter(|n| *n >= 1)
        .ok_or_else(|| bad("the line must be a number from 1"))?;
    Ok((check_path(path).map_err(|why| bad(&why))?, line))
}

/// A path relative to the top of a worktree, normalised (`./a` is `a`).
fn check_path(path: &str) -> Result<String, String> {
    if path.is_empty() {
        return Err("the path is empty".into());
    }
    if path.len() > 4096 {
        return Err("the path is longer than 4096 bytes".into());
    }
    if sanitize::strip_controls(path) != path || path.contains(['\n', '\t']) {
        return Err("the path holds control characters".into());
    }
    let mut parts = Vec::new();
    for c in Path::new(path).components() {
        match c {
            Component::Normal(p) => parts.push(p.to_string_lossy().into_owned()),
            Component::CurDir => {}
            Component::ParentDir => return Err("the path may not hold `..`".into()),
            Component::RootDir | Component::Prefix(_) => {
                return Err("the path must be relative to the top of the worktree".into());
            }
        }
    }
    if parts.is_empty() || parts[0] == ".git" {
        return Err("the path names no file of the worktree".into());
    }
    Ok(parts.join("/"))
}

/// The text of `path` as the agent has it: in its worktree when it has
/// one (uncommitted changes included), else on its branch.
fn agent_file(repo: &Repository, agent: &str, path: &str) -> Result<Option<String>, WorktreeError> {
    let branch = branch_of(agent);
    match repo.checked_out_in(&branch)? {
        Some(dir) if dir.is_dir() => {
            let full = dir.join(path);
            // Never follow a link (the file's or a directory's above it)
            // out of the worktree, nor read a device.
            if !inside(&dir, &full) {
                return Ok(None);
            }
            match std::fs::symlink_metadata(&full) {
                Ok(m) if m.is_file() && m.len() <= MAX_FILE_BYTES => {
                    let bytes = std::fs::read(&full).map_err(|source| WorktreeError::Io {
                        path: full.clone(),
                        source,
                    })?;
                    Ok(Some(String::from_utf8_lossy(&bytes).into_owned()))
                }
                _ => Ok(None),
            }
        }
        _ => Ok(repo
            .git()
            .file_at(&format!("refs/heads/{branch}"), path)?
            .filter(|b| b.len() as u64 <= MAX_FILE_BYTES)
            .map(|b| String::from_utf8_lossy(&b).into_owned())),
    }
}

/// Makes a comment: checks the location against the agent's file and
/// keeps the code line it is on. Refused: an agent with no branch, a
/// path or line the file lacks, empty or overlong text.
pub(crate) fn comment(
    repo: &Repository,
    paths: &Paths,
    new: NewComment,
) -> Result<(ReviewComment, Vec<String>), WorktreeError> {
    let (path, line) = parse_location(&new.location)?;
    let text = sanitize::message(&new.text);
    if text.is_empty() {
        return Err(WorktreeError::BadComment(
            "the comment's text is empty".into(),
        ));
    }
    if text.chars().count() > MAX_COMMENT_CHARS {
        return Err(WorktreeError::BadComment(format!(
            "the comment's text is longer than {MAX_COMMENT_CHARS} characters"
        )));
    }
    repo.agent_branch(&new.agent)?;
    let content = agent_file(repo, &new.agent, &path)?.ok_or_else(|| WorktreeError::NoFile {
        agent: new.agent.clone(),
        path: path.clone(),
    })?;
    let lines = anchor::lines(&content);
    let Some(code) = lines.get(line as usize - 1) else {
        return Err(WorktreeError::NoLine {
            path,
            line,
            lines: lines.len(),
        });
    };
    let (before, after, unique) = anchor::context(&lines, line);
    let made = |id: u64| ReviewComment {
        id: format!("c{id}"),
        agent: new.agent.clone(),
        author: new.author.clone(),
        path: path.clone(),
        line,
        code: (*code).to_owned(),
        text: text.clone(),
        status: CommentStatus::Open,
        created_at: time::utc_iso(time::now()),
        sent_at: None,
        before: before.map(str::to_owned),
        after: after.map(str::to_owned),
        unique,
    };
    ReviewBook::new(paths).update(|doc| {
        let next = doc
            .comments
            .iter()
            .filter_map(|c| c.id.strip_prefix('c')?.parse::<u64>().ok())
            .max()
            .unwrap_or(0)
            .max(doc.next_id)
            .saturating_add(1);
        doc.next_id = next;
        let c = made(next);
        doc.comments.push(c.clone());
        Ok((c, true))
    })
}

/// Re-anchors the open comments (of `agent`, or all) in the agents'
/// files as they are now, records what moved or went outdated, and
/// returns the comments (of `agent`, or all) in the order they were made.
pub fn refresh_comments(
    repo: &Repository,
    paths: &Paths,
    agent: Option<&str>,
) -> Result<(Vec<ReviewComment>, Vec<String>), WorktreeError> {
    ReviewBook::new(paths).update(|doc| {
        let mut files: BTreeMap<(String, String), Option<String>> = BTreeMap::new();
        let mut changed = false;
        for c in doc.comments.iter_mut() {
            if c.status != CommentStatus::Open || agent.is_some_and(|a| a != c.agent) {
                continue;
            }
            let key = (c.agent.clone(), c.path.clone());
            if !files.contains_key(&key) {
                let text = agent_file(repo, &c.agent, &c.path)?;
                files.insert(key.clone(), text);
            }
            let text = files.get(&key).cloned().flatten().unwrap_or_default();
            let lines = anchor::lines(&text);
            let mark = Mark {
                line: c.line,
                code: &c.code,
                before: c.before.as_deref(),
                after: c.after.as_deref(),
                unique: c.unique,
            };
            match anchor::reanchor(&lines, &mark) {
                Anchor::Same => {}
                Anchor::Moved(line) => {
                    c.line = line;
                    let (before, after, _) = anchor::context(&lines, line);
                    c.before = before.map(str::to_owned);
                    c.after = after.map(str::to_owned);
                    changed = true;
                }
                Anchor::Outdated => {
                    c.status = CommentStatus::Outdated;
                    changed = true;
                }
            }
        }
        let out = doc
            .comments
            .iter()
            .filter(|c| agent.is_none_or(|a| a == c.agent))
            .cloned()
            .collect();
        Ok((out, changed))
    })
}

/// Marks one comment resolved (`c3`, or `3`); a comment resolved already
/// stays as it is.
pub fn resolve_comment(
    paths: &Paths,
    id: &str,
) -> Result<(ReviewComment, Vec<String>), WorktreeError> {
    let wanted = if id.starts_with('c') {
        id.to_owned()
    } else {
        format!("c{id}")
    };
    ReviewBook::new(paths).update(|doc| {
        let Some(c) = doc.comments.iter_mut().find(|c| c.id == wanted) else {
            return Err(WorktreeError::UnknownComment(sanitize::one_line(id)));
        };
        let changed = c.status != CommentStatus::Resolved;
        c.status = CommentStatus::Resolved;
        Ok((c.clone(), changed))
    })
}

/// Records that the comments `ids` went out in a round.
pub fn mark_comments_sent(paths: &Paths, ids: &[String]) -> Result<Vec<String>, WorktreeError> {
    let now = time::utc_iso(time::now());
    let ((), warnings) = ReviewBook::new(paths).update(|doc| {
        for c in doc.comments.iter_mut().filter(|c| ids.contains(&c.id)) {
            c.sent_at = Some(now.clone());
        }
        Ok(((), true))
    })?;
    Ok(warnings)
}

/// The text of a round: each comment as `PATH:LINE`, the code line it is
/// on, and its text; every part sanitised again (it was read from a file).
pub fn review_round_text(agent: &str, comments: &[ReviewComment]) -> String {
    let mut s = format!(
        "review: {} comment{} on your branch {}:\n",
        comments.len(),
        if comments.len() == 1 { "" } else { "s" },
        branch_of(agent)
    );
    for c in comments {
        s.push_str(&format!(
            "\n[{}] {}:{} (from {})\n    > {}\n{}\n",
            c.id,
            sanitize::one_line(&c.path),
            c.line,
            sanitize::one_line(&c.author),
            sanitize::one_line(c.code.trim()),
            sanitize::message(&c.text)
        ));
    }
    s.push_str(
        "\nAddress each, commit, and tell the reviewer; `swarm review list` shows where each \
         stands.",
    );
    s
}

/// What a reviewer is sent about an agent's branch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DiffSummary {
    /// The agent's branch.
    pub branch: String,
    /// The base it is measured against.
    pub base: String,
    /// Commits on the branch the base lacks.
    pub ahead: u64,
    /// Per file: path, lines added and removed (`None` for binary).
    pub files: Vec<(String, Option<u64>, Option<u64>)>,
}

/// The diff summary of `agent`'s branch against the base.
pub fn diff_summary(repo: &Repository, agent: &str) -> Result<DiffSummary, WorktreeError> {
    let branch = repo.agent_branch(agent)?;
    let base = repo.base()?;
    let (ahead, _) = repo.git().ahead_behind(&base.commit, &branch)?;
    let files = repo
        .git()
        .numstat_since_fork(&base.commit, &branch)?
        .into_iter()
        .map(|n| (n.path, n.added, n.removed))
        .collect();
    Ok(DiffSummary {
        branch,
        base: base.name(),
        ahead,
        files,
    })
}

/// The request `reviewer` gets: the summary and how to comment.
pub fn review_request_text(agent: &str, reviewer: &str, summary: &DiffSummary) -> String {
    let mut s = format!(
        "review request: please review {} ({} commit{} ahead of {}).\n",
        summary.branch,
        summary.ahead,
        if summary.ahead == 1 { "" } else { "s" },
        sanitize::one_line(&summary.base)
    );
    if summary.files.is_empty() {
        s.push_str("It changes no file yet.\n");
    }
    for (path, added, removed) in &summary.files {
        let counts = match (added, removed) {
            (Some(a), Some(r)) => format!("+{a} -{r}"),
            _ => "binary".into(),
        };
        s.push_str(&format!("  {}  {counts}\n", sanitize::one_line(path)));
    }
    s.push_str(&format!(
        "See it with `git diff {base}...{branch}`. Comment with `swarm review comment {agent} \
         PATH:LINE \"TEXT\" --from {reviewer}` (or the review_comment MCP tool); the person \
         sends the round with `swarm review send {agent}`.",
        base = sanitize::one_line(&summary.base),
        branch = summary.branch,
    ));
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locations_are_checked() {
        assert_eq!(
            parse_location("src/a.py:3").ok(),
            Some(("src/a.py".into(), 3))
        );
        assert_eq!(
            parse_location("./src/a.py:1").ok(),
            Some(("src/a.py".into(), 1))
        );
        assert_eq!(parse_location("a:b:7").ok(), Some(("a:b".into(), 7)));
        for bad in [
            "src/a.py",
            "src/a.py:0",
            "src/a.py:-1",
            "src/a.py:x",
            ":3",
            "../etc/passwd:1",
            "src/../../x:1",
            "/etc/passwd:1",
            "a\u{1b}[31m:1",
            ".git/config:1",
            ".:1",
        ] {
            assert!(parse_location(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn a_round_names_each_comment_with_its_code() {
        let c = ReviewComment {
            id: "c1".into(),
            agent: "agent-0".into(),
            author: "agent-1".into(),
            path: "src/a.py".into(),
            line: 2,
            code: "    return x\u{1b}[2J".into(),
            text: "handle None".into(),
            status: CommentStatus::Open,
            created_at: String::new(),
            sent_at: None,
            before: None,
            after: None,
            unique: true,
        };
        let text = review_round_text("agent-0", &[c]);
        assert!(text.contains("[c1] src/a.py:2 (from agent-1)"), "{text}");
        assert!(text.contains("> return x\n"), "{text}");
        assert!(!text.contains('\u{1b}'), "{text}");
    }
}
