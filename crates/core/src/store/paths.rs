//! Where every state file lives, relative to the project root. Python-
//! compatible files sit in the root; files only swarm uses live in `.swarm/`.

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

/// The file names of the A2A records in the project root (the Python
/// tool's), which their views also show to people.
pub(crate) mod a2a_names {
    /// Agent cards.
    pub(crate) const AGENT_CARDS: &str = "AGENT_CARDS.json";
    /// Tasks.
    pub(crate) const TASKS: &str = "TASKS.json";
    /// Delegation attempts.
    pub(crate) const DELEGATION_HISTORY: &str = "DELEGATION_HISTORY.json";
    /// Learning data.
    pub(crate) const LEARNING_DATA: &str = "LEARNING_DATA.json";
    /// Shared contexts.
    pub(crate) const CONTEXTS: &str = "CONTEXTS.json";
    /// Resolved conflicts.
    pub(crate) const CONFLICT_LOG: &str = "CONFLICT_LOG.json";
}

/// The state-file layout of one project.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Paths {
    root: PathBuf,
}

impl Paths {
    /// The layout under `root` (an absolute, resolved directory).
    pub fn new(root: impl Into<PathBuf>) -> Paths {
        Paths { root: root.into() }
    }

    /// The project root.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// `path` as a message names it: relative to the root when it lies
    /// under it (`ACTIVE_AGENTS.json`, `.agent_locks/<name>`), else whole.
    pub fn relative<'a>(&self, path: &'a Path) -> &'a Path {
        path.strip_prefix(&self.root).unwrap_or(path)
    }

    /// Lines for a `.gitignore` that keep every state file swarm may write
    /// out of `git status` (the config file and `COORDINATION.md` are
    /// meant to be shared, so they are not among them).
    pub(crate) const GITIGNORE: &'static [&'static str] = &[
        "/ACTIVE_AGENTS.json",
        "/PENDING_ACKS.json",
        "/agent_messages.log",
        "/agent_messages.log.old",
        "/agent_messages.log.[0-9]*",
        "/AGENT_CARDS.json",
        "/TASKS.json",
        "/CONTEXTS.json",
        "/LEARNING_DATA.json",
        "/DELEGATION_HISTORY.json",
        "/CONFLICT_LOG.json",
        "/.agent_locks/",
        "/.agent_memory/",
        "/.swarm/",
        "/.*.json.lock",
        "/.agent_messages.log.lock",
        "/.COORDINATION.md.lock",
    ];

    /// `.swarm/feed.jsonl`: the activity feed (docs/FORMATS.md).
    pub fn feed(&self) -> PathBuf {
        self.swarm_dir().join("feed.jsonl")
    }

    /// `.swarm/episodes.json`: which attention conditions are open for
    /// which agent (docs/FORMATS.md).
    pub fn episodes(&self) -> PathBuf {
        self.swarm_dir().join("episodes.json")
    }

    /// `.swarm/hook_sightings.json`: which agents' own hooks were seen reporting,
    /// from which pane, and the messages their prompt hooks confirmed
    /// (docs/FORMATS.md).
    pub fn hook_sightings(&self) -> PathBuf {
        self.swarm_dir().join("hook_sightings.json")
    }

    /// `.swarm/hook_errors.log`: what went wrong in the agents' hooks (a
    /// hook never stops its agent, so its trouble is written here; one
    /// JSON object per line, docs/FORMATS.md).
    pub fn hook_errors(&self) -> PathBuf {
        self.swarm_dir().join("hook_errors.log")
    }

    /// `.swarm/native_following.json`: the messages agents accepted
    /// through their own channel and have not taken yet (docs/FORMATS.md).
    pub fn native_following(&self) -> PathBuf {
        self.swarm_dir().join("native_following.json")
    }

    /// `.swarm/printed.json`: the lines agents printed that were sent
    /// (print-to-send; docs/FORMATS.md).
    pub fn printed(&self) -> PathBuf {
        self.swarm_dir().join("printed.json")
    }

    /// `.swarm/watcher.lock`: every running watcher holds a shared lock
    /// on it (docs/FORMATS.md).
    pub fn watcher_lock(&self) -> PathBuf {
        self.swarm_dir().join("watcher.lock")
    }

    /// `.swarm/watcher-background.lock`: the one background watcher holds
    /// it.
    pub fn background_watcher_lock(&self) -> PathBuf {
        self.swarm_dir().join("watcher-background.lock")
    }

    /// `.swarm/watcher.json`: what the running watcher says of itself
    /// (docs/FORMATS.md).
    pub fn watcher_record(&self) -> PathBuf {
        self.swarm_dir().join("watcher.json")
    }

    /// `.swarm/pane_states.json`: what the watcher's last round saw in
    /// each agent pane of this host (docs/FORMATS.md).
    pub fn pane_states(&self) -> PathBuf {
        self.swarm_dir().join("pane_states.json")
    }

    /// `.swarm/watcher.log`: what the background watcher says.
    pub fn watcher_log(&self) -> PathBuf {
        self.swarm_dir().join("watcher.log")
    }

    /// `ACTIVE_AGENTS.json`: the agent registry (docs/FORMATS.md).
    pub fn registry(&self) -> PathBuf {
        self.root.join("ACTIVE_AGENTS.json")
    }

    /// `agent_messages.log`: the JSONL message log (docs/FORMATS.md).
    pub fn message_log(&self) -> PathBuf {
        self.root.join("agent_messages.log")
    }

    /// `.agent_locks/`: one file per file lock (docs/FORMATS.md).
    pub fn locks_dir(&self) -> PathBuf {
        self.root.join(".agent_locks")
    }

    /// `PENDING_ACKS.json`, in the root (the original used the cwd).
    pub fn pending_acks(&self) -> PathBuf {
        self.root.join("PENDING_ACKS.json")
    }

    /// `COORDINATION.md`: the agents' shared notes (docs/guide/python.md, Task coordination).
    pub fn coordination(&self) -> PathBuf {
        self.root.join("COORDINATION.md")
    }

    /// `AGENT_CARDS.json`: what each agent can do (docs/FORMATS.md).
    pub fn agent_cards(&self) -> PathBuf {
        self.root.join(a2a_names::AGENT_CARDS)
    }

    /// `TASKS.json`: tasks and their history (docs/FORMATS.md).
    pub fn tasks(&self) -> PathBuf {
        self.root.join(a2a_names::TASKS)
    }

    /// `DELEGATION_HISTORY.json`: every delegation attempt (docs/FORMATS.md).
    pub fn delegation_history(&self) -> PathBuf {
        self.root.join(a2a_names::DELEGATION_HISTORY)
    }

    /// `LEARNING_DATA.json`: per-agent performance records (docs/FORMATS.md).
    pub fn learning_data(&self) -> PathBuf {
        self.root.join(a2a_names::LEARNING_DATA)
    }

    /// `.agent_memory/`: one `<agent_id>.json` per agent (docs/FORMATS.md).
    pub fn memory_dir(&self) -> PathBuf {
        self.root.join(".agent_memory")
    }

    /// `CONTEXTS.json`: shared contexts and their decisions (docs/FORMATS.md).
    pub fn contexts(&self) -> PathBuf {
        self.root.join(a2a_names::CONTEXTS)
    }

    /// `CONFLICT_LOG.json`: resolved lock conflicts (docs/FORMATS.md).
    pub fn conflict_log(&self) -> PathBuf {
        self.root.join(a2a_names::CONFLICT_LOG)
    }

    /// `.swarm/`: state that only swarm reads.
    pub fn swarm_dir(&self) -> PathBuf {
        self.root.join(".swarm")
    }

    /// `.swarm/usage.json`: how far swarm has read each agent's usage
    /// records, what they added up to, and each agent's budget period
    /// (docs/FORMATS.md).
    pub(crate) fn usage(&self) -> PathBuf {
        self.swarm_dir().join("usage.json")
    }

    /// `.swarm/agent_ids.json`: the high-water mark of agent ids.
    pub fn agent_ids(&self) -> PathBuf {
        self.swarm_dir().join("agent_ids.json")
    }

    /// `.swarm/last_read_messages.json` (docs/FORMATS.md).
    pub fn last_read(&self) -> PathBuf {
        self.swarm_dir().join("last_read_messages.json")
    }

    /// `.swarm/lock_index.json`: which lock files hold patterns or
    /// unusual spellings, and which directories have locks below them, so
    /// that taking a lock need not read every lock file. Its sidecar lock
    /// is the lock of the whole `.agent_locks/` directory.
    pub fn lock_index(&self) -> PathBuf {
        self.swarm_dir().join("lock_index.json")
    }

    /// `.swarm/lock_terms/`: what a lock file cannot say in the Python
    /// tool's shape (the holders of a shared lock, the ends of leases), one
    /// `<lock file name>.json` per lock that has any.
    pub fn lock_terms_dir(&self) -> PathBuf {
        self.swarm_dir().join("lock_terms")
    }

    /// `.swarm/message_log.json`: the rotated segments of the message log,
    /// who each holds messages for, and the number the live log will get
    /// when it is rotated (docs/MESSAGE_LOG.md).
    pub fn message_log_index(&self) -> PathBuf {
        self.swarm_dir().join("message_log.json")
    }

    /// `.swarm/message_index.sqlite3`: the index of every kept message
    /// behind `swarm search` and `swarm thread`, a cache rebuilt from the
    /// log (docs/FORMATS.md).
    pub(crate) fn message_index(&self) -> PathBuf {
        self.swarm_dir().join("message_index.sqlite3")
    }

    /// `.swarm/subscriptions.json`: which agents follow which topics
    /// (docs/FORMATS.md).
    pub(crate) fn subscriptions(&self) -> PathBuf {
        self.swarm_dir().join("subscriptions.json")
    }

    /// `.swarm/read_cursors.json`: each agent's read position in the
    /// message log (docs/FORMATS.md).
    pub(crate) fn read_cursors(&self) -> PathBuf {
        self.swarm_dir().join("read_cursors.json")
    }

    /// `.swarm/ack_due`: the earliest due time of the pending ACKs, the
    /// cheap check every command makes (docs/FORMATS.md).
    pub(crate) fn ack_due(&self) -> PathBuf {
        self.swarm_dir().join("ack_due")
    }

    /// `.swarm/held.json`: messages held back from panes (docs/FORMATS.md).
    pub(crate) fn held(&self) -> PathBuf {
        self.swarm_dir().join("held.json")
    }

    /// `.swarm/sessions.json`: the sessions `swarm launch` started, with
    /// their agents, so that `swarm resume` can bring them back
    /// (docs/FORMATS.md).
    pub(crate) fn sessions(&self) -> PathBuf {
        self.swarm_dir().join("sessions.json")
    }

    /// `.swarm/limits.json`: the usage limits agents hit, by credential
    /// (docs/FORMATS.md).
    pub(crate) fn limits(&self) -> PathBuf {
        self.swarm_dir().join("limits.json")
    }

    /// `.swarm/demo/`: the demo agent's conversations, one JSON-lines
    /// file per conversation id, so that it can be resumed like a real
    /// agent (docs/FORMATS.md).
    pub fn demo_conversations(&self) -> PathBuf {
        self.swarm_dir().join("demo")
    }

    /// `.swarm/rate_limits.json`: each sender's rate window
    /// (docs/FORMATS.md).
    pub(crate) fn rate_limits(&self) -> PathBuf {
        self.swarm_dir().join("rate_limits.json")
    }

    /// `.swarm/messages/`: bodies too long to type, one file per message
    /// (docs/FORMATS.md).
    pub(crate) fn message_bodies(&self) -> PathBuf {
        self.swarm_dir().join("messages")
    }

    /// `.swarm/delivery/pane-N`: the delivery lock of pane `%N`, so that
    /// concurrent senders never interleave (docs/FORMATS.md).
    pub(crate) fn delivery_lock(&self, pane_number: u32) -> PathBuf {
        self.swarm_dir()
            .join("delivery")
            .join(format!("pane-{pane_number}"))
    }

    /// `.swarm/audit.log`: JSON lines recording forced and administrative
    /// actions (forced unlocks, stale takeovers, cleanups, `--as-other`).
    pub fn audit_log(&self) -> PathBuf {
        self.swarm_dir().join("audit.log")
    }

    /// `.swarm/worktrees/`: the git worktrees of agents launched with
    /// worktrees, one directory per agent id (docs/guide/worktrees.md).
    pub fn worktrees_dir(&self) -> PathBuf {
        self.swarm_dir().join("worktrees")
    }

    /// The name, in `worktrees_dir`, of the `.gitignore` holding `*`: the
    /// main worktree's git then never lists the agents' worktrees (nor
    /// adds them as embedded repositories) even where `.swarm/` is not
    /// ignored. A linked worktree reads no `.gitignore` above its own top,
    /// so the agents' own files are not affected.
    pub(crate) const WORKTREES_IGNORE: &'static str = ".gitignore";

    /// `.swarm/overlaps.json`: the overlaps between agents' branches that
    /// the agents involved were told about (docs/FORMATS.md).
    pub(crate) fn overlap_notices(&self) -> PathBuf {
        self.swarm_dir().join("overlaps.json")
    }

    /// `.swarm/review.json`: review comments on agents' branches, each
    /// anchored to a line by its code (docs/FORMATS.md).
    pub(crate) fn review_comments(&self) -> PathBuf {
        self.swarm_dir().join("review.json")
    }

    /// `.swarm/merge_queue.json`: the agents waiting to be merged, in
    /// the order they were queued, with their last try (docs/FORMATS.md).
    pub(crate) fn merge_queue(&self) -> PathBuf {
        self.swarm_dir().join("merge_queue.json")
    }

    /// `.swarm/workspaces.json`: each worktree agent's slot and block of
    /// ports (docs/FORMATS.md).
    pub(crate) fn workspaces(&self) -> PathBuf {
        self.swarm_dir().join("workspaces.json")
    }

    /// `.swarm/merge-scratch/`: the throwaway worktrees where the merge
    /// queue builds and tests a merge before the base branch moves.
    pub(crate) fn merge_scratch_dir(&self) -> PathBuf {
        self.swarm_dir().join("merge-scratch")
    }

    /// A short fingerprint of the root, written into panes as
    /// `@swarm_project` so a pane's agent id is only trusted by the project
    /// that gave it.
    pub fn fingerprint(&self) -> String {
        short_hash(self.root.as_os_str().as_encoded_bytes())
    }

    /// `.swarm/locks/<name>-<hash>.lock`: the lock swarm takes to change
    /// `document`, a file another program owns (an agent's settings), so
    /// that no lock file of swarm's is left beside it. The hash is of the
    /// document's path; the name keeps the lock readable.
    pub(crate) fn document_lock(&self, document: &Path) -> PathBuf {
        let name = document
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let hash = short_hash(document.as_os_str().as_encoded_bytes());
        self.swarm_dir()
            .join("locks")
            .join(format!("{name}-{hash}.lock"))
    }
}

