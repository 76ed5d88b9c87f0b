//! The published table of exit codes (docs/guide/reference.md, "Exit codes"): every way a
//! `swarm` command can end maps to exactly one of these.

/// How a `swarm` process ends. The numbers are part of the interface:
/// scripts and agents branch on them, so they never change meaning.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum ExitCode {
    /// The command did what was asked (including "nothing to do").
    Success = 0,
    /// A handled failure: bad input, unreadable state, a refused operation.
    Failure = 1,
    /// The command line itself was wrong (unknown command, missing argument).
    Usage = 2,
    /// A file lock is held by another agent.
    LockHeld = 3,
    /// The agent, pane, session, message or record (card, task, context)
    /// named does not exist.
    NotFound = 4,
    /// tmux is not installed, no server is running, or it did not answer.
    TmuxUnavailable = 5,
    /// The sender exceeded its message rate limit.
    RateLimited = 6,
    /// The message was saved but not delivered into the pane (queued).
    NotDelivered = 7,
    /// The shared store (a Redis server) did not answer in time or refused
    /// the connection; nothing was changed.
    StoreUnavailable = 8,
}

impl ExitCode {
    /// Every code with a one-line meaning, in numeric order (used by
    /// `swarm help exit-codes` and listed in docs/guide/reference.md).
    pub const ALL: [(ExitCode, &'static str); 9] = [
        (ExitCode::Success, "success (also \"nothing to do\")"),
        (
            ExitCode::Failure,
            "error: invalid input, unreadable state, refused operation (a `swarm merge` that would not apply cleanly, or a `swarm merge --queue` run in which a merge conflicted or failed its test, among them)",
        ),
        (
            ExitCode::Usage,
            "usage error: unknown command, bad or missing argument",
        ),
        (ExitCode::LockHeld, "the file lock is held by another agent"),
        (
            ExitCode::NotFound,
            "not found: agent, pane, session, message, card, task, context, an agent's worktree branch or a review comment",
        ),
        (
            ExitCode::TmuxUnavailable,
            "tmux unavailable: not installed, no server, or timed out",
        ),
        (
            ExitCode::RateLimited,
            "rate limited: wait before sending more messages",
        ),
        (
            ExitCode::NotDelivered,
            "message not delivered: queued in the inbox or held by swarm until the pane is safe, or dropped by the agent; one an agent accepted through its own channel (Claude Code's socket) is delivered or accepted (0) and never sent again",
        ),
        (
            ExitCode::StoreUnavailable,
            "the shared store (Redis) is unreachable or did not answer in time, or no node of a Redis Cluster serves the swarm's slot; nothing was changed",
        ),
    ];

    /// The numeric process status.
    pub fn code(self) -> u8 {
        self as u8
    }
}