/// The first 16 hex digits of the SHA-256 of `bytes`.
fn short_hash(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    let mut hex = String::with_capacity(16);
    for byte in &digest[..8] {
        hex.push_str(&format!("{byte:02x}"));
    }
    hex
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_matches_the_python_tool() {
        let p = Paths::new("/p");
        assert_eq!(p.registry(), Path::new("/p/ACTIVE_AGENTS.json"));
        assert_eq!(p.message_log(), Path::new("/p/agent_messages.log"));
        assert_eq!(p.locks_dir(), Path::new("/p/.agent_locks"));
        assert_eq!(p.pending_acks(), Path::new("/p/PENDING_ACKS.json"));
        assert_eq!(
            p.last_read(),
            Path::new("/p/.swarm/last_read_messages.json")
        );
        assert_eq!(p.agent_cards(), Path::new("/p/AGENT_CARDS.json"));
        assert_eq!(p.tasks(), Path::new("/p/TASKS.json"));
        assert_eq!(
            p.delegation_history(),
            Path::new("/p/DELEGATION_HISTORY.json")
        );
        assert_eq!(p.learning_data(), Path::new("/p/LEARNING_DATA.json"));
        assert_eq!(p.memory_dir(), Path::new("/p/.agent_memory"));
        assert_eq!(p.contexts(), Path::new("/p/CONTEXTS.json"));
        assert_eq!(p.conflict_log(), Path::new("/p/CONFLICT_LOG.json"));
    }

    #[test]
    fn state_files_are_named_relative_to_the_root() {
        let p = Paths::new("/p");
        assert_eq!(p.relative(&p.registry()), Path::new("ACTIVE_AGENTS.json"));
        assert_eq!(
            p.relative(&p.locks_dir().join("x.lock")),
            Path::new(".agent_locks/x.lock")
        );
        assert_eq!(p.relative(Path::new("/q/a")), Path::new("/q/a"));
    }

    #[test]
    fn fingerprints_differ_per_root() {
        let a = Paths::new("/p/a").fingerprint();
        assert_eq!(a.len(), 16);
        assert_eq!(a, Paths::new("/p/a").fingerprint());
        assert_ne!(a, Paths::new("/p/b").fingerprint());
    }

    #[test]
    fn documents_of_other_programs_are_locked_under_swarm() {
        let p = Paths::new("/p");
        let claude = p.document_lock(Path::new("/p/.claude/settings.json"));
        let gemini = p.document_lock(Path::new("/p/.gemini/settings.json"));
        assert_eq!(claude.parent(), Some(Path::new("/p/.swarm/locks")));
        assert_ne!(claude, gemini);
        let name = claude.file_name().and_then(|n| n.to_str()).unwrap_or("");
        assert!(name.starts_with("settings.json-") && name.ends_with(".lock"));
    }
}
